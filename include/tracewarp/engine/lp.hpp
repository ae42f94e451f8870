// Writing an LP type: the whole model-facing API of the engine.
//
// An LP type is a plain C++ class whose members are its state. It must be copyable and
// equality-comparable (`bool operator==(const MyLp&) const = default;` is enough): the engine
// saves state by copying it and the rollback check compares copies. It defines
//
//   void on_event(const Event& ev, EventContext& ctx);          // required
//   void on_init(EventContext& ctx);                             // optional: initial events, t = 0
//   void on_commit(const Event& ev, CommitContext& ctx) const;   // optional: output, see below
//   void on_finish(FinishContext& ctx) const;                    // optional: end-of-run summary
//   void on_reverse(const Event& ev, const ReverseContext& ctx); // optional: undo on_event, below
//
// on_event must be a deterministic function of the LP's state and the event: all randomness comes
// from a RandomStream member, nothing is read from globals, clocks or other LPs. It may be run
// several times (optimistic execution rolls it back and runs it again) and its sends may be
// cancelled. It therefore never writes output itself: it calls ctx.emit(tag, row), and the row
// reaches on_commit once the event is committed (below global virtual time), exactly once,
// in timestamp order per LP. on_commit is const: it hands rows to output objects that live
// outside the simulated state (held by pointer), never changes the state.
//
// During optimistic execution a handler may see an event that contradicts its state (an event
// whose cause was just rolled back, before its cancellation arrives). Such a handler must not
// throw: it calls ctx.fault("what is wrong") and returns. If the event is cancelled, the fault
// goes with it; if the event commits, the fault is real and the run stops with that message.
//
// A member that only saves work — a cache of earlier answers — is a Memo (core/memo.hpp): the
// copies the engine saves share it, operator== and checkpoints skip it, and its rule (checked
// against the input at every use, so it never changes an answer) is what the rollback check
// tests: the redo of an event reads the memo the first execution wrote.
//
// For checkpoints (engine.checkpoint_every_s), an LP type lists the members a run changes:
// TRACEWARP_PERSIST(rng_, queue_, done_) (core/persist.hpp). Members fixed at construction
// (pointers to shared data and outputs, settings) stay out: a checkpoint is restored into an LP
// built by the same factory. Every checkpoint proves the list whole by restoring each saved state
// into a fresh LP and comparing it with operator==. Output objects filled by on_commit are
// registered with Simulation::checkpoint_also.
//
// Reverse computation (as in ROSS), an LP type's option (LpTypeOptions::reverse): instead of a
// copy of its state before each event, the optimistic kernel undoes an event by calling
// on_reverse with it, newest first, after cancelling what it sent. on_reverse must bring the
// state back exactly as it was before on_event (the rollback check proves it on every event:
// the state after the undo must equal the state before the event). What on_event cannot derive
// backwards (how many random numbers it drew, a value it overwrote) it keeps with
// ctx.keep_for_reverse(word), one 64-bit word per event handed back as ctx.kept(), or with
// ctx.keep_bytes_for_reverse(bytes, size), handed back as ctx.kept_bytes(). It pays where a
// state is large or holds heap memory and an event changes little of it; sends, emits and faults
// are undone by the kernel.
//
// Example (a complete LP that bounces a token to a random LP):
//
//   struct Bouncer {
//     RandomStream rng;
//     LpId lps;
//     void on_init(EventContext& ctx) { if (ctx.self() == 0) ctx.send(0, 1, kToken); }
//     void on_event(const Event&, EventContext& ctx) { ctx.send(rng.below(lps), 10, kToken); }
//     bool operator==(const Bouncer&) const = default;
//   };
//   sim.add_lps<Bouncer>({.name = "bouncer"}, 64, [](LpId id) { return Bouncer{{7, id}, 64}; });
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "tracewarp/core/error.hpp"
#include "tracewarp/core/persist.hpp"
#include "tracewarp/engine/event.hpp"

namespace tracewarp {

using RecordTag = std::uint16_t;

namespace detail {
// What an EventContext forwards to; implemented by each synchronisation mode's kernel.
class KernelPort {
 public:
  virtual void deliver(const Event& ev) = 0;
  virtual void emit(RecordTag tag, const void* row, std::uint32_t size) = 0;

 protected:
  ~KernelPort() = default;
};
}  // namespace detail

// Handed to on_init and on_event: the current time, the LP's own id, sending and emitting.
class EventContext {
 public:
  EventContext(detail::KernelPort& port, LpId lp_count) : port_(&port), lp_count_(lp_count) {}

  Time now() const noexcept { return now_; }
  LpId self() const noexcept { return self_; }
  LpId lp_count() const noexcept { return lp_count_; }

