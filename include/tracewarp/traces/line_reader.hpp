// Streams the lines of a text file, plain or gzip-compressed (zlib detects which), in constant
// memory. Lines are returned without their end-of-line characters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tracewarp::traces {

class LineReader {
 public:
  explicit LineReader(std::string path);  // throws InputError if the file cannot be opened
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, valid until the next call; false at the end of the file.
  bool next(std::string_view& line);
  long line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  std::uint64_t bytes_read() const { return bytes_read_; }  // uncompressed

 private:
  bool refill();

  std::string path_;
  void* file_ = nullptr;  // gzFile
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  long line_number_ = 0;
  std::uint64_t bytes_read_ = 0;
  std::string carry_;  // a line longer than the buffer
};

}  // namespace tracewarp::traces
