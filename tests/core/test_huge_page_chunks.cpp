// tests/core/test_huge_page_chunks.cpp — core/storage's sub-allocator of 64 KiB-2 MiB blocks on a source of
// chunks the test controls: first fit, no overlap, a chunk per need and back when empty, a failed map that
// changes nothing; then the real huge-page source under Storage.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "core/huge_page_chunks.h"
#include "core/storage.h"

namespace tl::detail {
namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kChunk = HugePageChunks::kChunkBytes;

// A chunk source counting its maps and unmaps, refusing while `fail` is set.
struct FakeSource {
  static inline int maps = 0, unmaps = 0;
  static inline bool fail = false;
  static void* map() {
    if (fail) return nullptr;
    ++maps;
    return std::aligned_alloc(static_cast<size_t>(kChunk), static_cast<size_t>(kChunk));
  }
  static void unmap(void* chunk) {
    ++unmaps;
    std::free(chunk);
  }
  FakeSource() { maps = unmaps = 0, fail = false; }
  ChunkSource source() const { return {map, unmap}; }
};

char* at(void* p) { return static_cast<char*>(p); }

TEST_CASE("huge page chunks: blocks are carved first fit from the oldest chunk, a new chunk when none fits") {
  FakeSource fake;
  HugePageChunks chunks(fake.source());
  void* a = chunks.allocate(64 * kKiB);
  REQUIRE(a != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(a) % kChunk == 0);
  void* b = chunks.allocate(128 * kKiB);
  CHECK(at(b) == at(a) + 64 * kKiB);
  chunks.release(a, 64 * kKiB);
  CHECK(chunks.allocate(32 * kKiB) == a);  // the lowest free run
  void* c = chunks.allocate(64 * kKiB);    // 32 KiB free before b does not hold it
  CHECK(at(c) == at(b) + 128 * kKiB);
  void* d = chunks.allocate(1024 * kKiB);
  CHECK(at(d) == at(c) + 64 * kKiB);
  CHECK(chunks.chunks() == 1);
  void* e = chunks.allocate(1024 * kKiB);  // 768 KiB left in the first chunk
  CHECK(reinterpret_cast<uintptr_t>(e) % kChunk == 0);
  CHECK(chunks.chunks() == 2);
  CHECK(FakeSource::maps == 2);
  CHECK(chunks.allocate(kChunk - 4 * kKiB) != nullptr);  // the largest block a chunk serves
  CHECK(chunks.chunks() == 3);
}

TEST_CASE("huge page chunks: blocks side by side keep their bytes, and a chunk goes back with its last block") {
  FakeSource fake;
  HugePageChunks chunks(fake.source());
  const std::vector<int64_t> sizes{64 * kKiB, 132 * kKiB, 4 * kKiB, 1020 * kKiB, 200 * kKiB, 576 * kKiB, 64 * kKiB};
  std::vector<void*> blocks;
  for (size_t i = 0; i < sizes.size(); ++i) {
    blocks.push_back(chunks.allocate(sizes[i]));
    REQUIRE(blocks.back() != nullptr);
    std::memset(blocks.back(), static_cast<int>(i + 1), static_cast<size_t>(sizes[i]));
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    CAPTURE(i);
    const char* p = at(blocks[i]);
    CHECK(p[0] == static_cast<char>(i + 1));
    CHECK(p[sizes[i] - 1] == static_cast<char>(i + 1));
  }
  const int64_t mapped = chunks.chunks();
  CHECK(mapped == 2);
  for (size_t i = 0; i < sizes.size(); ++i) chunks.release(blocks[i], sizes[i]);
  CHECK(chunks.chunks() == 0);
  CHECK(FakeSource::unmaps == mapped);
}

TEST_CASE("huge page chunks: a chunk that cannot be mapped gives nullptr and changes nothing") {
  FakeSource fake;
  HugePageChunks chunks(fake.source());
  void* a = chunks.allocate(1024 * kKiB);
  REQUIRE(a != nullptr);
  FakeSource::fail = true;
  CHECK(chunks.allocate(512 * kKiB) != nullptr);  // still fits in the chunk mapped before
  CHECK(chunks.allocate(1024 * kKiB) == nullptr);
  CHECK(chunks.chunks() == 1);
  FakeSource::fail = false;
  void* b = chunks.allocate(1024 * kKiB);
  CHECK(reinterpret_cast<uintptr_t>(b) % kChunk == 0);
  CHECK(chunks.chunks() == 2);
  chunks.release(a, 1024 * kKiB);
  CHECK(chunks.chunks() == 2);  // the 512 KiB block keeps the first chunk
}

TEST_CASE("storage: blocks of 64 KiB to 2 MiB share huge-page chunks and keep their bytes") {
  empty_cache();
  std::vector<std::shared_ptr<Storage>> keep;
  const std::vector<int64_t> sizes{64 * kKiB, 147456, 64 * kKiB + 1, 589824, 2 * 1024 * kKiB - 1, 100 * kKiB};
  for (size_t i = 0; i < sizes.size(); ++i) {
    keep.push_back(Storage::allocate(sizes[i]));
    CHECK(reinterpret_cast<uintptr_t>(keep.back()->data()) % 4096 == 0);
    std::memset(keep.back()->data(), static_cast<int>(i + 1), static_cast<size_t>(sizes[i]));
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    CAPTURE(i);
    const char* p = static_cast<const char*>(keep[i]->data());
    CHECK(p[0] == static_cast<char>(i + 1));
    CHECK(p[sizes[i] - 1] == static_cast<char>(i + 1));
  }
  keep.clear();
  CHECK(allocator_stats().cached_bytes > 0);
  empty_cache();
  CHECK(allocator_stats().cached_bytes == 0);
}

}  // namespace
}  // namespace tl::detail
