// A non-blocking allreduce over point-to-point messages, for the optimistic kernel's GVT rounds:
// recursive doubling, where ranks beyond the largest power of two hand their values to a
// partner first and get the result back last. Open MPI's MPI_Iallreduce builds a schedule at
// every call and advances it under its progress engine; a GVT round opens every 10-20 events on
// 2 ranks, and the opening and tests were a sixth of a rank's time (docs/performance-history.md).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>

namespace tracewarp::detail {

template <std::size_t N>
class PairwiseReduction {
 public:
  using Values = std::array<std::int64_t, N>;
  using Combine = void (*)(const Values& in, Values& inout);  // commutative and associative

  PairwiseReduction(MPI_Comm comm, Combine combine) : combine_(combine) {
    MPI_Comm_dup(comm, &comm_);  // its messages can never match another's receives
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    for (; pow2_ * 2 <= size_; pow2_ *= 2) ++last_stage_;
  }
  ~PairwiseReduction() {
    // Only while an error unwinds can a reduction be in flight (the peers may never answer it,
    // and the error path ends in MPI_Abort); otherwise only the last result's send can be.
    if (!in_flight_) MPI_Wait(&result_send_, MPI_STATUS_IGNORE);
    MPI_Comm_free(&comm_);
  }
  PairwiseReduction(const PairwiseReduction&) = delete;
  PairwiseReduction& operator=(const PairwiseReduction&) = delete;

  bool in_flight() const { return in_flight_; }
  // The rank whose message the reduction in flight waits for now (-1: none).
  int waiting_for() const {
    if (!in_flight_) return -1;
    if (stage_ == 0) return extra() ? rank_ - pow2_ : has_extra() ? rank_ + pow2_ : -1;
    return stage_ < last_stage_ ? rank_ ^ (1 << (stage_ - 1)) : -1;
  }

  // One reduction at a time: the caller tests the last one to its end first.
  void start(const Values& mine) {
    acc_ = mine;
    if (size_ == 1) return;  // the result already: no MPI call (one-rank runs open a round every few events)
    MPI_Wait(&result_send_, MPI_STATUS_IGNORE);  // the last result, sent to this rank's partner
    in_flight_ = true;
    stage_ = 0;
    post();
  }

  // Advances the reduction as far as the messages that have arrived allow; true once `out` holds
  // the result (the same on every rank).
  bool test(Values& out) {
    while (in_flight_) {
      int done = 0;
      MPI_Testall(2, requests_, &done, MPI_STATUSES_IGNORE);
      if (!done) return false;
      finish_stage();
      if (in_flight_) post();
    }
    out = acc_;
    return true;
  }

 private:
  static constexpr int kTag = 4243;
  // Stages: 0 the partner exchange before the doubling (an extra rank sends, its partner
  // receives), then one per doubling step, then the result back to the extra rank.
  bool extra() const { return rank_ >= pow2_; }
  bool has_extra() const { return rank_ + pow2_ < size_; }

  void post() {
    requests_[0] = requests_[1] = MPI_REQUEST_NULL;
    if (stage_ == 0) {
      if (extra()) {
        outgoing_ = acc_;
        MPI_Isend(outgoing_.data(), N, MPI_INT64_T, rank_ - pow2_, kTag, comm_, &requests_[0]);
        MPI_Irecv(acc_.data(), N, MPI_INT64_T, rank_ - pow2_, kTag, comm_, &requests_[1]);
      } else if (has_extra()) {
        MPI_Irecv(incoming_.data(), N, MPI_INT64_T, rank_ + pow2_, kTag, comm_, &requests_[1]);
      }
    } else if (stage_ < last_stage_) {
      const int peer = rank_ ^ (1 << (stage_ - 1));
      outgoing_ = acc_;
      MPI_Isend(outgoing_.data(), N, MPI_INT64_T, peer, kTag, comm_, &requests_[0]);
      MPI_Irecv(incoming_.data(), N, MPI_INT64_T, peer, kTag, comm_, &requests_[1]);
    }
  }

  void finish_stage() {
    if (stage_ == 0 && extra()) {  // the result came back from the partner
      in_flight_ = false;
      return;
    }
    if ((stage_ == 0 && has_extra()) || stage_ > 0) combine_(incoming_, acc_);
    if (++stage_ < last_stage_) return;
    if (has_extra()) {
      outgoing_ = acc_;
      MPI_Isend(outgoing_.data(), N, MPI_INT64_T, rank_ + pow2_, kTag, comm_, &result_send_);
    }
    in_flight_ = false;
  }

  Combine combine_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int pow2_ = 1;
  int last_stage_ = 1;  // stage 0, then one per doubling step (log2 pow2_)
  int stage_ = 0;
  bool in_flight_ = false;
  Values acc_{};
  Values incoming_{};
  Values outgoing_{};  // what a pending send reads until it completes
  MPI_Request requests_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Request result_send_ = MPI_REQUEST_NULL;
};

}  // namespace tracewarp::detail
