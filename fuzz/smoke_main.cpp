// A libFuzzer-free driver, so that every fuzz target also runs in the ordinary (gcc) test suite:
// each seed of the corpus, then a fixed number of deterministic mutations of them (bit flips,
// byte insertions and deletions, chunk copies, and tokens that break parsers). The long runs
// use libFuzzer itself (scripts/fuzz.sh).
//   fuzz_<target> CORPUS_DIR ITERATIONS
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

const std::vector<std::string> kTokens = {"-1",
                                          "0",
                                          "1e308",
                                          "-1e308",
                                          "nan",
                                          "inf",
                                          "9223372036854775807",
                                          "18446744073709551616",
                                          ",",
                                          ";",
                                          "\n",
                                          "\r\n",
                                          "\t",
                                          " ",
                                          "\"",
                                          "=",
                                          "[",
                                          "]",
                                          "{",
                                          "}",
                                          "[sweep]",
                                          "'",
                                          std::string(1, '\0'),
                                          "\xff\xfe"};

std::string mutate(std::string s, std::mt19937_64& rng) {
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 5) {
      case 0:
        if (!s.empty()) s[at % s.size()] = static_cast<char>(s[at % s.size()] ^ (1 << (rng() % 8)));
        break;
      case 1:
        s.insert(at, 1, static_cast<char>(rng() % 256));
        break;
      case 2:
        if (!s.empty()) s.erase(at % s.size(), 1 + rng() % std::min<std::size_t>(s.size() - at % s.size(), 16));
        break;
      case 3:
        if (!s.empty()) {
          const std::size_t from = rng() % s.size(), len = 1 + rng() % std::min<std::size_t>(s.size() - from, 64);
          s.insert(at, s.substr(from, len));
        }
        break;
      default:
        s.insert(at, kTokens[rng() % kTokens.size()]);
    }
  }
  return s.size() > 65536 ? s.substr(0, 65536) : s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR ITERATIONS\n", argv[0]);
    return 2;
  }
  std::vector<std::string> seeds;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    seeds.push_back(bytes.str());
  }
  std::sort(seeds.begin(), seeds.end());  // directory order is not fixed; the run must be
  if (seeds.empty()) seeds.emplace_back();
  const auto run = [](const std::string& s) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  for (const std::string& s : seeds) run(s);
  std::mt19937_64 rng(20261123);
  const long iterations = std::atol(argv[2]);
  for (long i = 0; i < iterations; ++i) run(mutate(seeds[rng() % seeds.size()], rng));
  std::printf("%zu seeds and %ld mutations: no crash, every rejection an exit-2 error\n", seeds.size(), iterations);
  return 0;
}
