#include "tracewarp/traces/line_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tracewarp/core/error.hpp"

namespace tracewarp::traces {

namespace {
constexpr std::size_t kBufferBytes = 1 << 18;
constexpr std::size_t kMaxLineBytes = 1 << 24;  // a "line" longer than 16 MiB is not text
}  // namespace

namespace {
bool ends_with_gz(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

// zlib would read a plain file named .gz as it is; a name that promises gzip must keep it.
void check_gzip_magic(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw InputError("cannot open '" + path + "': " + std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  const std::size_t n = std::fread(magic, 1, 2, f);
  std::fclose(f);
  if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) return;
  throw InputError(path + ": not gzip data (its name ends in .gz but it does not start with gzip's signature " +
                   "1f 8b); decompress it properly or rename it without .gz if it is plain text");
}
}  // namespace

LineReader::LineReader(std::string path) : path_(std::move(path)) {
  const bool compressed = ends_with_gz(path_);
  if (compressed) check_gzip_magic(path_);
  // Small plain files (configurations, tests, fuzz inputs) get small buffers: allocating the
  // large ones dominated reading them.
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path_, ec);
  const std::size_t bytes = compressed || ec ? kBufferBytes : std::clamp<std::size_t>(size + 1, 4096, kBufferBytes);
  buffer_.resize(bytes);
  gzFile f = gzopen(path_.c_str(), "rb");
  if (f == nullptr) throw InputError("cannot open '" + path_ + "': " + std::strerror(errno));
  gzbuffer(f, static_cast<unsigned>(std::min<std::size_t>(bytes, 1 << 17)));
  file_ = f;
}

LineReader::~LineReader() {
  if (file_ != nullptr) gzclose(static_cast<gzFile>(file_));
}

bool LineReader::refill() {
  if (eof_) return false;
  const int n = gzread(static_cast<gzFile>(file_), buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (n < 0) {
    int code = 0;
    const char* message = gzerror(static_cast<gzFile>(file_), &code);
    throw InputError(path_ + ":" + std::to_string(line_number_ + 1) + ": cannot decompress: " + message);
  }
  if (n == 0) {
    int code = Z_OK;
    gzerror(static_cast<gzFile>(file_), &code);
    if (code == Z_BUF_ERROR)  // the input ended inside a compressed stream
      throw InputError(path_ + ":" + std::to_string(line_number_ + 1) + ": gzip data ends early (truncated file)");
    eof_ = true;
    return false;
  }
  begin_ = 0;
  end_ = static_cast<std::size_t>(n);
  bytes_read_ += end_;
  return true;
}

bool LineReader::next(std::string_view& line) {
  carry_.clear();
  for (;;) {
    if (begin_ == end_ && !refill()) {
      if (carry_.empty()) return false;
      ++line_number_;
      line = carry_;
      return true;
    }
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl != nullptr) {
      const std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
      begin_ += len + 1;
      ++line_number_;
      if (carry_.empty()) {
        line = std::string_view(start, len);
      } else {
        carry_.append(start, len);
        line = carry_;
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      return true;
    }
    carry_.append(start, end_ - begin_);
    begin_ = end_;
    if (carry_.size() > kMaxLineBytes)
      throw InputError(path_ + ":" + std::to_string(line_number_ + 1) +
                       ": line longer than 16 MiB (not a text trace?)");
  }
}

}  // namespace tracewarp::traces
