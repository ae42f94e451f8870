#include "transport.hpp"

#include <algorithm>

#include "communicator_impl.hpp"

namespace tracewarp::detail {
namespace {

// The GVT reduction combines three values in one collective: a sum, a minimum and an OR.
void combine_reduction(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const std::int64_t*>(in);
  auto* b = static_cast<std::int64_t*>(inout);
  for (int i = 0; i < *len; ++i, a += 3, b += 3) {
    b[0] += a[0];
    b[1] = std::min(b[1], a[1]);
    b[2] |= a[2];
  }
}

}  // namespace

Transport::Transport(const Communicator& comm) : comm_(comm.impl().comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  batches_.resize(static_cast<std::size_t>(size_));
  batch_counts_.assign(static_cast<std::size_t>(size_), 0);
  MPI_Type_contiguous(3, MPI_INT64_T, &reduce_type_);
  MPI_Type_commit(&reduce_type_);
  MPI_Op_create(&combine_reduction, /*commute=*/1, &reduce_op_);
}

Transport::~Transport() {
  MPI_Waitall(static_cast<int>(send_requests_.size()), send_requests_.data(), MPI_STATUSES_IGNORE);
  MPI_Op_free(&reduce_op_);
  MPI_Type_free(&reduce_type_);
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
  if (in_round_) red_min_ = std::min(red_min_, ev.key.time);
}

void Transport::flush() {
  reclaim_finished_sends();
  for (int r = 0; r < size_; ++r) {
    auto& batch = batches_[static_cast<std::size_t>(r)];
    if (batch.empty()) continue;
    const BatchHeader header{colour_, batch_counts_[static_cast<std::size_t>(r)]};
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
    ++sent_[colour_];
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
  flush();  // what was queued before the round travels in the old colour and is counted
  colour_ ^= 1u;
  in_round_ = true;
  red_min_ = kTimeInfinity;
}

Transport::Reduction Transport::reduce(Time local_min, std::uint64_t flags) {
  const std::uint32_t white = colour_ ^ 1u;
  std::int64_t local[3] = {sent_[white] - received_[white], std::min(local_min, red_min_),
                           static_cast<std::int64_t>(flags)};
  std::int64_t global[3];
  MPI_Allreduce(local, global, 1, reduce_type_, reduce_op_, comm_);
  return {global[0], global[1], static_cast<std::uint64_t>(global[2])};
}

void Transport::end_round() {
  const std::uint32_t white = colour_ ^ 1u;
  sent_[white] = received_[white] = 0;
  in_round_ = false;
  red_min_ = kTimeInfinity;
}

}  // namespace tracewarp::detail