  // Payloads and rows are compared bytewise by the rollback check: give structs no implicit
  // padding (add explicit, zeroed fields), or the check will report uninitialised bytes.
  //
  // Schedules an event of `kind` at now() + delay on LP `dest`, delay >= 0. An event sent with
  // delay 0 from on_event must be of a higher kind than the event being handled: every event
  // then comes after its cause in the key order, which is what makes every synchronisation mode
  // execute each LP's events in the same order. Kinds thus act as phases within an instant
  // (for example job ends, then arrivals, then one scheduling pass, then job starts). From
  // on_init any delay >= 0 and any kind is fine.
  void send(LpId dest, Time delay, EventKind kind) { send_bytes(dest, delay, kind, nullptr, 0); }
  template <class T>
  void send(LpId dest, Time delay, EventKind kind, const T& payload) {
    static_assert(std::is_trivially_copyable_v<T>, "payloads are trivially copyable values");
    static_assert(sizeof(T) <= kMaxPayloadBytes, "payload larger than kMaxPayloadBytes");
    send_bytes(dest, delay, kind, &payload, sizeof(T));
  }

  // Reverse computation (see the top): a word on_reverse gets back for this event (kept()).
  void keep_for_reverse(std::uint64_t word) noexcept { kept_ = word; }
  // Or bytes (kept_bytes()), at most once per event: what on_event overwrites that on_reverse
  // cannot derive, in any amount. Kept only where an optimistic run may undo the event by
  // on_reverse; elsewhere a no-op.
  void keep_bytes_for_reverse(const void* bytes, std::uint32_t size) {
    if (keeping_) port_->emit(kKeepTag, bytes, size);
  }
  static constexpr RecordTag kKeepTag = 0xFFFE;
  // Whether keep_bytes_for_reverse stores anything here (a handler may skip preparing it).
  bool keeping_for_reverse() const noexcept { return keeping_; }

  // Records an inconsistency that is an error only if this event commits (see the top).
  void fault(const std::string& what) {
    FaultRecord r{};
    std::memcpy(r.text, what.data(), std::min(what.size(), sizeof r.text - 1));
    port_->emit(kFaultTag, &r, sizeof r);
  }
  static constexpr RecordTag kFaultTag = 0xFFFF;
  struct FaultRecord {
    char text[240];
  };

  // Queues an output row; it is handed to on_commit if and when this event commits.
  template <class T>
  void emit(RecordTag tag, const T& row) {
    static_assert(std::is_trivially_copyable_v<T>, "output rows are trivially copyable values");
    port_->emit(tag, &row, sizeof(T));
  }

  // Engine side: set before each handler call; cause_kind is the kind of the event being
  // handled, or kNoCause in on_init.
  static constexpr int kNoCause = -1;
  void bind(detail::KernelPort& port, LpId self, Time now, std::uint64_t* send_seq, int cause_kind) {
    port_ = &port;
    cause_kind_ = cause_kind;
    self_ = self;
    now_ = now;
    send_seq_ = send_seq;
    kept_ = 0;
    keeping_ = false;
  }
  std::uint64_t kept_for_reverse() const noexcept { return kept_; }
  void set_keeping_for_reverse(bool on) noexcept { keeping_ = on; }  // engine side, after bind

 private:
  void send_bytes(LpId dest, Time delay, EventKind kind, const void* payload, std::uint32_t size) {
    if (delay < 0 || delay > kTimeInfinity - now_ || dest >= lp_count_ || (delay == 0 && kind <= cause_kind_))
        [[unlikely]]
      throw InvariantError("LP " + std::to_string(self_) + " sent an event of kind " + std::to_string(kind) +
                           " to LP " + std::to_string(dest) + " with delay " + std::to_string(delay) +
                           " (need delay >= 0, dest < " + std::to_string(lp_count_) +
                           ", and with delay 0 a kind above " + std::to_string(cause_kind_) +
                           ", the kind of the event being handled)");
    Event ev;
    ev.key = EventKey::make(now_ + delay, kind, self_, (*send_seq_)++);
    ev.dest = dest;
    ev.payload_size = size;
    if (size != 0) std::memcpy(ev.payload, payload, size);
    port_->deliver(ev);
  }

  detail::KernelPort* port_;
  LpId lp_count_;
  LpId self_ = 0;
  Time now_ = 0;
  int cause_kind_ = kNoCause;
  std::uint64_t* send_seq_ = nullptr;
  std::uint64_t kept_ = 0;  // keep_for_reverse
  bool keeping_ = false;    // keep_bytes_for_reverse stores
};

// Handed to on_reverse: the event's time, the LP's own id, and what on_event kept for it.
class ReverseContext {
 public:
  ReverseContext(LpId self, Time now, std::uint64_t kept, std::span<const std::byte> bytes = {})
      : self_(self), now_(now), kept_(kept), bytes_(bytes) {}
  LpId self() const noexcept { return self_; }
  Time now() const noexcept { return now_; }
  std::uint64_t kept() const noexcept { return kept_; }
  // What on_event kept with keep_bytes_for_reverse (all of it, in order).
  std::span<const std::byte> kept_bytes() const noexcept { return bytes_; }

