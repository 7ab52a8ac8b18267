// profiler/trace/inflate.h — internal: a resumable DEFLATE (RFC 1951) decoder over a bounds-checked
// bit reader. Output is pulled in chunks, so memory stays at a 64 KB window whatever the stream size.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <streambuf>
#include <string>
#include <vector>

namespace tl::trace::gz {

/// Buffered bytes from a streambuf; counts the bytes taken so errors can say where they happened.
class ByteSource {
 public:
  ByteSource(std::streambuf& source, std::string name);

  /// The next byte, or -1 at the end of the input.
  int next() {
    if (pos_ == end_ && !fill()) return -1;
    ++taken_;
    return buffer_[pos_++];
  }
  int64_t taken() const { return taken_; }
  const std::string& name() const { return name_; }

 private:
  bool fill();

  std::streambuf& source_;
  std::string name_;
  std::vector<uint8_t> buffer_;
  size_t pos_ = 0, end_ = 0;
  int64_t taken_ = 0;
};

/// Little-endian bit reader (DEFLATE packs data least significant bit first). peek() pads with zeros
/// past the end of the input; consume() throws when asked for bits the input does not have.
class BitReader {
 public:
  explicit BitReader(ByteSource& source) : source_(source) {}

  uint32_t peek(int n) {
    if (count_ < n) refill();
    return static_cast<uint32_t>(bits_ & ((uint64_t{1} << n) - 1));
  }
  void consume(int n) {
    if (n > count_) [[unlikely]] throw_truncated();
    bits_ >>= n;
    count_ -= n;
  }
  uint32_t bits(int n) {
    uint32_t v = peek(n);
    consume(n);
    return v;
  }
  void align_to_byte() { consume(count_ % 8); }
  /// True when the input ended before `n` more bits: a code that fails to decode there is cut off.
  bool short_of(int n) {
    if (count_ < n) refill();
    return count_ < n;
  }
  /// True when every input byte has been consumed (only meaningful at a byte boundary).
  bool at_end() {
    refill();
    return count_ == 0;
  }
  /// Offset in the input of the next unconsumed byte, for error messages.
  int64_t byte_offset() const { return source_.taken() - count_ / 8; }
  /// Throws "<name>: corrupt gzip data at byte N: <what>".
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void throw_truncated() const;

 private:
  void refill() {
    while (count_ <= 56) {
      int b = source_.next();
      if (b < 0) return;
      bits_ |= static_cast<uint64_t>(b) << count_;
      count_ += 8;
    }
  }

  ByteSource& source_;
  uint64_t bits_ = 0;
  int count_ = 0;
};

/// A canonical Huffman code: a direct table for codes up to kFastBits long, and the per-length counts
/// and sorted symbols that decode the longer ones bit by bit.
struct Huffman {
  static constexpr int kMaxBits = 15;
  static constexpr int kFastBits = 10;

  /// Builds the code from per-symbol bit lengths (0 = unused). Returns 0 for a complete code, a
  /// positive number for an incomplete one and a negative one for an over-subscribed one.
  int build(const uint8_t* lengths, int n);

  std::array<uint16_t, kMaxBits + 1> count{};
  std::array<uint16_t, 288> symbol{};
  std::array<uint16_t, 1 << kFastBits> fast{};  // symbol << 4 | length, 0 when longer than kFastBits
};

/// One DEFLATE stream, decoded on demand: read() fills the caller's buffer and returns, keeping the
/// position (block header, stored bytes left, or inside a Huffman block) for the next call.
class Inflater {
 public:
  explicit Inflater(BitReader& in) : in_(in), window_(kWindow) {}

  /// Starts a new stream (the next gzip member).
  void reset();
  /// Writes up to `size` bytes; returns fewer only when the final block has been fully delivered.
  size_t read(uint8_t* out, size_t size);
  /// True once the final block is decoded and all its bytes were returned by read().
  bool finished() const { return state_ == State::Done && pending_ == 0; }

 private:
  enum class State { BlockHeader, Stored, Codes, Done };
  static constexpr size_t kWindow = 1 << 16;  // >= 32 KB history + undelivered bytes + one match
  static constexpr size_t kFlushAt = 1 << 15;

  void step();
  void start_block();
  void read_dynamic_tables();
  void decode_codes();
  void copy_stored();
  int decode(const Huffman& h);
  void put(uint8_t byte) {
    window_[produced_++ & (kWindow - 1)] = byte;
    ++pending_;
  }
  size_t deliver(uint8_t* out, size_t size);

  BitReader& in_;
  std::vector<uint8_t> window_;
  uint64_t produced_ = 0;  // bytes produced by this stream; the window holds the last kWindow
  size_t pending_ = 0;     // produced but not yet returned by read()
  State state_ = State::BlockHeader;
  bool final_block_ = false;
  uint32_t stored_left_ = 0;
  Huffman lengths_, distances_;
};

}  // namespace tl::trace::gz
