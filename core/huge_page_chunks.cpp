// core/huge_page_chunks.cpp — first fit over a bitmap of pages per chunk; chunks mapped 2 MiB-aligned with
// mmap, so that each is one huge page when the kernel has one (one fault instead of 512).
#include "core/huge_page_chunks.h"

#include <cstdint>
#include <new>

#include <sys/mman.h>

#include "core/error.h"

namespace tl::detail {
namespace {

// Maps twice the chunk and unmaps the unaligned ends: mmap itself only aligns to a page.
void* map_chunk() {
  constexpr size_t chunk = HugePageChunks::kChunkBytes;
  void* p = mmap(nullptr, 2 * chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (start + chunk - 1) & ~uintptr_t{chunk - 1};
  if (aligned > start) munmap(p, aligned - start);
  munmap(reinterpret_cast<void*>(aligned + chunk), start + 2 * chunk - aligned - chunk);
  madvise(reinterpret_cast<void*>(aligned), chunk, MADV_HUGEPAGE);  // only a hint: failure is harmless
  return reinterpret_cast<void*>(aligned);
}

void unmap_chunk(void* chunk) { munmap(chunk, HugePageChunks::kChunkBytes); }

// The first page of the lowest run of `n` free pages in `used`, or -1.
int64_t free_run(const std::bitset<HugePageChunks::kPages>& used, int64_t n) {
  int64_t run = 0;
  for (int64_t i = 0; i < HugePageChunks::kPages; ++i) {
    run = used.test(static_cast<size_t>(i)) ? 0 : run + 1;
    if (run == n) return i + 1 - n;
  }
  return -1;
}

}  // namespace

ChunkSource huge_page_source() { return {map_chunk, unmap_chunk}; }

HugePageChunks::~HugePageChunks() {
  for (const Chunk& c : chunks_) source_.unmap(c.base);
}

void* HugePageChunks::allocate(int64_t bytes) {
  TL_INTERNAL_ASSERT(bytes > 0 && bytes < kChunkBytes && bytes % kPageBytes == 0, "HugePageChunks: ", bytes,
                     " bytes is not a whole number of pages below a chunk");
  const int64_t n = bytes / kPageBytes;
  std::lock_guard lock(mutex_);
  Chunk* chunk = nullptr;
  int64_t first = -1;
  for (Chunk& c : chunks_) {
    if ((first = free_run(c.used, n)) >= 0) {
      chunk = &c;
      break;
    }
  }
  if (chunk == nullptr) {
    void* base = source_.map();
    if (base == nullptr) return nullptr;
    try {
      chunks_.push_back({static_cast<char*>(base), {}});
    } catch (const std::bad_alloc&) {
      source_.unmap(base);
      return nullptr;
    }
    chunk = &chunks_.back();
    first = 0;
  }
  for (int64_t i = first; i < first + n; ++i) chunk->used.set(static_cast<size_t>(i));
  return chunk->base + first * kPageBytes;
}

void HugePageChunks::release(void* block, int64_t bytes) {
  char* p = static_cast<char*>(block);
  std::lock_guard lock(mutex_);
  for (auto it = chunks_.begin(); it != chunks_.end(); ++it) {
    if (p < it->base || p >= it->base + kChunkBytes) continue;
    const int64_t first = (p - it->base) / kPageBytes;
    TL_INTERNAL_ASSERT(p == it->base + first * kPageBytes && first + bytes / kPageBytes <= kPages,
                       "HugePageChunks: releasing ", bytes, " bytes at a block it did not hand out");
    for (int64_t i = first; i < first + bytes / kPageBytes; ++i) it->used.reset(static_cast<size_t>(i));
    if (it->used.none()) {
      source_.unmap(it->base);
      chunks_.erase(it);
    }
    return;
  }
  TL_INTERNAL_ASSERT(false, "HugePageChunks: releasing ", bytes, " bytes that no chunk holds");
}

int64_t HugePageChunks::chunks() {
  std::lock_guard lock(mutex_);
  return static_cast<int64_t>(chunks_.size());
}

}  // namespace tl::detail