 private:
  LpId self_;
  Time now_;
  std::uint64_t kept_;
  std::span<const std::byte> bytes_;
};

// The rows an event emitted, as seen by on_commit.
class CommitContext {
 public:
  struct Record {
    RecordTag tag;
    std::span<const std::byte> bytes;
    template <class T>
    T as() const {
      if (bytes.size() != sizeof(T)) throw InvariantError("output record of unexpected size");
      T row;
      std::memcpy(&row, bytes.data(), sizeof(T));
      return row;
    }
  };

  CommitContext(LpId self, std::span<const std::byte> records, double handler_wall_us = -1)
      : self_(self), records_(records), handler_wall_us_(handler_wall_us) {}
  LpId self() const noexcept { return self_; }
  // Wall-clock microseconds the event's handler took in its last execution, for LP types
  // registered with LpTypeOptions::timed (else -1). The one sanctioned way to report how long a
  // handler ran: handlers never read clocks themselves, and the value is measurement, not
  // simulated data (it differs from run to run; keep it out of deterministic outputs).
  double handler_wall_us() const noexcept { return handler_wall_us_; }

  // Calls f(Record) for each emitted row, in emission order.
  template <class F>
  void for_each_record(F&& f) const {
    std::size_t at = 0;
    while (at < records_.size()) {
      RecordHeader h;
      std::memcpy(&h, records_.data() + at, sizeof h);
      at += sizeof h;
      if (h.tag != EventContext::kFaultTag && h.tag != EventContext::kKeepTag)
        f(Record{h.tag, records_.subspan(at, h.size)});
      at += h.size;
    }
  }
  // Kernels, before on_commit: the first fault the event recorded, or empty.
  std::string fault() const {
    std::string found;
    std::size_t at = 0;
    while (at < records_.size() && found.empty()) {
      RecordHeader h;
      std::memcpy(&h, records_.data() + at, sizeof h);
      at += sizeof h;
      if (h.tag == EventContext::kFaultTag) found = reinterpret_cast<const char*>(records_.data() + at);
      at += h.size;
    }
    return found;
  }

  // The encoding kernels use to store emitted rows: header then bytes.
  struct RecordHeader {
    RecordTag tag;
    std::uint32_t size;
  };
  // Writes a row's header at `to` (sizeof(RecordHeader) bytes), its padding zeroed: rows are
  // compared bytewise, and a copy of a struct need not carry its padding.
  static void write_header(std::byte* to, RecordTag tag, std::uint32_t size) {
    std::memset(to, 0, sizeof(RecordHeader));
    std::memcpy(to + offsetof(RecordHeader, tag), &tag, sizeof tag);
    std::memcpy(to + offsetof(RecordHeader, size), &size, sizeof size);
  }
  static void append(std::vector<std::byte>& out, RecordTag tag, const void* row, std::uint32_t size) {
    std::byte header[sizeof(RecordHeader)];
    write_header(header, tag, size);
    out.insert(out.end(), header, header + sizeof header);
    const auto* rp = static_cast<const std::byte*>(row);
    out.insert(out.end(), rp, rp + size);
  }

 private:
  LpId self_;
  std::span<const std::byte> records_;
  double handler_wall_us_;
};

// Handed to on_finish, after the last commit.
class FinishContext {
 public:
  FinishContext(LpId self, Time end_time) : self_(self), end_time_(end_time) {}
  LpId self() const noexcept { return self_; }
  Time end_time() const noexcept { return end_time_; }

 private:
  LpId self_;
  Time end_time_;
};

template <class L>
concept LogicalProcess = std::copyable<L> && std::equality_comparable<L> &&
    requires(L& lp, const Event& ev, EventContext& ctx) {
  lp.on_event(ev, ctx);
};

// How an LP type saves state for rollback.
//   checkpoint_interval = 1: copy the state before every event (small states; the default);
//   checkpoint_interval = k > 1: copy it before every k-th event and, on rollback, restore the
//   last copy and re-execute ("coast forward") the events since, with their sends suppressed.
//   While such an LP is not rolled back the interval doubles at each copy, up to 16 k; a
//   rollback sets it back to k (a large state that is never rolled back is copied seldom, one
//   that is pays for short coasts).
//   reverse = true: no copies; a rollback calls the type's on_reverse (see the top), which the
//   type must define.
struct LpTypeOptions {
  std::string name;
  std::uint32_t checkpoint_interval = 1;
  bool reverse = false;
  bool timed = false;  // measure each handler's wall-clock time (CommitContext::handler_wall_us)
};

}  // namespace tracewarp
