// Remote event traffic of one rank in optimistic mode: batching of events per destination rank,
// and the message colouring and counting that make GVT account for messages in transit.
//
// GVT (Mattern-style colouring). Every MPI message carries the epoch it was sent in (its
// "colour"). GVT round k switches the rank to epoch k, then repeatedly drains incoming messages
// and reduces over all ranks (a) the number of messages of epochs below k ("white") sent minus
// received and (b) the minimum of the local pending events and of every message sent since the
// switch ("red"), each rank's values taken when it joins the reduction. Once (a) is zero, no white
// message was in transit when the ranks joined, and (b) is GVT: a rank that goes on executing
// after it joined (the optimistic kernel's reductions are non-blocking) only executes events at
// or above its own pending minimum, or events brought back by messages that themselves carry
// times at or above (b) (red ones counted in their sender's minimum or sent later on the same
// terms, white ones received before their receiver joined), so whatever it sends stays at or
// above (b).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "pairwise_reduction.hpp"
#include "tracewarp/engine/communicator.hpp"
#include "tracewarp/engine/event.hpp"

namespace tracewarp::detail {

// What each rank adds to a GVT round besides GVT's own terms, for the optimism tuner
// (optimism_tuner.hpp): every rank learns the same totals.
struct RoundTally {
  std::uint64_t committed = 0;  // events this rank has committed (summed over ranks)
  std::int64_t wall_ns = 0;     // this rank's clock since its start (the largest over ranks)
};

class Transport {
 public:
  explicit Transport(const Communicator& comm);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  int rank() const { return rank_; }

  // Queues an event (or the cancellation of one: only key and destination travel) for `rank`.
  void post(int rank, const Event& ev, bool anti);
  // Sends every non-empty batch (a GVT round and each exchange ask: often there is nothing).
  void flush() {
    if (queued_ || !send_requests_.empty()) send_batches();
  }
  // Hands every message that has arrived to on_item(const Event&, bool anti), in arrival order.
  template <class OnItem>
  void poll(OnItem&& on_item);

  using Tally = RoundTally;
  static constexpr int kReduced = 5;  // values per reduction: Reduction's fields, flattened
  struct Reduction {
    std::int64_t white_in_transit = 0;
    Time min_time = kTimeInfinity;
    std::uint64_t flags = 0;  // bitwise OR over ranks
    Tally tally;
  };
  // GVT round: begin (flush and switch to the next epoch), reduce (repeat until nothing white is
  // in transit), end (the epochs below the round's are all received: settle their counts).
  void begin_round();
  Reduction reduce(Time local_min, std::uint64_t flags, Tally tally = {});
  // The same reduction without waiting: start it, then test until it is done (one at a time).
  void start_reduce(Time local_min, std::uint64_t flags, Tally tally = {});
  bool test_reduce(Reduction& out);
  // The rank whose part of the reduction in flight this rank waits for (-1: none).
  int waiting_for() const { return reduction_.waiting_for(); }
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
    std::uint32_t epoch;
    std::uint32_t count;
  };

  static constexpr int kTag = 4242;

  void send_batches();
  void reclaim_finished_sends();

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<std::vector<std::byte>> batches_;  // per destination rank
  std::vector<std::uint32_t> batch_counts_;
  bool queued_ = false;  // some batch holds an item
  // Batches being sent: requests and their buffers, index for index.
  std::vector<MPI_Request> send_requests_;
  std::vector<std::vector<std::byte>> send_buffers_;
  std::vector<int> completed_;
  std::vector<std::vector<std::byte>> spare_;
  std::vector<std::byte> incoming_;
  // Message counts. Epochs are numbered, not two colours: with non-blocking rounds a rank may
  // already send in epoch k + 1 while another still ends round k, so counts of a reused colour
  // could be reset under it. A rank receives messages of at most three epochs between the end
  // of one round and the end of the next, counted in a ring of four; epochs below the last
  // round's are all received (its reduction said so) and summed into received_settled_.
  std::uint32_t epoch_ = 0;
  std::int64_t sent_total_ = 0;
  std::int64_t sent_before_epoch_ = 0;  // sent before the switch to the current epoch
  std::int64_t received_by_epoch_[4] = {0, 0, 0, 0};
  std::int64_t received_settled_ = 0;
  std::uint32_t settled_epoch_ = 0;  // epochs below this are in received_settled_
  std::int64_t received_below(std::uint32_t epoch) const;
  bool in_round_ = false;
  Time red_min_ = kTimeInfinity;
  using Values = PairwiseReduction<kReduced>::Values;
  PairwiseReduction<kReduced> reduction_;
  Values contribution(Time local_min, std::uint64_t flags, Tally tally) const;
  static void combine(const Values& in, Values& inout);
  static Reduction unpack(const Values& global);
};

template <class OnItem>
void Transport::poll(OnItem&& on_item) {
  if (size_ == 1) return;  // nothing can arrive, and a probe costs a few hundred instructions
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
    ++received_by_epoch_[batch.epoch & 3u];
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
    std::int64_t local[1] = {sent_total_ - received_below(epoch_ + 2)};  // every epoch a message can have
    std::int64_t global[1] = {0};
    MPI_Allreduce(local, global, 1, MPI_INT64_T, MPI_SUM, comm_);
    if (global[0] == 0) return;
  }
}

}  // namespace tracewarp::detail
