#include "tracewarp/core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "tracewarp/core/error.hpp"

namespace tracewarp {

void write_atomically(const std::string& path, std::string_view bytes) {
  write_atomically(path, std::span<const std::string_view>(&bytes, 1));
}

void write_atomically(const std::string& path, std::span<const std::string_view> parts) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  ::unlink(temporary.c_str());  // a stale one of a killed process with our pid (or a planted link)
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError("cannot create '" + temporary + "': " + std::strerror(errno));
  // A failed write (a full disk, say) removes its temporary: left behind, it would keep the disk
  // full and the next attempt would fail too.
  const auto fail = [&](const std::string& what) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    ::unlink(temporary.c_str());
    throw IoError("cannot " + what + " '" + path + "': " + why);
  };
  for (const std::string_view bytes : parts) {
    std::size_t written = 0;
    while (written < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("write");
      written += static_cast<std::size_t>(n);
    }
  }
  if (::fsync(fd) != 0) fail("sync");
  if (::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw IoError("cannot write '" + path + "': " + why);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw IoError("cannot move '" + temporary + "' to '" + path + "': " + why);
  }
}

std::optional<FileLock> FileLock::try_take(const std::string& path, std::string& holder) {
  for (;;) {
    // O_NOFOLLOW: a link planted at the lock's name (dangling or not) is refused, never created
    // through or written.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == ELOOP)
      throw UsageError("the lock file '" + path + "' is a symbolic link: tracewarp never follows one there; remove it");
    if (fd < 0) throw UsageError("cannot create the lock file '" + path + "': " + std::strerror(errno));
    struct stat own {};
    if (::fstat(fd, &own) != 0 || !S_ISREG(own.st_mode)) {
      ::close(fd);
      throw UsageError("the lock file '" + path + "' is not a regular file; remove it");
    }
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    if (::fcntl(fd, F_SETLK, &lock) != 0) {
      struct flock owner {};
      owner.l_type = F_WRLCK;
      owner.l_whence = SEEK_SET;
      holder = ::fcntl(fd, F_GETLK, &owner) == 0 && owner.l_type != F_UNLCK && owner.l_pid > 0
                   ? "process " + std::to_string(owner.l_pid)
                   : "another process";
      ::close(fd);
      return std::nullopt;
    }
    // The holder before us may have removed the file between our open and our lock: then the
    // lock is on a name nobody else will open again, and we try with the file now there.
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev)
      return FileLock(path, fd);
    ::close(fd);
  }
}

std::optional<std::string> FileLock::holder(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  std::optional<std::string> who;
  if (::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK)
    who = probe.l_pid > 0 ? "process " + std::to_string(probe.l_pid) : "another process";
  ::close(fd);
  return who;
}

FileLock::FileLock(FileLock&& other) noexcept : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

FileLock::~FileLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still held: whoever opens the name next makes a new file
  ::close(fd_);
}

void clear_for_own_file(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw UsageError("cannot use '" + path + "': " + std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode))
    throw UsageError("'" + path + "' is a symbolic link: tracewarp writes its own file there and never follows a " +
                     "link; remove it");
  if (!S_ISREG(st.st_mode))
    throw UsageError("'" + path + "' is not a regular file: tracewarp writes its own file there; remove it");
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw UsageError("cannot remove the old '" + path + "': " + std::strerror(errno));
}

std::uint32_t crc32_of(std::span<const std::string_view> parts) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  for (std::string_view part : parts)
    while (!part.empty()) {  // zlib takes a uInt length: feed large parts in pieces
      const auto n = static_cast<uInt>(std::min<std::size_t>(part.size(), 1u << 30));
      crc = ::crc32(crc, reinterpret_cast<const Bytef*>(part.data()), n);
      part.remove_prefix(n);
    }
  return static_cast<std::uint32_t>(crc);
}

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open '" + path + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace tracewarp
