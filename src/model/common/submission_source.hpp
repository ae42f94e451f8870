// The workload-source LP the models share (internal to src/model/): it sends each job of a
// workload (or of a subset, by index) to one LP at the job's submit time, one event per job,
// waking itself once per distinct submit time.
#pragma once

#include <cstdint>
#include <vector>

#include "tracewarp/engine/event.hpp"
#include "tracewarp/engine/lp.hpp"
#include "tracewarp/jobs/job.hpp"

namespace tracewarp::model {

struct SubmissionMsg {
  std::uint64_t index;  // into Workload::jobs
};

class SubmissionSource {
 public:
  // `jobs`: workload indices in submit order (nullptr: all of them); `target` is read when the
  // run starts, so it may be filled in after registration. `arrival` must be above `tick`.
  SubmissionSource(const workload::Workload* workload, const std::vector<std::uint64_t>* jobs, const LpId* target,
                   EventKind tick, EventKind arrival)
      : workload_(workload), jobs_(jobs), target_(target), tick_(tick), arrival_(arrival) {}

  void on_init(EventContext& ctx) {
    if (count() > 0) ctx.send(ctx.self(), submit(0), tick_);
  }
  // Submits every job of this instant, then waits for the next submission time.
  void on_event(const Event&, EventContext& ctx) {
    while (next_ < count() && submit(next_) == ctx.now())
      ctx.send(*target_, 0, arrival_, SubmissionMsg{index(next_++)});
    if (next_ < count()) ctx.send(ctx.self(), submit(next_) - ctx.now(), tick_);
  }
  bool operator==(const SubmissionSource&) const = default;
  TRACEWARP_PERSIST(next_)

 private:
  std::size_t count() const { return jobs_ ? jobs_->size() : workload_->jobs.size(); }
  std::uint64_t index(std::size_t i) const { return jobs_ ? (*jobs_)[i] : i; }
  Time submit(std::size_t i) const { return workload_->jobs[index(i)].submit; }

  const workload::Workload* workload_;
  const std::vector<std::uint64_t>* jobs_;
  const LpId* target_;
  EventKind tick_, arrival_;
  std::uint64_t next_ = 0;
};

}  // namespace tracewarp::model
