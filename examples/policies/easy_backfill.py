"""EASY backfill in Python, giving the C++ `easy` policy's schedule job for job
(tests/policy/test_python_policy.cpp): a template for a fast Python policy.

    [batch]
    policy = "python"
    python_policy = "examples/policies/easy_backfill.py"

Jobs start in queue order while they fit; the first that does not (the head) is reserved at its
shadow time, the earliest its nodes are free given the running jobs' requested ends; a later job
starts now if it fits now and either ends by the shadow time or uses only nodes the head will
not need.

What makes it fast enough for a whole log: the queue is read as one NumPy array (no Python object
per job); the jobs that cannot start even on the pass's first free nodes are filtered out in one
vector step, so Python loops over the few real candidates; the shadow comes from tracewarp's
helper (view.shadow); and in arrival order the jobs the last pass refused, with nothing ended
since, are skipped (view.settled_below), as the C++ policy skips them.
"""

import numpy as np

import tracewarp


class Policy:
    def schedule(self, view):
        jobs = view.queue_array()  # the queued jobs, in queue order
        if view.depth:
            jobs = jobs[: view.depth]
        ids, nodes, requested = jobs["id"], jobs["nodes"], jobs["requested"]
        now, free = view.now, view.free_nodes

        starts, started = [], []
        head = 0
        while head < len(jobs) and nodes[head] <= free:
            free -= int(nodes[head])
            starts.append(int(ids[head]))
            started.append((int(nodes[head]), now + int(requested[head])))
            head += 1
        reservations = [(i, now) for i in starts]
        if head == len(jobs):
            return starts, reservations

        shadow, free_then = view.shadow(int(nodes[head]), free, started)
        reservations.append((int(ids[head]), shadow))
        extra = free_then - int(nodes[head])
        within = tracewarp.INFINITY if shadow == tracewarp.INFINITY else shadow - now

        # The candidates: the jobs after the head, less those the last pass settled (in arrival
        # order ids ascend, so they are a prefix: one binary search).
        first = head + 1
        if view.settled_below:
            first = max(first, int(np.searchsorted(ids, view.settled_below)))
        later_nodes, later_requested = nodes[first:], requested[first:]
        # Free and extra nodes only shrink during the pass: a job that fails here fails later too.
        fits = (later_nodes <= free) & ((later_requested <= within) | (later_nodes <= extra))
        candidates = np.flatnonzero(fits) + first
        smallest = int(nodes[candidates].min()) if len(candidates) else 0
        for k in candidates:
            if free < smallest:
                break  # no candidate fits any more
            n = int(nodes[k])
            ends_by_shadow = int(requested[k]) <= within
            if n > free or (not ends_by_shadow and n > extra):
                continue
            free -= n
            if not ends_by_shadow:
                extra -= n
            starts.append(int(ids[k]))
            reservations.append((int(ids[k]), now))
        return starts, reservations
