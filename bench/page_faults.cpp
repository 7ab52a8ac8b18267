// bench/page_faults.cpp — what this machine charges for memory a process touches for the first time, the cost
// behind a first inference (docs/deployment.md): fresh anonymous memory on 4 KiB pages and on transparent huge
// pages, the same memory written again, and a file already in the page cache mapped and read. Not a test.
//
//   page_faults [--mib 64] [--runs 3]
// Every run writes regions of its own, and none is freed before the end, so no run reuses pages another freed.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_util.h"

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// A fresh anonymous region of `bytes` starting on a huge-page boundary, asking for huge pages or refusing them.
char* fresh_region(size_t bytes, bool huge) {
  void* p = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  TL_CHECK(p != MAP_FAILED, "page_faults: mmap of ", bytes, " bytes failed");
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1));
  madvise(aligned, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return aligned;
}

template <typename F>
double ms_of(const F& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return tl::bench::milliseconds_since(t0);
}

void report(const char* what, size_t bytes, std::vector<double> ms) {
  const tl::bench::Timing t = tl::bench::summarize(std::move(ms));
  std::printf("  %-52s %9.1f %9.1f %9.1f %9.2f\n", what, t.median_ms, t.min_ms, t.max_ms, bytes / t.median_ms / 1e6);
}

}  // namespace

int main(int argc, char** argv) try {
  int mib = 64, runs = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    TL_CHECK(i + 1 < argc && (a == "--mib" || a == "--runs"), "usage: page_faults [--mib N] [--runs N], got ", a);
    (a == "--mib" ? mib : runs) = tl::bench::parse_number(a, argv[++i], 1);
  }
  const size_t bytes = static_cast<size_t>(mib) << 20;
  std::printf("page_faults: %d MiB per region, %d runs (ms: median, min, max; GB/s at the median)\n", mib, runs);
  std::printf("  %-52s %9s %9s %9s %9s\n", "", "median", "min", "max", "GB/s");
  std::vector<double> small_first, small_again, huge_first, huge_again, mapped;
  // A file per run, written (so in the page cache) before any run: each run maps a file for the first time.
  std::vector<std::string> paths;
  {
    const std::vector<char> data(bytes, 1);
    for (int r = 0; r < runs; ++r) {
      paths.push_back("page_faults." + std::to_string(getpid()) + "." + std::to_string(r) + ".tmp");
      FILE* f = std::fopen(paths.back().c_str(), "wb");
      const bool written = f && std::fwrite(data.data(), 1, bytes, f) == bytes;
      TL_CHECK(f && std::fclose(f) == 0 && written, "page_faults: cannot write ", paths.back());
    }
  }
  for (int r = 0; r < runs; ++r) {
    const std::string& path = paths[static_cast<size_t>(r)];
    char* small = fresh_region(bytes, false);
    small_first.push_back(ms_of([&] { std::memset(small, 1, bytes); }));
    small_again.push_back(ms_of([&] { std::memset(small, 2, bytes); }));
    char* huge = fresh_region(bytes, true);
    huge_first.push_back(ms_of([&] { std::memset(huge, 1, bytes); }));
    huge_again.push_back(ms_of([&] { std::memset(huge, 2, bytes); }));
    const int fd = open(path.c_str(), O_RDONLY);
    TL_CHECK(fd >= 0, "page_faults: cannot open ", path);
    volatile char sink = 0;
    mapped.push_back(ms_of([&] {
      const char* p = static_cast<const char*>(mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0));
      TL_CHECK(p != MAP_FAILED, "page_faults: mmap of ", path, " failed");
      for (size_t i = 0; i < bytes; i += 4096) sink = sink + p[i];
    }));
    close(fd);
  }
  for (const std::string& path : paths) std::remove(path.c_str());
  report("fresh memory, 4 KiB pages, first write", bytes, small_first);
  report("the same memory written again", bytes, small_again);
  report("fresh memory, transparent huge pages, first write", bytes, huge_first);
  report("the same memory written again", bytes, huge_again);
  report("a file in the page cache, first mmap (MAP_POPULATE) + read", bytes, mapped);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "page_faults: %s\n", e.what());
  return 1;
}
