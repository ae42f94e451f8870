#include "transport.hpp"

#include <algorithm>

#include "communicator_impl.hpp"
#include "tracewarp/core/error.hpp"

namespace tracewarp::detail {

Transport::Transport(const Communicator& comm)
    : comm_(comm.impl().comm), reduction_(comm.impl().comm, &Transport::combine) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  batches_.resize(static_cast<std::size_t>(size_));
  batch_counts_.assign(static_cast<std::size_t>(size_), 0);
}

Transport::~Transport() {
  MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(), MPI_STATUSES_IGNORE);
}

// The GVT reduction combines white messages in transit (a sum), the time minimum, the flags (an
// OR), committed events (a sum) and the clocks (a maximum).
void Transport::combine(const Values& in, Values& inout) {
  inout[0] += in[0];
  inout[1] = std::min(inout[1], in[1]);
  inout[2] |= in[2];
  inout[3] += in[3];
  inout[4] = std::max(inout[4], in[4]);
}

void Transport::post(int rank, const Event& ev, bool anti) {
  auto& batch = batches_[static_cast<std::size_t>(rank)];
  if (batch.empty()) batch.resize(sizeof(BatchHeader));
  const std::uint32_t payload = anti ? 0 : ev.payload_size;
  const ItemHeader item{ev.key, ev.dest, payload, anti ? 1u : 0u};
  const std::size_t at = batch.size();
  batch.resize(at + sizeof item + payload);
  std::memcpy(batch.data() + at, &item, sizeof item);
  std::memcpy(batch.data() + at + sizeof item, ev.payload, payload);
  ++batch_counts_[static_cast<std::size_t>(rank)];
  queued_ = true;
  if (in_round_) red_min_ = std::min(red_min_, ev.key.time);
}

void Transport::send_batches() {
  reclaim_finished_sends();
  queued_ = false;
  for (int r = 0; r < size_; ++r) {
    auto& batch = batches_[static_cast<std::size_t>(r)];
    if (batch.empty()) continue;
    const BatchHeader header{epoch_, batch_counts_[static_cast<std::size_t>(r)]};
    std::memcpy(batch.data(), &header, sizeof header);
    std::vector<std::byte>& bytes = send_buffers_.emplace_back();
    bytes.swap(batch);
    if (!spare_.empty()) {
      batch.swap(spare_.back());
      spare_.pop_back();
    }
    batch.clear();
    batch_counts_[static_cast<std::size_t>(r)] = 0;
    MPI_Request& request = send_requests_.emplace_back();
    MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, r, kTag, comm_, &request);
    ++sent_total_;
  }
}

void Transport::reclaim_finished_sends() {
  if (send_requests_.empty()) return;
  completed_.resize(send_requests_.size());
  int done = 0;
  MPI_Testsome(static_cast<int>(send_requests_.size()), send_requests_.data(), &done, completed_.data(),
               MPI_STATUSES_IGNORE);
  if (done <= 0) return;  // none, or MPI_UNDEFINED when no request was active
  // Completed requests became MPI_REQUEST_NULL: keep the others, recycle their buffers.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < send_requests_.size(); ++i) {
    if (send_requests_[i] == MPI_REQUEST_NULL) {
      spare_.push_back(std::move(send_buffers_[i]));
    } else {
      send_requests_[kept] = send_requests_[i];
      std::swap(send_buffers_[kept], send_buffers_[i]);
      ++kept;
    }
  }
  send_requests_.resize(kept);
  send_buffers_.resize(kept);
}

void Transport::begin_round() {
  flush();  // what was queued before the round travels in the old epoch and is counted
  sent_before_epoch_ = sent_total_;
  ++epoch_;
  in_round_ = true;
  red_min_ = kTimeInfinity;
}

std::int64_t Transport::received_below(std::uint32_t epoch) const {
  std::int64_t n = received_settled_;
  for (std::uint32_t e = settled_epoch_; e < epoch; ++e) n += received_by_epoch_[e & 3u];
  return n;
}

Transport::Values Transport::contribution(Time local_min, std::uint64_t flags, Tally tally) const {
  return {sent_before_epoch_ - received_below(epoch_), std::min(local_min, red_min_), static_cast<std::int64_t>(flags),
          static_cast<std::int64_t>(tally.committed), tally.wall_ns};
}

Transport::Reduction Transport::unpack(const Values& global) {
  return {
      global[0], global[1], static_cast<std::uint64_t>(global[2]), {static_cast<std::uint64_t>(global[3]), global[4]}};
}

Transport::Reduction Transport::reduce(Time local_min, std::uint64_t flags, Tally tally) {
  start_reduce(local_min, flags, tally);
  Reduction out;
  while (!test_reduce(out)) {
  }
  return out;
}

void Transport::start_reduce(Time local_min, std::uint64_t flags, Tally tally) {
  if (reduction_.in_flight()) throw InvariantError("transport: a reduction is already in flight");
  reduction_.start(contribution(local_min, flags, tally));
}

bool Transport::test_reduce(Reduction& out) {
  Values global;
  if (!reduction_.test(global)) return false;
  out = unpack(global);
  return true;
}

void Transport::end_round() {
  // Every message of an epoch below this one has arrived (the round's reduction said so).
  for (; settled_epoch_ < epoch_; ++settled_epoch_) {
    received_settled_ += received_by_epoch_[settled_epoch_ & 3u];
    received_by_epoch_[settled_epoch_ & 3u] = 0;
  }
  in_round_ = false;
  red_min_ = kTimeInfinity;
}

}  // namespace tracewarp::detail
