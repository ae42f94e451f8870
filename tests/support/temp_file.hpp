// Files the tests write and read back: removed when the object goes out of scope.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace tracewarp::testing {

class TempFile {
 public:
  // A file with this content; with gzip = true, compressed (the name then ends in .gz).
  explicit TempFile(const std::string& content, const std::string& suffix = ".swf", bool gzip = false) {
    char name[] = "/tmp/tracewarp-test-XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) std::abort();
    close(fd);
    std::remove(name);
    path_ = std::string(name) + suffix + (gzip ? ".gz" : "");
    if (gzip) {
      gzFile f = gzopen(path_.c_str(), "wb");
      gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
      gzclose(f);
    } else {
      std::ofstream(path_) << content;
    }
  }
  // A path for a file the test will create.
  static TempFile empty_path(const std::string& suffix) {
    TempFile f("", suffix);
    std::remove(f.path_.c_str());
    return f;
  }
  ~TempFile() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  TempFile(TempFile&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tracewarp::testing
