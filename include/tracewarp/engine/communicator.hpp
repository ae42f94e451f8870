// A group of ranks that run one simulation together. It hides MPI from everything above the
// engine: models and I/O code take a Communicator and never include <mpi.h>.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace boost::mpi {
class communicator;
}

namespace tracewarp {

class Communicator {
 public:
  // MPI_COMM_WORLD and MPI_COMM_SELF; MPI must have been initialised (see MpiSession).
  static Communicator world();
  static Communicator self();

  int rank() const;
  int size() const;
  // Ranks with the same colour form a new communicator, ordered by key.
  Communicator split(int colour, int key) const;
  // Ranks of this communicator that share this node's memory.
  int ranks_on_node() const;

  void barrier() const;
  // Element-wise sums / maxima over all ranks, in place.
  void sum(std::span<std::uint64_t> values) const;
  void max(std::span<std::uint64_t> values) const;
  double max(double value) const;
  // `value` of `root`, on every rank. The others wait for it without keeping a core busy: they
  // test, then sleep a while that grows to a millisecond. A blocking MPI wait spins, and ranks
  // wait seconds while the root writes results with a thread on every core.
  std::uint64_t broadcast_waiting_idle(std::uint64_t value, int root = 0) const;
  // Gathers `mine` from every rank, concatenated in rank order, on every rank.
  std::vector<std::uint64_t> all_gather(std::span<const std::uint64_t> mine) const;
  // Every rank's elements of `element_bytes` bytes each, concatenated in rank order, into `all`
  // on `root`, which must hold exactly all ranks' elements (it is not used elsewhere). Counts go
  // by elements, not bytes, so that tables beyond 2 GiB can be gathered.
  void gather(std::span<const std::byte> mine, std::span<std::byte> all, std::size_t element_bytes, int root = 0) const;
  // Byte messages between two ranks (blocking; matched by tag in order).
  void send(int dest, int tag, const std::vector<std::byte>& bytes) const;
  std::vector<std::byte> receive(int source, int tag) const;

  // The same ranks as a Boost.MPI communicator (attached, not duplicated), for control-plane
  // code that exchanges serialisable objects; include <boost/mpi/communicator.hpp> to use it.
  // The engine's own event traffic stays on plain MPI (engine/transport).
  boost::mpi::communicator as_boost() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }
  explicit Communicator(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<Impl> impl_;
};

// Initialises MPI (thread level SINGLE: only the main thread calls MPI) for the life of the
// object, and finalises it after; it is a no-op if MPI is already initialised.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  // Ends every rank now with the given exit code (for errors that only one rank saw).
  [[noreturn]] static void abort(int exit_code);

 private:
  void use_private_session_dir();
  bool owns_ = false;
  std::string private_session_dir_;  // made for a singleton, removed at the end
};

}  // namespace tracewarp
