// core/gzip.h — streaming gzip (RFC 1952) decompression through zlib, kept out of this header.
// Corrupt, truncated or trailing-garbage input raises tl::Error naming the source; never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace tl {

/// CRC-32 as gzip uses it (reflected polynomial 0xEDB88320), continuing from `crc` (0 to start).
uint32_t crc32(uint32_t crc, const void* data, size_t size);

/// Decompresses the gzip stream read from `source`, a chunk at a time: memory stays near 110 KB
/// whatever the size of the stream. Accepts several concatenated members (as `cat a.gz b.gz`
/// makes), checks header flags, the optional header CRC, and each member's CRC-32 and length.
/// `name` (usually the file path) starts every error message: "<name>: corrupt gzip data at byte N:
/// <what>" (N counts the input bytes read so far) or "<name>: truncated gzip data: ...".
class GzipReader {
 public:
  GzipReader(std::streambuf& source, std::string name);
  ~GzipReader();
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  /// Writes up to `size` decompressed bytes to `out` and returns how many; returns 0 only after the
  /// last member's trailer was checked. Throws tl::Error on bad or truncated data.
  size_t read(char* out, size_t size);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A read-only std::streambuf over GzipReader, so istream-based parsers read the decompressed text.
class GzipStreamBuf : public std::streambuf {
 public:
  GzipStreamBuf(std::streambuf& source, std::string name);

 protected:
  int_type underflow() override;

 private:
  GzipReader reader_;
  std::vector<char> buffer_;
};

/// Decompresses a whole in-memory gzip stream (convenient for small inputs and tests).
std::string gunzip(const std::string& compressed, const std::string& name);

}  // namespace tl
