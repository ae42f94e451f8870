#include "tracewarp/engine/communicator.hpp"

#include <boost/mpi/communicator.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <system_error>
#include <thread>

#include "communicator_impl.hpp"
#include "tracewarp/core/error.hpp"

namespace tracewarp {
namespace {

constexpr std::size_t kMostMpiCount = static_cast<std::size_t>(std::numeric_limits<int>::max());

std::shared_ptr<Communicator::Impl> wrap(MPI_Comm comm, bool owned) {
  auto impl = std::make_shared<Communicator::Impl>();
  impl->comm = comm;
  impl->owned = owned;
  return impl;
}

}  // namespace

Communicator Communicator::world() { return Communicator(wrap(MPI_COMM_WORLD, false)); }
Communicator Communicator::self() { return Communicator(wrap(MPI_COMM_SELF, false)); }

boost::mpi::communicator Communicator::as_boost() const {
  return boost::mpi::communicator(impl_->comm, boost::mpi::comm_attach);
}

int Communicator::rank() const {
  int r = 0;
  MPI_Comm_rank(impl_->comm, &r);
  return r;
}

int Communicator::size() const {
  int s = 1;
  MPI_Comm_size(impl_->comm, &s);
  return s;
}

Communicator Communicator::split(int colour, int key) const {
  MPI_Comm out;
  MPI_Comm_split(impl_->comm, colour, key, &out);
  return Communicator(wrap(out, true));
}

int Communicator::ranks_on_node() const {
  MPI_Comm node;
  MPI_Comm_split_type(impl_->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 1;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

void Communicator::barrier() const { MPI_Barrier(impl_->comm); }

void Communicator::sum(std::span<std::uint64_t> values) const {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM, impl_->comm);
}

void Communicator::max(std::span<std::uint64_t> values) const {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_MAX, impl_->comm);
}

double Communicator::max(double value) const {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, impl_->comm);
  return value;
}

std::uint64_t Communicator::broadcast_waiting_idle(std::uint64_t value, int root) const {
  MPI_Request request;
  MPI_Ibcast(&value, 1, MPI_UINT64_T, root, impl_->comm, &request);
  std::chrono::microseconds pause{20};
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return value;
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(2 * pause, std::chrono::milliseconds(1));
  }
}

std::vector<std::uint64_t> Communicator::all_gather(std::span<const std::uint64_t> mine) const {
  std::vector<std::uint64_t> all(mine.size() * static_cast<std::size_t>(size()));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, all.data(), static_cast<int>(mine.size()),
                MPI_UINT64_T, impl_->comm);
  return all;
}

void Communicator::gather(std::span<const std::byte> mine, std::span<std::byte> all, std::size_t element_bytes,
                          int root) const {
  const auto elements = [&](std::size_t bytes, const char* what) {
    if (element_bytes == 0 || element_bytes > kMostMpiCount || bytes % element_bytes != 0 ||
        bytes / element_bytes > kMostMpiCount)
      throw InvariantError(std::string("gather: ") + what + " is not a count of elements MPI can send");
    return static_cast<int>(bytes / element_bytes);
  };
  const int count = elements(mine.size(), "a rank's part");
  const bool here = rank() == root;
  std::vector<int> counts(here ? static_cast<std::size_t>(size()) : 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, impl_->comm);
  std::vector<int> offsets(counts.size(), 0);
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(counts[r]);
    if (total > kMostMpiCount) throw InvariantError("gather: more elements than MPI can count");
  }
  if (here && total * element_bytes != all.size())
    throw InvariantError("gather: room for " + std::to_string(all.size()) + " bytes, " +
                         std::to_string(total * element_bytes) + " arrive");
  MPI_Datatype element;
  MPI_Type_contiguous(static_cast<int>(element_bytes), MPI_BYTE, &element);
  MPI_Type_commit(&element);
  MPI_Gatherv(mine.data(), count, element, all.data(), counts.data(), offsets.data(), element, root, impl_->comm);
  MPI_Type_free(&element);
}

void Communicator::send(int dest, int tag, const std::vector<std::byte>& bytes) const {
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, dest, tag, impl_->comm);
}

std::vector<std::byte> Communicator::receive(int source, int tag) const {
  MPI_Status status;
  MPI_Probe(source, tag, impl_->comm, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<std::byte> bytes(static_cast<std::size_t>(count));
  MPI_Recv(bytes.data(), count, MPI_BYTE, source, tag, impl_->comm, MPI_STATUS_IGNORE);
  return bytes;
}

namespace {

// Whether mpirun or srun started this process: they set these in every rank's environment.
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

// "tracewarp-mpi-<host>-": the host, because a /tmp shared between machines or containers
// holds directories whose process ids mean nothing here.
std::string session_dir_prefix() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string("tracewarp-mpi-") + host + "-";
}

// Session directories of this user's singletons on this host whose process no longer exists.
void remove_dead_session_dirs(const std::filesystem::path& tmp, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(tmp, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    struct stat info {};
    if (::lstat(entry.path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::getuid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to ask
    std::error_code ignored;
    std::filesystem::remove_all(entry.path(), ignored);
  }
}

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  // A plain `tracewarp run` is an MPI singleton: Open MPI would start a helper daemon and probe
  // the network transports for it, 0.35 s of every run on a laptop against 0.03 s without
  // (docs/performance-history.md). Unless the user set them, one process needs neither.
  if (!launched_by_mpi()) {
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    setenv("OMPI_MCA_pml", "ob1", 0);
    use_private_session_dir();
  }
  // Only the main thread ever calls MPI; the other threads (TBB workers in handlers and in the
  // results writer, the journal's writer) never do. Open MPI 4 takes its internal locks at every
  // level above SINGLE, FUNNELED included: they were 13.8% of a 2-rank optimistic run's samples,
  // and asking for SINGLE made that run faster (docs/performance-history.md). MPICH makes no
  // difference between the two levels.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  owns_ = true;
}

MpiSession::~MpiSession() {
  if (owns_) MPI_Finalize();
  std::error_code ignored;
  if (!private_session_dir_.empty()) std::filesystem::remove_all(private_session_dir_, ignored);
}

// Open MPI singletons all use one session directory (<tmp>/ompi.<host>.<uid>/jf.0), and one that
// ends removes it while another may be creating it: two runs (or tests) started at the same
// moment could fail in MPI_Init. Each singleton gets a directory of its own, named after its
// host and process, unless the user chose where they go; those of processes that died without
// removing theirs (killed runs) are removed by the next one.
void MpiSession::use_private_session_dir() {
  if (std::getenv("OMPI_MCA_orte_tmpdir_base") != nullptr) return;
  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) return;  // Open MPI's own default then
  const std::string prefix = session_dir_prefix();
  remove_dead_session_dirs(tmp, prefix);
  const std::filesystem::path dir = tmp / (prefix + std::to_string(::getpid()));
  std::filesystem::remove_all(dir, ec);  // a dead process's, whose pid this one now has
  if (!std::filesystem::create_directory(dir, ec) || ec) return;
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  private_session_dir_ = dir.string();
  setenv("OMPI_MCA_orte_tmpdir_base", private_session_dir_.c_str(), 1);
}

void MpiSession::abort(int exit_code) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

}  // namespace tracewarp
