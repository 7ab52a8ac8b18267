// profiler/trace/inflate.cpp — DEFLATE decoding (RFC 1951): stored, fixed and dynamic Huffman blocks.
// Every code, length and distance is validated before use; nothing is read past the window or input.
#include "profiler/trace/inflate.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace tl::trace::gz {

using tl::detail::str_cat;

namespace {

constexpr int kMaxLengthCodes = 286;
constexpr int kMaxDistanceCodes = 30;

constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistanceBase[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                        33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                        1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistanceExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                        6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// Order in which a dynamic block lists the code-length code's lengths.
constexpr uint8_t kCodeLengthOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

uint32_t reverse_bits(uint32_t code, int length) {
  uint32_t r = 0;
  for (int i = 0; i < length; ++i) r = (r << 1) | ((code >> i) & 1);
  return r;
}

// An incomplete code is legal only when it has a single code of length 1 (RFC 1951 allows one
// distance code; zlib accepts the same for literal/length codes).
bool acceptable(int left, const Huffman& h, int n) {
  return left == 0 || (left > 0 && h.count[0] + h.count[1] == n);
}

}  // namespace

ByteSource::ByteSource(std::streambuf& source, std::string name)
    : source_(source), name_(std::move(name)), buffer_(1 << 16) {}

bool ByteSource::fill() {
  std::streamsize n = source_.sgetn(reinterpret_cast<char*>(buffer_.data()),
                                    static_cast<std::streamsize>(buffer_.size()));
  pos_ = 0;
  end_ = n > 0 ? static_cast<size_t>(n) : 0;
  return end_ > 0;
}

void BitReader::fail(const std::string& what) const {
  tl::detail::throw_error(str_cat(source_.name(), ": corrupt gzip data at byte ", byte_offset(), ": ", what));
}

void BitReader::throw_truncated() const {
  tl::detail::throw_error(str_cat(source_.name(), ": truncated gzip data: unexpected end of file after ",
                              source_.taken(), " bytes"));
}

int Huffman::build(const uint8_t* lengths, int n) {
  count.fill(0);
  fast.fill(0);
  for (int s = 0; s < n; ++s) ++count[lengths[s]];
  if (count[0] == n) return 0;  // no codes: complete, and any decode attempt fails

  int left = 1;
  for (int len = 1; len <= kMaxBits; ++len) {
    left = (left << 1) - count[len];
    if (left < 0) return left;
  }
  std::array<uint16_t, kMaxBits + 2> offset{};
  for (int len = 1; len <= kMaxBits; ++len) offset[len + 1] = offset[len] + count[len];
  for (int s = 0; s < n; ++s)
    if (lengths[s] != 0) symbol[offset[lengths[s]]++] = static_cast<uint16_t>(s);

  uint32_t code = 0;
  int index = 0;
  for (int len = 1; len <= kFastBits; ++len) {
    for (int k = 0; k < count[len]; ++k, ++code) {
      uint16_t entry = static_cast<uint16_t>(symbol[index++] << 4 | len);
      for (uint32_t i = reverse_bits(code, len); i < fast.size(); i += uint32_t{1} << len) fast[i] = entry;
    }
    code <<= 1;
  }
  return left;
}

int Inflater::decode(const Huffman& h) {
  uint32_t bits = in_.peek(Huffman::kMaxBits);
  uint16_t entry = h.fast[bits & ((1u << Huffman::kFastBits) - 1)];
  if (entry != 0) {
    in_.consume(entry & 15);
    return entry >> 4;
  }
  // Canonical decoding, one bit at a time: codes of each length are consecutive integers.
  int code = 0, first = 0, index = 0;
  for (int len = 1; len <= Huffman::kMaxBits; ++len) {
    code |= static_cast<int>((bits >> (len - 1)) & 1);
    int count = h.count[len];
    if (code - first < count) {
      in_.consume(len);
      return h.symbol[index + code - first];
    }
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  if (in_.short_of(Huffman::kMaxBits)) in_.throw_truncated();
  in_.fail("invalid Huffman code");
}

void Inflater::reset() {
  produced_ = 0;
  pending_ = 0;
  state_ = State::BlockHeader;
  final_block_ = false;
  stored_left_ = 0;
}

size_t Inflater::read(uint8_t* out, size_t size) {
  size_t done = deliver(out, size);
  while (done < size && state_ != State::Done) {
    while (pending_ < kFlushAt && state_ != State::Done) step();
    done += deliver(out + done, size - done);
  }
  return done;
}

size_t Inflater::deliver(uint8_t* out, size_t size) {
  size_t n = std::min(size, pending_);
  size_t start = static_cast<size_t>((produced_ - pending_) & (kWindow - 1));
  size_t first = std::min(n, kWindow - start);
  std::memcpy(out, window_.data() + start, first);
  std::memcpy(out + first, window_.data(), n - first);
  pending_ -= n;
  return n;
}

void Inflater::step() {
  switch (state_) {
    case State::BlockHeader: start_block(); break;
    case State::Stored: copy_stored(); break;
    case State::Codes: decode_codes(); break;
    case State::Done: break;
  }
}

void Inflater::start_block() {
  final_block_ = in_.bits(1) != 0;
  switch (in_.bits(2)) {
    case 0: {
      in_.align_to_byte();
      uint32_t len = in_.bits(16);
      uint32_t nlen = in_.bits(16);
      if (len != (~nlen & 0xffff)) in_.fail(str_cat("stored block length ", len, " does not match its complement"));
      stored_left_ = len;
      state_ = State::Stored;
      return;
    }
    case 1: {
      uint8_t lengths[288 + 30];
      std::fill(lengths, lengths + 144, 8);
      std::fill(lengths + 144, lengths + 256, 9);
      std::fill(lengths + 256, lengths + 280, 7);
      std::fill(lengths + 280, lengths + 288, 8);
      std::fill(lengths + 288, lengths + 318, 5);
      lengths_.build(lengths, 288);
      distances_.build(lengths + 288, 30);
      state_ = State::Codes;
      return;
    }
    case 2: read_dynamic_tables(); state_ = State::Codes; return;
    default: in_.fail("invalid block type 3");
  }
}

void Inflater::read_dynamic_tables() {
  int nlen = static_cast<int>(in_.bits(5)) + 257;
  int ndist = static_cast<int>(in_.bits(5)) + 1;
  int ncode = static_cast<int>(in_.bits(4)) + 4;
  if (nlen > kMaxLengthCodes || ndist > kMaxDistanceCodes)
    in_.fail(str_cat("dynamic block declares ", nlen, " length and ", ndist, " distance codes"));

  uint8_t lengths[kMaxLengthCodes + kMaxDistanceCodes] = {};
  for (int i = 0; i < ncode; ++i) lengths[kCodeLengthOrder[i]] = static_cast<uint8_t>(in_.bits(3));
  Huffman code_lengths;
  if (code_lengths.build(lengths, 19) != 0) in_.fail("incomplete or over-subscribed code-length code");

  std::fill(lengths, lengths + 19, 0);
  for (int index = 0; index < nlen + ndist;) {
    int symbol = decode(code_lengths);
    if (symbol < 16) {
      lengths[index++] = static_cast<uint8_t>(symbol);
      continue;
    }
    uint8_t value = 0;
    int repeat;
    if (symbol == 16) {
      if (index == 0) in_.fail("length repeat with no previous length");
      value = lengths[index - 1];
      repeat = 3 + static_cast<int>(in_.bits(2));
    } else if (symbol == 17) {
      repeat = 3 + static_cast<int>(in_.bits(3));
    } else {
      repeat = 11 + static_cast<int>(in_.bits(7));
    }
    if (index + repeat > nlen + ndist) in_.fail("code length repeat runs past the declared codes");
    std::fill(lengths + index, lengths + index + repeat, value);
    index += repeat;
  }
  if (lengths[256] == 0) in_.fail("dynamic block has no end-of-block code");
  int left = lengths_.build(lengths, nlen);
  if (!acceptable(left, lengths_, nlen)) in_.fail("invalid literal/length code lengths");
  left = distances_.build(lengths + nlen, ndist);
  if (!acceptable(left, distances_, ndist)) in_.fail("invalid distance code lengths");
}

void Inflater::copy_stored() {
  while (stored_left_ > 0 && pending_ < kFlushAt) {
    put(static_cast<uint8_t>(in_.bits(8)));
    --stored_left_;
  }
  if (stored_left_ == 0) state_ = final_block_ ? State::Done : State::BlockHeader;
}

void Inflater::decode_codes() {
  while (pending_ < kFlushAt) {
    int symbol = decode(lengths_);
    if (symbol < 256) {
      put(static_cast<uint8_t>(symbol));
      continue;
    }
    if (symbol == 256) {
      state_ = final_block_ ? State::Done : State::BlockHeader;
      return;
    }
    symbol -= 257;
    if (symbol >= 29) in_.fail(str_cat("invalid length symbol ", symbol + 257));
    uint32_t length = kLengthBase[symbol] + in_.bits(kLengthExtra[symbol]);
    int dsym = decode(distances_);
    if (dsym >= 30) in_.fail(str_cat("invalid distance symbol ", dsym));
    uint32_t distance = kDistanceBase[dsym] + in_.bits(kDistanceExtra[dsym]);
    if (distance > produced_) in_.fail(str_cat("distance ", distance, " reaches before the start of the stream"));
    for (uint32_t i = 0; i < length; ++i) put(window_[(produced_ - distance) & (kWindow - 1)]);
  }
}

}  // namespace tl::trace::gz
