// An independent implementation of the replication study's WQR scenario on SimGrid (S4U actors),
// to cross-check tracewarp's replication model copy by copy (tests/validation/simgrid_wqr.py runs
// both and compares them).
//
// What it shares with tracewarp: the inputs only. Each host's peak class and walk variance are the
// first draws of RandomStream(seed, host), as model/replication/internal.hpp draws them, and the
// walk's values come from Availability (model/replication/resources.hpp), read one 10-s step at a
// time. What is SimGrid's: integrating each copy's work over its host's changing speed (a speed
// profile, one value per step, fed lazily). What is this file's own: the WQR server (a queue of
// 1/rate-s services; originals in id order, then a replica of the running task with the fewest
// running copies, at most 1 + max_replicas; a result, each cancellation and each assignment one
// service), the hosts' protocol, and the network's delays.
//
// Where SimGrid cannot say what tracewarp's model says, and what this program does instead:
//  * A speed of exactly 0 (the walk clamps y at 0): a profile value of 0 is not a speed SimGrid
//    integrates over, so such a step gets a scale of 1e-15. It then delivers at most
//    1,600 MFLOPS x 1e-15 x 10 s = 1.6e-5 flop, which moves a copy's end by less than 1 ns while
//    the next nonzero speed is above 16 kflop/s (0.001% of the slowest peak).
//  * The network: tracewarp's transit-stub network has no contention (a message's delay depends
//    only on its size and its end points); SimGrid's flow models share links. The delays are
//    computed here by the same rule (2 hops within a domain, 3 and half the extra round trip
//    between domains, size over the 100-Mbit/s stub link) and messages go through in-memory
//    inboxes, each handled at its arrival time.
//  * Instants: tracewarp counts time in nanoseconds and ends a copy at the first nanosecond by
//    which its work is done; this program rounds SimGrid's end up to the nanosecond likewise.
//    Messages that arrive at the same nanosecond are handled in tracewarp's documented order
//    (kind, sender, the sender's count of messages sent), the kinds numbered as its model numbers
//    them.
//
//   simgrid_wqr HOSTS TASKS GRAIN SEED  > copies.csv   (task,host,replica,start_ns,end_ns,finished)
#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <numbers>
#include <queue>
#include <string>
#include <vector>

#include "tracewarp/core/random.hpp"
#include "tracewarp/model/replication/resources.hpp"

namespace sg4 = simgrid::s4u;
using Ns = std::int64_t;

namespace {

// The scenario: the replication model's defaults (docs/configuration.md, replication.*).
struct Scenario {
  std::uint32_t hosts = 300;
  std::uint64_t tasks = 3000;
  double grain = 1e10;
  std::uint64_t seed = 1;
  std::uint32_t max_copies = 5;  // the original and 4 replicas
  Ns service = 20'000'000;       // 1 / 50 events per second
  Ns step = 10'000'000'000;      // the walk's step
  double walk_start = 50;
  double omega_var = 1;
  std::uint32_t domain_size = 50;
  std::uint32_t server_domain = 0;
  double stub_bps = 100e6;
  Ns hop = 1'000'000;
  Ns inter_domain_rtt = 10'000'000;
  double input_bytes = 100e3;
  double message_bytes = 16;
};
Scenario scenario;

Ns now_ns() { return std::llround(sg4::Engine::get_clock() * 1e9); }

// Delay between a stub of domain a and one of domain b (the server is a stub of server_domain).
Ns delay(std::uint64_t domain_a, std::uint64_t domain_b, double bytes) {
  const bool same = domain_a == domain_b;
  return (same ? 2 : 3) * scenario.hop + (same ? 0 : scenario.inter_domain_rtt / 2) +
         std::llround(bytes * 8 / scenario.stub_bps * 1e9);
}
Ns host_server_delay(std::uint32_t host, double bytes) {
  return delay(host / scenario.domain_size, scenario.server_domain, bytes);
}

enum Kind : int { kCopyEnd = 1, kCancel = 2, kAssign = 4, kNoWork = 5, kRequest = 11, kResult = 12 };
constexpr std::uint64_t kServer = 0;  // senders as tracewarp numbers its LPs: the server, then host h as h + 1
std::uint64_t sender_of(std::uint32_t host) { return host + 1ull; }

struct Message {
  Ns arrival;
  int kind;
  std::uint64_t sender;
  std::uint64_t seq;
  std::uint64_t task = 0;
  std::uint64_t value = 0;  // kAssign: 1 for a replica; kCopyEnd: the copy's token; kResult: the host
  bool operator>(const Message& o) const {
    return std::tie(arrival, kind, sender, seq) > std::tie(o.arrival, o.kind, o.sender, o.seq);
  }
};

// An actor's messages, handled in (arrival, kind, sender, seq) order, each at its arrival time.
// Every message is sent at least two hops before it arrives (copy ends: a nanosecond), so when
// the clock reaches an arrival every message due by then is here.
class Inbox {
 public:
  void put(const Message& m) {
    std::unique_lock lock(*mutex_);
    queue_.push(m);
    cv_->notify_all();
  }
  Message take() {
    std::unique_lock lock(*mutex_);
    for (;;) {
      if (queue_.empty()) {
        cv_->wait(lock);
        continue;
      }
      const Ns due = queue_.top().arrival;
      if (due <= now_ns()) {
        Message m = queue_.top();
        queue_.pop();
        return m;
      }
      cv_->wait_until(lock, static_cast<double>(due) / 1e9);
    }
  }

