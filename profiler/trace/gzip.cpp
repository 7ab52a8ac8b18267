// profiler/trace/gzip.cpp — gzip members (RFC 1952): header fields, CRC-32 and ISIZE trailer checks,
// around the DEFLATE decoder in inflate.cpp.
#include "profiler/trace/gzip.h"

#include <array>
#include <sstream>

#include "core/error.h"
#include "profiler/trace/inflate.h"

namespace tl::trace {
namespace {

constexpr uint8_t kFlagHeaderCrc = 0x02, kFlagExtra = 0x04, kFlagName = 0x08, kFlagComment = 0x10;
constexpr uint8_t kReservedFlags = 0xe0;

std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}

}  // namespace

uint32_t crc32(uint32_t crc, const void* data, size_t size) {
  static const std::array<uint32_t, 256> kTable = make_crc_table();
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = kTable[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

struct GzipReader::Impl {
  Impl(std::streambuf& source, std::string name)
      : bytes(source, std::move(name)), bits(bytes), inflater(bits) {}

  // Reads one header byte, folding it into the header CRC.
  uint8_t header_byte() {
    auto b = static_cast<uint8_t>(bits.bits(8));
    header_crc = crc32(header_crc, &b, 1);
    return b;
  }
  void skip_zero_terminated() {
    while (header_byte() != 0) {}
  }
  uint32_t le32() {
    uint32_t lo = bits.bits(16);
    return lo | bits.bits(16) << 16;
  }

  void read_header(bool first) {
    header_crc = 0;
    uint8_t id1 = header_byte(), id2 = header_byte();
    if (id1 != 0x1f || id2 != 0x8b)
      bits.fail(first ? "not a gzip file (bad magic bytes)" : "trailing garbage after the last gzip member");
    uint8_t method = header_byte();
    if (method != 8) bits.fail(detail::str_cat("unsupported compression method ", int{method}));
    uint8_t flags = header_byte();
    if (flags & kReservedFlags) bits.fail("reserved header flags set");
    for (int i = 0; i < 6; ++i) header_byte();  // MTIME, XFL, OS
    if (flags & kFlagExtra) {
      uint32_t xlen = header_byte();
      xlen |= uint32_t{header_byte()} << 8;
      for (uint32_t i = 0; i < xlen; ++i) header_byte();
    }
    if (flags & kFlagName) skip_zero_terminated();
    if (flags & kFlagComment) skip_zero_terminated();
    if (flags & kFlagHeaderCrc) {
      uint32_t expected = header_crc & 0xffff;
      if (bits.bits(16) != expected) bits.fail("header CRC mismatch");
    }
    inflater.reset();
    crc = 0;
    size = 0;
  }

  void check_trailer() {
    bits.align_to_byte();
    uint32_t stored_crc = le32();
    uint32_t stored_size = le32();
    if (stored_crc != crc) bits.fail("CRC-32 mismatch (the data is damaged)");
    if (stored_size != static_cast<uint32_t>(size)) bits.fail("length mismatch (ISIZE)");
  }

  gz::ByteSource bytes;
  gz::BitReader bits;
  gz::Inflater inflater;
  bool in_member = false, at_end = false;
  uint32_t header_crc = 0, crc = 0;
  uint64_t size = 0;
};

GzipReader::GzipReader(std::streambuf& source, std::string name)
    : impl_(std::make_unique<Impl>(source, std::move(name))) {
  if (impl_->bits.at_end()) impl_->bits.fail("empty file, expected gzip data");
  impl_->read_header(/*first=*/true);
  impl_->in_member = true;
}

GzipReader::~GzipReader() = default;

size_t GzipReader::read(char* out, size_t size) {
  Impl& s = *impl_;
  size_t done = 0;
  while (done < size && !s.at_end) {
    if (!s.in_member) {
      s.read_header(/*first=*/false);
      s.in_member = true;
    }
    auto* dst = reinterpret_cast<uint8_t*>(out + done);
    size_t n = s.inflater.read(dst, size - done);
    s.crc = crc32(s.crc, dst, n);
    s.size += n;
    done += n;
    if (s.inflater.finished()) {
      s.check_trailer();
      s.in_member = false;
      s.at_end = s.bits.at_end();
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

}  // namespace tl::trace
