// Small file helpers shared by everything that must survive a kill (journal, checkpoints).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tracewarp {

// Writes `bytes` to `path` so that a kill at any moment leaves the old file or the new one
// (temporary file, fsync, rename). IoError on failure.
void write_atomically(const std::string& path, std::string_view bytes);
// The same with the file's bytes given in parts, written one after the other (no joined copy).
void write_atomically(const std::string& path, std::span<const std::string_view> parts);

// An exclusive lock on a results file's name, held by the one run that writes it: a second run
// on the same output would destroy the first one's work. The lock is an fcntl lock on `path`
// (created if missing): the kernel drops it when its process dies, even by kill -9, and it works
// on the network file systems of clusters. The file is removed when the lock is released.
class FileLock {
 public:
  // The lock, or std::nullopt with `holder` saying who has it ("process 4242").
  static std::optional<FileLock> try_take(const std::string& path, std::string& holder);
  // Who holds the lock on `path` now ("process 4242"), without taking it or creating the file;
  // std::nullopt when nobody does.
  static std::optional<std::string> holder(const std::string& path);
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock();

 private:
  FileLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
};

// Makes room for a file of tracewarp's own at `path` (a results file's ".partial", a lock): an
// old regular file there is removed, so the new one is a new inode (a reader holding the old one
// open keeps it); a symbolic link, a folder or any other kind of file there is refused
// (UsageError naming it), never followed or overwritten.
void clear_for_own_file(const std::string& path);

// The whole file; InputError if it cannot be opened.
std::string read_whole_file(const std::string& path);

// CRC-32 (zlib's) over bytes given in parts: the checksum of every record a resumed run trusts
// (journal records, identity files); it catches every flipped bit and every burst of up to 32.
std::uint32_t crc32_of(std::span<const std::string_view> parts);
inline std::uint32_t crc32_of(std::string_view bytes) { return crc32_of(std::span<const std::string_view>(&bytes, 1)); }

// FNV-1a, 64 bits: a digest to recognise damaged or foreign data (not a cryptographic hash).
inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = 1469598103934665603ull) {
  for (const unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace tracewarp
