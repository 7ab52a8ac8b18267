// tests/core/test_gzip.cpp — the gzip reader (zlib underneath) against the system gzip command and
// against hand-built streams (every block type, every error path); damaged input never crashes.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/gzip.h"
#include "tests/support/file_testing.h"

namespace tl {
namespace {

using testing::ScratchDir;
using testing::system_gzip;

// Writes DEFLATE bits least significant first; Huffman codes go most significant bit first.
class BitWriter {
 public:
  void bits(uint32_t value, int n) {
    for (int i = 0; i < n; ++i) bit((value >> i) & 1);
  }
  void code(uint32_t code, int n) {
    for (int i = n - 1; i >= 0; --i) bit((code >> i) & 1);
  }
  // Fixed Huffman literal/length symbol (RFC 1951, 3.2.6).
  void fixed(int symbol) {
    if (symbol < 144) code(0x30 + symbol, 8);
    else if (symbol < 256) code(0x190 + symbol - 144, 9);
    else if (symbol < 280) code(symbol - 256, 7);
    else code(0xc0 + symbol - 280, 8);
  }
  void align() {
    while (count_ % 8 != 0) bit(0);
  }
  std::string bytes() const { return out_; }

 private:
  void bit(uint32_t b) {
    if (count_ % 8 == 0) out_.push_back(0);
    out_.back() = static_cast<char>(out_.back() | (b << (count_ % 8)));
    ++count_;
  }
  std::string out_;
  int count_ = 0;
};

std::string le32(uint32_t v) {
  std::string s;
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

// A gzip member around `deflate` whose trailer describes `plain`.
std::string member(const std::string& deflate, const std::string& plain, const std::string& header_extra = "",
                   uint8_t flags = 0) {
  std::string h = {'\x1f', '\x8b', '\x08', static_cast<char>(flags), 0, 0, 0, 0, 0, '\x03'};
  return h + header_extra + deflate + le32(crc32(0, plain.data(), plain.size())) + le32(static_cast<uint32_t>(plain.size()));
}

std::string stored_block(const std::string& data, bool final) {
  BitWriter w;
  w.bits(final ? 1 : 0, 1);
  w.bits(0, 2);
  w.align();
  std::string s = w.bytes();
  uint16_t len = static_cast<uint16_t>(data.size());
  s += {static_cast<char>(len & 0xff), static_cast<char>(len >> 8), static_cast<char>(~len & 0xff),
        static_cast<char>((~len >> 8) & 0xff)};
  return s + data;
}

std::string pseudo_text(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  const char* words[] = {"aten::conv2d", "aten::add", "\"ts\": ", "\"dur\": ", "ProfilerStep#", ", ", "{", "}\n"};
  std::string s;
  while (s.size() < size) {
    s += words[rng() % 8];
    s += std::to_string(rng() % 100000);
  }
  return s;
}

std::string random_bytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(size, '\0');
  for (char& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

TEST_CASE("gzip: crc32 matches the standard check value") {
  CHECK(crc32(0, "123456789", 9) == 0xcbf43926u);
  CHECK(crc32(0, "", 0) == 0u);
  CHECK(crc32(crc32(0, "1234", 4), "56789", 5) == 0xcbf43926u);
}

TEST_CASE("gzip: decodes the system gzip's output (dynamic, stored, empty, named, multi-member)") {
  ScratchDir dir;
  std::string text = pseudo_text(600000, 1);  // several dynamic-Huffman blocks
  std::string noise = random_bytes(200000, 2);  // gzip -1 falls back to stored blocks
  std::string gz_text = system_gzip(dir, text, "-9 -n", "text.json");
  if (gz_text.empty()) {
    MESSAGE("gzip command not available: skipping the system-gzip cases");
    return;
  }
  CHECK(gunzip(gz_text, "text.json.gz") == text);

  std::string gz_noise = system_gzip(dir, noise, "-1 -n", "noise.bin");
  CHECK((static_cast<uint8_t>(gz_noise[10]) & 0x6) == 0);  // the first block is stored (BTYPE 00)
  CHECK(gunzip(gz_noise, "noise.bin.gz") == noise);

  CHECK(gunzip(system_gzip(dir, "", "-n", "empty.txt"), "empty.txt.gz").empty());
  std::string gz_named = system_gzip(dir, "hello, trace\n", "", "named.txt");  // FNAME set
  CHECK((static_cast<uint8_t>(gz_named[3]) & 0x08) != 0);
  CHECK(gunzip(gz_named, "named.txt.gz") == "hello, trace\n");

  CHECK(gunzip(gz_named + gz_text, "cat.gz") == "hello, trace\n" + text);
}

TEST_CASE("gzip: hand-built stored, fixed and multi-block streams") {
  std::string stored = stored_block("abc", false) + stored_block("", false) + stored_block("def", true);
  CHECK(gunzip(member(stored, "abcdef"), "s.gz") == "abcdef");

  BitWriter w;  // "abcabcabc": three literals, then length 6 at distance 3 (an overlapping copy)
  w.bits(1, 1);
  w.bits(1, 2);
  for (char c : std::string("abc")) w.fixed(c);
  w.fixed(260);   // length 6
  w.code(2, 5);   // distance 3
  w.fixed(256);
  CHECK(gunzip(member(w.bytes(), "abcabcabc"), "f.gz") == "abcabcabc");
}

TEST_CASE("gzip: optional header fields and the header CRC") {
  std::string body = stored_block("xyz", true);
  std::string extra = std::string("\x04\x00", 2) + "abcd" + "name.json" + '\0' + "a comment" + '\0';
  CHECK(gunzip(member(body, "xyz", extra, 0x04 | 0x08 | 0x10), "h.gz") == "xyz");

  std::string head = {'\x1f', '\x8b', '\x08', '\x02', 0, 0, 0, 0, 0, '\x03'};
  uint32_t hcrc = crc32(0, head.data(), head.size()) & 0xffff;
  std::string good = std::string{static_cast<char>(hcrc & 0xff), static_cast<char>(hcrc >> 8)};
  std::string trailer = le32(crc32(0, "xyz", 3)) + le32(3);
  CHECK(gunzip(head + good + body + trailer, "hcrc.gz") == "xyz");
  std::string bad = std::string{static_cast<char>((hcrc & 0xff) ^ 1), static_cast<char>(hcrc >> 8)};
  CHECK_THROWS_WITH_AS(gunzip(head + bad + body + trailer, "hcrc.gz"),
                       "hcrc.gz: corrupt gzip data at byte 12: header CRC mismatch", Error);
}

TEST_CASE("gzip: header and trailer errors") {
  std::string ok = member(stored_block("hello", true), "hello");
  CHECK_THROWS_WITH_AS(gunzip("", "e.gz"), "e.gz: corrupt gzip data at byte 0: empty file, expected gzip data", Error);
  CHECK_THROWS_WITH_AS(gunzip("{\"traceEvents\": []}", "t.gz"), doctest::Contains("not a gzip file (bad magic bytes)"), Error);
  std::string method = ok;
  method[2] = 7;
  CHECK_THROWS_WITH_AS(gunzip(method, "m.gz"), doctest::Contains("unsupported compression method 7"), Error);
  std::string reserved = ok;
  reserved[3] = static_cast<char>(0x20);
  CHECK_THROWS_WITH_AS(gunzip(reserved, "r.gz"), doctest::Contains("reserved header flags set"), Error);

  std::string bad_crc = ok;
  bad_crc[bad_crc.size() - 8] ^= 1;
  CHECK_THROWS_WITH_AS(gunzip(bad_crc, "c.gz"), doctest::Contains("c.gz: corrupt gzip data at byte"), Error);
  CHECK_THROWS_WITH_AS(gunzip(bad_crc, "c.gz"), doctest::Contains("CRC-32 mismatch"), Error);
  std::string bad_size = ok;
  bad_size[bad_size.size() - 4] ^= 1;
  CHECK_THROWS_WITH_AS(gunzip(bad_size, "z.gz"), doctest::Contains("length mismatch (ISIZE)"), Error);
  CHECK_THROWS_WITH_AS(gunzip(ok + "junk", "g.gz"), doctest::Contains("trailing garbage after the last gzip member"), Error);
}

TEST_CASE("gzip: a later member's header errors name its own bytes, across the 64 KB read chunks") {
  std::string plain(65510, 'a');
  std::string first = member(stored_block(plain, true), plain);
  REQUIRE(first.size() == 65533);  // the next member's method byte is the last of the first chunk
  std::string second = member(stored_block("b", true), "b");
  CHECK(gunzip(first + second, "two.gz") == plain + "b");
  second[2] = 7;
  CHECK_THROWS_WITH_AS(gunzip(first + second, "two.gz"),
                       "two.gz: corrupt gzip data at byte 65537: unsupported compression method 7", Error);
  CHECK_THROWS_WITH_AS(gunzip(first + "\x1f", "one.gz"), doctest::Contains("one.gz: truncated gzip data"), Error);
}

// DEFLATE errors carry zlib's words after our prefix, which names the file and the byte.
TEST_CASE("gzip: DEFLATE errors are reported, never decoded into garbage") {
  auto fails_with = [](const std::string& deflate, const char* what) {
    CHECK_THROWS_WITH_AS(gunzip(member(deflate, ""), "d.gz"), doctest::Contains(what), Error);
    CHECK_THROWS_WITH_AS(gunzip(member(deflate, ""), "d.gz"), doctest::Contains("d.gz: corrupt gzip data at byte "),
                         Error);
  };
  BitWriter type3;
  type3.bits(1, 1);
  type3.bits(3, 2);
  fails_with(type3.bytes(), "invalid block type");

  std::string stored = stored_block("abc", true);
  stored[3] ^= 1;  // NLEN no longer the complement of LEN
  fails_with(stored, "invalid stored block lengths");

  BitWriter far;  // a match before any output
  far.bits(1, 1);
  far.bits(1, 2);
  far.fixed('a');
  far.fixed(257);  // length 3
  far.code(1, 5);  // distance 2
  fails_with(far.bytes(), "invalid distance too far back");

  BitWriter len286;
  len286.bits(1, 1);
  len286.bits(1, 2);
  len286.fixed(286);
  fails_with(len286.bytes(), "invalid literal/length code");

  BitWriter dist30;
  dist30.bits(1, 1);
  dist30.bits(1, 2);
  dist30.fixed('a');
  dist30.fixed(257);
  dist30.code(30, 5);
  fails_with(dist30.bytes(), "invalid distance code");
}

// Dynamic block header: HLIT, HDIST, HCLEN and the code-length code lengths in RFC order.
BitWriter dynamic_header(int nlen, int ndist, const std::vector<int>& code_length_lengths) {
  BitWriter w;
  w.bits(1, 1);
  w.bits(2, 2);
  w.bits(static_cast<uint32_t>(nlen - 257), 5);
  w.bits(static_cast<uint32_t>(ndist - 1), 5);
  w.bits(static_cast<uint32_t>(code_length_lengths.size() - 4), 4);
  for (int l : code_length_lengths) w.bits(static_cast<uint32_t>(l), 3);
  return w;
}

TEST_CASE("gzip: dynamic block header errors") {
  auto fails_with = [](const BitWriter& w, const char* what) {
    CHECK_THROWS_WITH_AS(gunzip(member(w.bytes(), ""), "d.gz"), doctest::Contains(what), Error);
    CHECK_THROWS_WITH_AS(gunzip(member(w.bytes(), ""), "d.gz"), doctest::Contains("d.gz: corrupt gzip data at byte "),
                         Error);
  };
  fails_with(dynamic_header(287, 1, {0, 0, 0, 1}), "too many length or distance symbols");
  // Symbols 16, 17 and 18 all of length 1: over-subscribed.
  fails_with(dynamic_header(257, 1, {1, 1, 1, 0}), "invalid code lengths set");

  // Order 16, 17, 18, 0, 8: symbols 8 (code 0) and 16 (code 1), one bit each.
  BitWriter repeat_first = dynamic_header(257, 1, {1, 0, 0, 0, 1});
  repeat_first.code(1, 1);
  fails_with(repeat_first, "invalid bit length repeat");

  // Symbols 8 (code 0) and 18 (code 1): two runs of 138 zeros overflow 258 lengths.
  BitWriter overflow = dynamic_header(257, 1, {0, 0, 1, 0, 1});
  overflow.code(1, 1);
  overflow.bits(127, 7);
  overflow.code(1, 1);
  overflow.bits(127, 7);
  fails_with(overflow, "invalid bit length repeat");

  // Symbols 0 (code 0) and 8 (code 1): 256 literals of length 8, end-of-block and distance length 0.
  BitWriter no_eob = dynamic_header(257, 1, {0, 0, 0, 1, 1});
  for (int i = 0; i < 256; ++i) no_eob.code(1, 1);
  no_eob.code(0, 1);
  no_eob.code(0, 1);
  fails_with(no_eob, "invalid code -- missing end-of-block");
}

TEST_CASE("gzip: every truncation is reported as truncated") {
  ScratchDir dir;
  std::string text = pseudo_text(3000, 3);
  std::string gz = system_gzip(dir, text, "-9 -n");
  if (gz.empty()) gz = member(stored_block(text, true), text);
  for (size_t n = 1; n < gz.size(); ++n) {
    CAPTURE(n);
    CHECK_THROWS_WITH_AS(gunzip(gz.substr(0, n), "cut.gz"), doctest::Contains("cut.gz: truncated gzip data"), Error);
  }
}

TEST_CASE("gzip: flipped bytes give an error or the original data, never a crash") {
  ScratchDir dir;
  std::string text = pseudo_text(40000, 4);
  std::string gz = system_gzip(dir, text, "-6 -n");
  if (gz.empty()) {
    MESSAGE("gzip command not available: skipping");
    return;
  }
  std::mt19937 rng(5);
  int errors = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string damaged = gz;
    damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
    std::string out;
    try {
      out = gunzip(damaged, "x.gz");
    } catch (const Error&) {
      ++errors;
      continue;
    }
    CHECK(out == text);  // e.g. a changed MTIME byte
  }
  CHECK(errors > 250);
}

}  // namespace
}  // namespace tl
