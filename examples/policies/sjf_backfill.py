"""Shortest job first with EASY-style backfill, in Python: the twin of sjf_backfill.cpp.

    [batch]
    policy = "python"
    python_policy = "examples/policies/sjf_backfill.py"

Each pass orders the considered jobs (the first view.depth of the queue, 0 = all) by requested
walltime, shortest first, ties in queue order. In that order a job starts if it fits now in the
availability profile; the first that does not gets a reservation at its earliest fit, and every
later one starts only if it fits now around it. The schedule is the C++ example's, job for job
(tests/policy/test_python_policy.cpp).
"""

import tracewarp


class Policy:
    def __init__(self):
        self.reserved_jobs = 1  # the state a policy keeps: attributes (saved and restored by tracewarp)

    def schedule(self, view):
        jobs = view.queue
        if view.depth:
            jobs = jobs[: view.depth]
        jobs.sort(key=lambda job: job.requested)  # stable: ties stay in queue order
        free = view.profile()
        starts, reservations = [], []
        for job in jobs:
            if job.nodes > view.total_nodes:
                raise ValueError(f"job {job.id} is larger than the machine")
            start = free.earliest_start(job.nodes, job.requested)
            if start == view.now:
                starts.append(job.id)
            elif len(reservations) - len(starts) >= self.reserved_jobs:
                continue  # neither starts nor is reserved: it must not take nodes from the plan
            free.reserve(start, job.requested, job.nodes)
            reservations.append((job.id, start))
        return starts, reservations
