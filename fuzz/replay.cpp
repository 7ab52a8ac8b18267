// fuzz/replay.cpp — runs saved inputs through a fuzz target once each, without libFuzzer, so every
// build's test suite replays fuzz/corpus/. Files named ok-* must parse and bad-* must be rejected.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/targets.h"

namespace {

namespace fs = std::filesystem;

std::vector<std::byte> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::vector<char> chars{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::byte> bytes(chars.size());
  std::transform(chars.begin(), chars.end(), bytes.begin(), [](char c) { return static_cast<std::byte>(c); });
  return bytes;
}

// The files to replay: each argument is a file, or a directory whose regular files are all taken.
std::vector<fs::path> inputs(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    if (!fs::is_directory(argv[i])) {
      files.emplace_back(argv[i]);
      continue;
    }
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(argv[i]))
      if (entry.is_regular_file()) found.push_back(entry.path());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  const tl::fuzz::Target target = argc > 1 ? tl::fuzz::find_target(argv[1]) : nullptr;
  if (target == nullptr) {
    std::fprintf(stderr, "usage: %s safetensors|state_dict|trace FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  const std::vector<fs::path> files = inputs(argc, argv);
  int parsed = 0, rejected = 0, wrong = 0;
  for (const fs::path& file : files) {
    if (!fs::exists(file)) {
      std::fprintf(stderr, "%s: no such file\n", file.c_str());
      ++wrong;
      continue;
    }
    const bool ok = target(read_bytes(file));
    (ok ? parsed : rejected) += 1;
    const std::string name = file.filename().string();
    if ((name.starts_with("ok-") && !ok) || (name.starts_with("bad-") && ok)) {
      std::fprintf(stderr, "%s: expected to be %s, was %s\n", file.c_str(), ok ? "rejected" : "parsed",
                   ok ? "parsed" : "rejected");
      ++wrong;
    }
  }
  std::printf("%s: %zu inputs, %d parsed, %d rejected, %d unexpected\n", argv[1], files.size(), parsed, rejected,
              wrong);
  return files.empty() || wrong > 0 ? 1 : 0;
}
