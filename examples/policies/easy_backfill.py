"""EASY backfill in Python, giving the C++ `easy` policy's schedule job for job
(tests/policy/test_python_policy.cpp): a template for a fast Python policy.

    [batch]
    policy = "python"
    python_policy = "examples/policies/easy_backfill.py"

Jobs start in queue order while they fit; the first that does not (the head) is reserved at its
shadow time, the earliest its nodes are free given the running jobs' requested ends; a later job
starts now if it fits now and either ends by the shadow time or uses only nodes the head will
not need.

What makes it fast enough for a whole log: the queue is read as NumPy columns (no Python object
per job); the candidates are filtered in vector steps, one per backfilled job, so Python never
loops over the jobs that cannot start; the shadow comes from tracewarp's
helper (view.shadow); and in arrival order the jobs the last pass refused, with nothing ended
since, are skipped (view.settled_below), as the C++ policy skips them.
"""

import numpy as np

import tracewarp


class Policy:
    def schedule(self, view):
        # The queued jobs in queue order, the three fields EASY reads.
        ids, nodes, requested = view.queue_column("id"), view.queue_column("nodes"), view.queue_column("requested")
        if view.depth:
            ids, nodes, requested = ids[: view.depth], nodes[: view.depth], requested[: view.depth]
        now, free = view.now, view.free_nodes
        count = len(ids)

        starts, started = [], []
        head = 0
        while head < count and nodes[head] <= free:
            free -= int(nodes[head])
            starts.append(int(ids[head]))
            started.append((int(nodes[head]), now + int(requested[head])))
            head += 1
        reservations = [(i, now) for i in starts]
        if head == count:
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
        # The next backfilled job is the first candidate that fits now and either ends by the
        # shadow or uses only extra nodes; starting it only shrinks the free and extra nodes, so
        # the candidates are filtered again (one vector step) and the loop runs once per start.
        candidates = np.arange(first, count)
        while True:
            n, r = nodes[candidates], requested[candidates]
            candidates = candidates[(n <= free) & ((r <= within) | (n <= extra))]
            if not len(candidates):
                break
            k = candidates[0]
            candidates = candidates[1:]
            free -= int(nodes[k])
            if int(requested[k]) > within:
                extra -= int(nodes[k])
            starts.append(int(ids[k]))
            reservations.append((int(ids[k]), now))
        return starts, reservations