 private:
  sg4::MutexPtr mutex_ = sg4::Mutex::create();
  sg4::ConditionVariablePtr cv_ = sg4::ConditionVariable::create();
  std::priority_queue<Message, std::vector<Message>, std::greater<>> queue_;
};

std::vector<std::unique_ptr<Inbox>> host_inbox;
Inbox server_inbox;
std::vector<std::uint64_t> sent;  // per sender: messages sent so far

void send(Inbox& to, Ns arrival, int kind, std::uint64_t sender, std::uint64_t task, std::uint64_t value) {
  to.put({arrival, kind, sender, sent[sender]++, task, value});
}

struct CopyRecord {
  std::uint64_t task;
  std::uint32_t host;
  bool replica;
  Ns start;
  Ns end;
  bool finished;
};
std::vector<CopyRecord> records;
std::vector<std::int64_t> zero_steps;  // steps of any host at speed 0 that SimGrid was given

// ---- the server ----------------------------------------------------------------------------

class Server {
 public:
  void operator()() {
    for (std::uint32_t told = 0; told < scenario.hosts;) {
      const Message m = server_inbox.take();
      const Ns now = m.arrival;
      const auto host = static_cast<std::uint32_t>(m.kind == kRequest ? m.task : m.value);
      const Ns served = serve(now);  // the message's own event
      if (m.kind == kResult) {
        const auto it = running_.find(m.task);
        if (it != running_.end()) {  // the first result: every other copy is cancelled
          for (const std::uint32_t other : it->second.hosts)
            if (other != host)
              send(*host_inbox[other], serve(now) + host_server_delay(other, scenario.message_bytes), kCancel, kServer,
                   m.task, 0);
          running_.erase(it);
        }
        told += respond(host, serve(now));
      } else {
        told += respond(host, served);
      }
    }
  }

 private:
  struct Running {
    std::vector<std::uint32_t> hosts;  // every copy started, in order
  };
  Ns serve(Ns now) {
    busy_until_ = std::max(now, busy_until_) + scenario.service;
    return busy_until_;
  }
  // The host's next work, leaving when the service ending at `end` does; 1 if it was told none.
  std::uint32_t respond(std::uint32_t host, Ns end) {
    std::uint64_t task = 0;
    bool replica = false;
    if (next_ < scenario.tasks) {
      task = next_++;
    } else {
      // The running task with the fewest copies (the lowest id among equals), if below the cap.
      std::size_t fewest = scenario.max_copies;
      for (const auto& [id, r] : running_)
        if (r.hosts.size() < fewest) fewest = r.hosts.size(), task = id, replica = true;
      if (!replica) {
        send(*host_inbox[host], end + host_server_delay(host, scenario.message_bytes), kNoWork, kServer, 0, 0);
        return 1;
      }
    }
    running_[task].hosts.push_back(host);
    send(*host_inbox[host], end + host_server_delay(host, scenario.input_bytes), kAssign, kServer, task, replica);
    return 0;
  }

  Ns busy_until_ = 0;
  std::uint64_t next_ = 0;
  std::map<std::uint64_t, Running> running_;
};

// ---- a host --------------------------------------------------------------------------------

class Host {
 public:
  explicit Host(std::uint32_t id) : id_(id) {}

  void operator()() {
    send(server_inbox, now_ns() + host_server_delay(id_, scenario.message_bytes), kRequest, sender_of(id_), id_, 0);
    for (;;) {
      const Message m = host_inbox[id_]->take();
      switch (m.kind) {
        case kAssign:
          start(m.task, m.value != 0, m.arrival);
          break;
        case kCopyEnd:
          if (active_ && m.value == token_) {
            stop(m.arrival, true);
            send(server_inbox, m.arrival + host_server_delay(id_, scenario.message_bytes), kResult, sender_of(id_),
                 task_, id_);
          }
          break;
        case kCancel:
          if (active_ && m.task == task_) {
            exec_->cancel();
            stop(m.arrival, false);
            send(server_inbox, m.arrival + host_server_delay(id_, scenario.message_bytes), kRequest, sender_of(id_),
                 id_, 0);
          }
          break;
        default:  // kNoWork: this host never asks again
          break;
      }
    }
  }

