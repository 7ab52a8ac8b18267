// core/huge_page_chunks.h — blocks of whole 4 KiB pages below 2 MiB carved out of 2 MiB chunks, each chunk one
// transparent huge page (core/storage's blocks of 64 KiB to 2 MiB). A chunk goes back to the system when its
// last block does; a failed request changes nothing.
#pragma once

#include <bitset>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tl::detail {

/// Where chunks come from: `map` returns kChunkBytes bytes starting on a kChunkBytes boundary, or nullptr when
/// the system has no memory; `unmap` returns what `map` gave.
struct ChunkSource {
  void* (*map)();
  void (*unmap)(void* chunk);
};
/// Anonymous memory (mmap) asking for a transparent huge page (madvise MADV_HUGEPAGE, a hint).
ChunkSource huge_page_source();

class HugePageChunks {
 public:
  static constexpr int64_t kPageBytes = 4096;
  static constexpr int64_t kChunkBytes = int64_t{2} << 20;
  static constexpr int64_t kPages = kChunkBytes / kPageBytes;

  explicit HugePageChunks(ChunkSource source) : source_(source) {}
  /// Unmaps every chunk, blocks still handed out included.
  ~HugePageChunks();
  HugePageChunks(const HugePageChunks&) = delete;
  HugePageChunks& operator=(const HugePageChunks&) = delete;

  /// `bytes` (a positive multiple of kPageBytes below kChunkBytes) at the lowest free run of pages of the
  /// oldest chunk that has one, else at the start of a new chunk; nullptr when no chunk could be mapped.
  void* allocate(int64_t bytes);
  /// Gives back a block allocate(bytes) returned; the chunk is unmapped when no block is left in it.
  void release(void* block, int64_t bytes);
  /// Chunks mapped now.
  int64_t chunks();

 private:
  struct Chunk {
    char* base;
    std::bitset<kPages> used;
  };
  ChunkSource source_;
  std::mutex mutex_;
  std::vector<Chunk> chunks_;  // oldest first
};

}  // namespace tl::detail
