// core/gzip.cpp — gzip members (RFC 1952) decoded by zlib, one after another; zlib's header, CRC-32
// and ISIZE checks are reported in our words with the file name and the byte offset.
#include "core/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <new>
#include <sstream>
#include <string_view>

#include "core/error.h"

namespace tl {
namespace {

using detail::str_cat;

constexpr size_t kChunk = 1 << 16;
// Input bytes kept from the previous chunk, so an error can quote a header byte zlib already took.
constexpr size_t kHistory = 16;

}  // namespace

uint32_t crc32(uint32_t crc, const void* data, size_t size) {
  return static_cast<uint32_t>(::crc32_z(crc, static_cast<const Bytef*>(data), size));
}

struct GzipReader::Impl {
  Impl(std::streambuf& source, std::string name)
      : source(source), name(std::move(name)), buffer(kHistory + kChunk) {}
  ~Impl() {
    if (z_open) inflateEnd(&z);
  }

  // Reads the next chunk after the last kHistory bytes of this one; false at the end of the input.
  bool fill() {
    size_t keep = std::min(kHistory, end);
    std::memmove(buffer.data(), buffer.data() + end - keep, keep);
    std::streamsize n =
        source.sgetn(reinterpret_cast<char*>(buffer.data() + keep), static_cast<std::streamsize>(kChunk));
    end = keep + (n > 0 ? static_cast<size_t>(n) : 0);
    taken += end - keep;
    z.next_in = buffer.data() + keep;
    z.avail_in = static_cast<uInt>(end - keep);
    return z.avail_in > 0;
  }
  // Offset in the input of the next byte zlib has not taken.
  int64_t offset() const { return taken - z.avail_in; }
  // The input byte at `at`, or -1 when it is no longer buffered.
  int byte_at(int64_t at) const {
    int64_t index = static_cast<int64_t>(end) - (taken - at);
    return at < taken && index >= 0 ? buffer[static_cast<size_t>(index)] : -1;
  }

  [[noreturn]] void fail(std::string_view what) const {
    detail::throw_error(str_cat(name, ": corrupt gzip data at byte ", offset(), ": ", what));
  }
  [[noreturn]] void truncated() const {
    detail::throw_error(str_cat(name, ": truncated gzip data: unexpected end of file after ", taken, " bytes"));
  }
  // zlib's Z_DATA_ERROR, in the words of the check that failed; DEFLATE errors keep zlib's message.
  [[noreturn]] void fail_data() const {
    const std::string_view msg = z.msg ? z.msg : "invalid data";
    if (msg == "incorrect header check")
      fail(member_start == 0 ? "not a gzip file (bad magic bytes)" : "trailing garbage after the last gzip member");
    if (msg == "unknown compression method") {
      const int method = byte_at(member_start + 2);
      fail(method < 0 ? std::string("unsupported compression method")
                      : str_cat("unsupported compression method ", method));
    }
    if (msg == "unknown header flags set") fail("reserved header flags set");
    if (msg == "header crc mismatch") fail("header CRC mismatch");
    if (msg == "incorrect data check") fail("CRC-32 mismatch (the data is damaged)");
    if (msg == "incorrect length check") fail("length mismatch (ISIZE)");
    fail(msg);
  }

  std::streambuf& source;
  std::string name;
  std::vector<Bytef> buffer;  // [0, end): the last kHistory bytes of the previous chunk, then this one
  size_t end = 0;
  int64_t taken = 0;         // bytes read from `source`
  int64_t member_start = 0;  // offset of the current member's first byte
  z_stream z{};
  bool z_open = false, in_member = true, at_end = false;
};

GzipReader::GzipReader(std::streambuf& source, std::string name)
    : impl_(std::make_unique<Impl>(source, std::move(name))) {
  Impl& s = *impl_;
  if (!s.fill()) s.fail("empty file, expected gzip data");
  // 16 + MAX_WBITS: a gzip wrapper only (no zlib or raw stream), header CRC and trailer checked.
  int rc = inflateInit2(&s.z, 16 + MAX_WBITS);
  if (rc == Z_MEM_ERROR) throw std::bad_alloc();
  TL_INTERNAL_ASSERT(rc == Z_OK, "inflateInit2 failed: ", zError(rc));
  s.z_open = true;
}

GzipReader::~GzipReader() = default;

size_t GzipReader::read(char* out, size_t size) {
  Impl& s = *impl_;
  z_stream& z = s.z;
  size_t done = 0;
  while (done < size && !s.at_end) {
    if (z.avail_in == 0 && !s.fill()) {
      if (s.in_member) s.truncated();
      s.at_end = true;  // the input ends right after a member's trailer
      break;
    }
    if (!s.in_member) {  // more input after a member: the next member of a concatenation
      inflateReset(&z);
      s.member_start = s.offset();
      s.in_member = true;
    }
    z.next_out = reinterpret_cast<Bytef*>(out + done);
    z.avail_out = static_cast<uInt>(std::min<size_t>(size - done, UINT_MAX));
    const uInt before = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    done += before - z.avail_out;
    switch (rc) {
      case Z_STREAM_END: s.in_member = false; break;  // trailer checked by zlib
      case Z_OK: break;
      case Z_BUF_ERROR:  // wants more input, which the loop reads next
        TL_INTERNAL_ASSERT(z.avail_in == 0, "inflate made no progress with ", z.avail_in, " bytes of input");
        break;
      case Z_MEM_ERROR: throw std::bad_alloc();
      case Z_DATA_ERROR: s.fail_data();
      default: s.fail(str_cat("zlib error ", rc, z.msg ? str_cat(" (", z.msg, ")") : std::string()));
    }
  }
  return done;
}

GzipStreamBuf::GzipStreamBuf(std::streambuf& source, std::string name)
    : reader_(source, std::move(name)), buffer_(1 << 16) {}

GzipStreamBuf::int_type GzipStreamBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  size_t n = reader_.read(buffer_.data(), buffer_.size());
  if (n == 0) return traits_type::eof();
  setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
  return traits_type::to_int_type(*gptr());
}

std::string gunzip(const std::string& compressed, const std::string& name) {
  std::stringbuf source(compressed, std::ios::in);
  GzipReader reader(source, name);
  std::string out;
  std::array<char, 1 << 16> chunk;
  while (size_t n = reader.read(chunk.data(), chunk.size())) out.append(chunk.data(), n);
  return out;
}

}  // namespace tl
