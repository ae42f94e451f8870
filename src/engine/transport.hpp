// Remote event traffic of one rank in optimistic mode: batching of events per destination rank,
// and the message colouring and counting that make GVT account for messages in transit.
//
// GVT (Mattern-style colouring with blocking reductions). Every MPI message carries the colour
// of the epoch it was sent in. A GVT round switches the rank to the next epoch ("red"), then
// repeatedly drains incoming messages and reduces over all ranks (a) the number of old-colour
// ("white") messages sent minus received and (b) the minimum of the local pending events and of
// every red message sent since the switch. While ranks are in a round they execute no events,
// so once (a) is zero no white message is in transit, and (b) bounds every event anywhere:
// that minimum is GVT.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/event.hpp"

namespace tracewarp::detail {

class Transport {
 public:
  explicit Transport(const Communicator& comm);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  int rank() const { return rank_; }

  // Queues an event (or the cancellation of one: only key and destination travel) for `rank`.
  void post(int rank, const Event& ev, bool anti);
  // Sends every non-empty batch.
  void flush();
  // Hands every message that has arrived to on_item(const Event&, bool anti), in arrival order.
  template <class OnItem>
  void poll(OnItem&& on_item);

  struct Reduction {
    std::int64_t white_in_transit = 0;
    Time min_time = kTimeInfinity;
    std::uint64_t flags = 0;  // bitwise OR over ranks
  };
  // GVT round: begin (flush and change colour), reduce (repeat until nothing white in transit),
  // end (forget the old colour's counts).
  void begin_round();
  Reduction reduce(Time local_min, std::uint64_t flags);
  void end_round();
  Time red_min() const { return red_min_; }

  // At the very end: receives and discards everything still in transit, on every rank.
  template <class OnItem>
  void drain_all(OnItem&& on_item);

 private:
  struct ItemHeader {
    EventKey key;
    LpId dest;
    std::uint32_t payload_size;
    std::uint32_t anti;
  };
  struct BatchHeader {
    std::uint32_t colour;
    std::uint32_t count;
  };

  static constexpr int kTag = 4242;

  void reclaim_finished_sends();

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<std::vector<std::byte>> batches_;  // per destination rank
  std::vector<std::uint32_t> batch_counts_;
  // Batches being sent: requests and their buffers, index for index.
  std::vector<MPI_Request> send_requests_;
  std::vector<std::vector<std::byte>> send_buffers_;
  std::vector<int> completed_;
  std::vector<std::vector<std::byte>> spare_;
  std::vector<std::byte> incoming_;
  std::uint32_t colour_ = 0;
  std::int64_t sent_[2] = {0, 0};
  std::int64_t received_[2] = {0, 0};
  bool in_round_ = false;
  Time red_min_ = kTimeInfinity;
  MPI_Op reduce_op_ = MPI_OP_NULL;
  MPI_Datatype reduce_type_ = MPI_DATATYPE_NULL;
};

template <class OnItem>
void Transport::poll(OnItem&& on_item) {
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &arrived, &status);
    if (!arrived) return;
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    incoming_.resize(static_cast<std::size_t>(bytes));
    MPI_Recv(incoming_.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kTag, comm_, MPI_STATUS_IGNORE);
    BatchHeader batch;
    std::memcpy(&batch, incoming_.data(), sizeof batch);
    ++received_[batch.colour];
    std::size_t at = sizeof batch;
    Event ev;
    for (std::uint32_t i = 0; i < batch.count; ++i) {
      ItemHeader item;
      std::memcpy(&item, incoming_.data() + at, sizeof item);
      at += sizeof item;
      ev.key = item.key;
      ev.dest = item.dest;
      ev.payload_size = item.payload_size;
      std::memcpy(ev.payload, incoming_.data() + at, item.payload_size);
      at += item.payload_size;
      on_item(static_cast<const Event&>(ev), item.anti != 0);
    }
  }
}

template <class OnItem>
void Transport::drain_all(OnItem&& on_item) {
  for (;;) {
    flush();
    poll(on_item);
    std::int64_t local[1] = {sent_[0] + sent_[1] - received_[0] - received_[1]};
    std::int64_t global[1] = {0};
    MPI_Allreduce(local, global, 1, MPI_INT64_T, MPI_SUM, comm_);
    if (global[0] == 0) return;
  }
}

}  // namespace tracewarp::detail