 private:
  void start(std::uint64_t task, bool replica, Ns now) {
    active_ = true;
    replica_ = replica;
    task_ = task;
    start_ = now;
    const std::uint64_t token = ++token_;
    exec_ = sg4::this_actor::exec_init(scenario.grain)->start();
    // A watcher reports the end (rounded up to the nanosecond) unless the copy is cancelled first.
    sg4::Actor::create("end", sg4::this_actor::get_host(), [exec = exec_, id = id_, token] {
      try {
        exec->wait();
      } catch (const simgrid::CancelException&) {
        return;
      }
      const Ns end = static_cast<Ns>(std::ceil(sg4::Engine::get_clock() * 1e9 - 1e-3));
      send(*host_inbox[id], end, kCopyEnd, sender_of(id), 0, token);
    })->daemonize();
  }
  void stop(Ns now, bool finished) {
    records.push_back({task_, id_, replica_, start_, now, finished});
    active_ = false;
  }

  std::uint32_t id_;
  bool active_ = false;
  bool replica_ = false;
  std::uint64_t task_ = 0;
  Ns start_ = 0;
  std::uint64_t token_ = 0;
  sg4::ExecPtr exec_;
};

// The host's walk as a speed profile, one value per step, drawn as SimGrid asks for more.
simgrid::kernel::profile::Profile* walk_profile(std::uint32_t host, double peak, double upsilon_var,
                                                const tracewarp::replication::WalkParams* walk) {
  auto avail = std::make_shared<tracewarp::replication::Availability>(walk, host, peak, upsilon_var);
  auto step = std::make_shared<std::int64_t>(0);
  const double step_s = static_cast<double>(scenario.step) / 1e9;
  return simgrid::kernel::profile::ProfileBuilder::from_callback(
      "walk-" + std::to_string(host),
      [avail, step, peak, step_s](std::vector<simgrid::kernel::profile::DatedValue>& values) {
        for (int i = 0; i < 64; ++i, ++*step) {
          const double scale = avail->speed_at(*step * scenario.step) / peak;
          if (scale == 0) zero_steps.push_back(*step);
          // Dates are the delays since the previous value.
          values.emplace_back(*step == 0 ? 0.0 : step_s, scale > 0 ? scale : 1e-15);
        }
      },
      -1);
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s HOSTS TASKS GRAIN SEED\n", argv[0]);
    return 2;
  }
  scenario.hosts = static_cast<std::uint32_t>(std::stoul(argv[1]));
  scenario.tasks = std::stoull(argv[2]);
  scenario.grain = std::stod(argv[3]);
  scenario.seed = std::stoull(argv[4]);
  const tracewarp::replication::WalkParams walk{scenario.step, scenario.walk_start, scenario.omega_var, scenario.seed};

  auto* zone = sg4::create_full_zone("world");
  sg4::Host* server_host = zone->create_host("server", 1e9)->seal();
  std::vector<sg4::Host*> hosts;
  for (std::uint32_t h = 0; h < scenario.hosts; ++h) {
    // The host's traits as tracewarp draws them: its peak class, then its walk variance.
    tracewarp::RandomStream rng(scenario.seed, h);
    const double peak = std::vector<double>{100, 200, 400, 800, 1600}[rng.below(5)] * 1e6;
    const double upsilon_var = std::numbers::pi * std::numbers::pi / static_cast<double>(1 + rng.below(6));
    sg4::Host* host = zone->create_host("host-" + std::to_string(h), peak);
    host->set_speed_profile(walk_profile(h, peak, upsilon_var, &walk));
    hosts.push_back(host->seal());
    host_inbox.push_back(std::make_unique<Inbox>());
  }
  zone->seal();
  sent.assign(scenario.hosts + 1, 0);

  sg4::Actor::create("server", server_host, Server{});
  for (std::uint32_t h = 0; h < scenario.hosts; ++h)
    sg4::Actor::create("host-" + std::to_string(h), hosts[h], Host{h})->daemonize();
  engine.run();

  std::sort(records.begin(), records.end(), [](const CopyRecord& a, const CopyRecord& b) {
    return std::tie(a.task, a.start, a.host) < std::tie(b.task, b.start, b.host);
  });
  // How many of the speed-0 steps fell within the run (reported on stderr, for the test).
  Ns last_end = 0;
  for (const CopyRecord& c : records) last_end = std::max(last_end, c.end);
  const auto within =
      std::count_if(zero_steps.begin(), zero_steps.end(), [&](std::int64_t n) { return n * scenario.step < last_end; });
  std::fprintf(stderr, "simgrid_wqr: %zu copies, makespan %.9f s, %td host-steps at speed 0 within it\n",
               records.size(), static_cast<double>(last_end) / 1e9, within);
  std::printf("task,host,replica,start_ns,end_ns,finished\n");
  for (const CopyRecord& c : records)
    std::printf("%llu,%u,%d,%lld,%lld,%d\n", static_cast<unsigned long long>(c.task), c.host, c.replica,
                static_cast<long long>(c.start), static_cast<long long>(c.end), c.finished);
  return 0;
}
