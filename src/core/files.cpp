#include "tracewarp/core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
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
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw UsageError("cannot create the lock file '" + path + "': " + std::strerror(errno));
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

FileLock::FileLock(FileLock&& other) noexcept : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

FileLock::~FileLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still held: whoever opens the name next makes a new file
  ::close(fd_);
}

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open '" + path + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace tracewarp
