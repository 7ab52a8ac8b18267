// tests/nn/test_safetensors.cpp — safetensors round trips for every dtype and layout, byte-exact
// output against the format's rules, and one rejection test per kind of corrupt file.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <vector>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/file_writer.h"
#include "nn/layers.h"
#include "nn/quantized_entries.h"
#include "nn/safetensors.h"
#include "nn/serialize.h"
#include "tests/support/file_testing.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::ScratchDir;
using testing::write_file_bytes;


std::string le64(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * i));
  return out;
}

template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

// A file laid out by hand: length, header text, data.
std::string file_bytes(const std::string& header, const std::string& data = "") {
  return le64(header.size()) + header + data;
}

// Distinct, exactly representable values that use every byte of wide types.
template <typename T>
T value_at(int64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return i % 3 == 0;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return (i % 2 ? -1 : 1) * (i + 1) * 0x123456789ABLL;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16(static_cast<float>(i) * 0.25f - 3.0f);
  } else if constexpr (sizeof(T) == 1) {  // uint8, int8: every byte value, wrapping
    return static_cast<T>(i * 37 + 3);
  } else {
    return static_cast<T>(static_cast<double>(i) * 0.75 - 5.0);
  }
}

template <typename T>
Tensor filled(const Shape& shape) {
  Tensor t = Tensor::allocate(shape, dtype_of<T>);
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = value_at<T>(i);
  return t;
}

Tensor filled(const Shape& shape, DType dtype) {
  return TL_DISPATCH_ALL_TYPES(dtype, "filled", [&] { return filled<scalar_t>(shape); });
}

void check_same(const Tensor& loaded, const Tensor& source) {
  CHECK(loaded.dtype() == source.dtype());
  CHECK(loaded.shape() == source.shape());
  CHECK(loaded.is_contiguous());
  CHECK_TENSOR_CLOSE(loaded, source, 0.0, 0.0);
}

const DType kAllDTypes[] = {DType::Float32, DType::Float64,  DType::Int64, DType::Int32,
                            DType::Bool,    DType::BFloat16, DType::UInt8, DType::Int8};

TEST_CASE("safetensors: a quantized tensor is written as its integers and quantizer entries, and read back") {
  ScratchDir tmp;
  const std::string path = tmp.file("q.safetensors");
  const Tensor q = quantize_per_tensor(filled({4}, DType::Float32), 0.5, 3, kQUInt8);
  const Tensor w = quantize_per_channel(filled({3, 2}, DType::Float32), from_vector<double>({0.1, 0.2, 0.3}, {3}),
                                        from_vector<int64_t>({0, -1, 2}, {3}), 0, kQInt8);
  save_safetensors(path, {{"w", w}, {"q", q}});
  const StateDict plain = split_quantized({{"w", w}, {"q", q}});
  std::vector<std::string> keys;
  for (const auto& [key, t] : plain) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"w", "w.q_per_channel_scales", "w.q_per_channel_zero_points",
                                         "w.q_per_channel_axis", "q", "q.q_scale", "q.q_zero_point"});
  const StateDict loaded = load_safetensors(path);
  REQUIRE(loaded.size() == 2);
  for (const auto& [key, t] : loaded) CHECK(tl::testing::same_tensor(t, key == "w" ? w : q));

  // Integers alone stay integers; a quantizer entry without its companions or its integers is refused by name.
  save_safetensors(path, {{"w", q.int_repr()}});
  CHECK(load_safetensors(path)[0].second.dtype() == kUInt8);
  save_safetensors(path, {{"w", q.int_repr()}, {"w.q_scale", full({}, 0.5, kDouble)}});
  CHECK_THROWS_WITH_AS(load_safetensors(path),
                       ("safetensors: " + path + ": quantized tensor 'w' has no 'w.q_zero_point'").c_str(), Error);
  save_safetensors(path, {{"v.q_scale", full({}, 0.5, kDouble)}});
  CHECK_THROWS_WITH_AS(load_safetensors(path),
                       ("safetensors: " + path + ": 'v.q_scale' describes the quantized tensor 'v', which is missing")
                           .c_str(),
                       Error);
  save_safetensors(path,
                   {{"w", q.int_repr()}, {"w.q_scale", full({}, 0.5, kFloat)}, {"w.q_zero_point", full({}, 3, kLong)}});
  CHECK_THROWS_WITH_AS(load_safetensors(path),
                       ("safetensors: " + path + ": 'w.q_scale' is torch.float32 [], expected torch.float64 []")
                           .c_str(),
                       Error);
  save_safetensors(path, {{"w", q.int_repr()},
                          {"w.q_scale", full({}, -0.5, kDouble)},
                          {"w.q_zero_point", full({}, 3, kLong)}});
  const std::string refused = "safetensors: " + path + ": quantized tensor 'w': ";
  CHECK_THROWS_WITH_AS(load_safetensors(path), doctest::Contains(refused.c_str()), Error);
}

TEST_CASE("safetensors: every dtype and shape round-trips exactly, including 0-dim and 0-size") {
  ScratchDir tmp;
  for (DType dtype : kAllDTypes) {
    CAPTURE(dtype);
    StateDict tensors;
    for (const Shape& shape : {Shape{2, 3}, Shape{}, Shape{0}, Shape{2, 0, 3}, Shape{7}, Shape{1, 3, 2, 5}}) {
      tensors.emplace_back(std::string("t").append(std::to_string(tensors.size())), filled(shape, dtype));
    }
    const std::string path = tmp.file("all.safetensors");
    save_safetensors(path, tensors);
    const StateDict loaded = load_safetensors(path);
    REQUIRE(loaded.size() == tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
      CHECK(loaded[i].first == tensors[i].first);
      check_same(loaded[i].second, tensors[i].second);
    }
  }
}

TEST_CASE("safetensors: non-contiguous sources are written in row-major order") {
  ScratchDir tmp;
  for (DType dtype : kAllDTypes) {
    CAPTURE(dtype);
    const Tensor base = filled({24}, dtype);
    const StateDict tensors = {
        {"transposed", Tensor::make(base.storage(), {4, 3}, {1, 4}, 0, dtype)},
        {"strided", Tensor::make(base.storage(), {5}, {3}, 2, dtype)},
        {"expanded", Tensor::make(base.storage(), {3, 4}, {0, 1}, 8, dtype)},
        {"offset", Tensor::make(base.storage(), {2, 3}, {3, 1}, 5, dtype)},
    };
    const std::string path = tmp.file("views.safetensors");
    save_safetensors(path, tensors);
    const StateDict loaded = load_safetensors(path);
    REQUIRE(loaded.size() == tensors.size());
    // Named members, not a structured binding: clang 14 cannot capture one in CAPTURE/INFO.
    for (const auto& entry : loaded) {
      const auto& name = entry.first;
      const auto& t = entry.second;
      CAPTURE(name);
      const auto it =
          std::find_if(tensors.begin(), tensors.end(), [&](const auto& p) { return p.first == name; });
      REQUIRE(it != tensors.end());
      check_same(t, it->second);
    }
  }
}

TEST_CASE("safetensors: metadata, unusual names and an empty file round-trip") {
  ScratchDir tmp;
  const std::string path = tmp.file("meta.safetensors");
  const SafetensorsMetadata metadata = {{"format", "pt"}, {"note", "caf\xc3\xa9 \"quoted\"\n\\ tab\t"}};
  const StateDict tensors = {{"layer.0\"weird\\name", filled({2}, DType::Float32)},
                                {"\xce\xbb.weight", filled({3}, DType::Int32)},
                                {"", filled({}, DType::Float64)}};
  save_safetensors(path, tensors, metadata);
  CHECK(load_safetensors_metadata(path) == metadata);
  const StateDict loaded = load_safetensors(path);
  REQUIRE(loaded.size() == 3);
  for (const auto& entry : tensors) {
    const auto& name = entry.first;
    const auto& t = entry.second;
    const auto it =
        std::find_if(loaded.begin(), loaded.end(), [&](const auto& p) { return p.first == name; });
    REQUIRE(it != loaded.end());
    check_same(it->second, t);
  }

  save_safetensors(path, {});
  CHECK(read_file(path) == file_bytes("{}      "));
  CHECK(load_safetensors(path).empty());
  CHECK(load_safetensors_metadata(path).empty());
}

TEST_CASE("safetensors: output is byte-identical to the format's reference layout") {
  ScratchDir tmp;
  const std::string path = tmp.file("exact.safetensors");
  Tensor t = Tensor::allocate({1, 2, 3}, DType::Float32);
  for (int i = 0; i < 6; ++i) t.data<float>()[i] = static_cast<float>(i);
  save_safetensors(path, {{"attn.0", t}});
  // 64 header bytes: already a multiple of 8, so no padding.
  const std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  REQUIRE(header.size() == 64);
  CHECK(read_file(path) == file_bytes(header, raw<float>({0, 1, 2, 3, 4, 5})));

  save_safetensors(path, {}, {{"framework", "pt"}});
  CHECK(read_file(path) == file_bytes(R"({"__metadata__":{"framework":"pt"}})"
                                       "     "));
}

TEST_CASE("safetensors: entries are ordered by descending alignment then name, header padded to 8") {
  ScratchDir tmp;
  const std::string path = tmp.file("order.safetensors");
  const StateDict tensors = {{"b", filled({2}, DType::Float32)},  {"m", filled({3}, DType::Bool)},
                                {"a", filled({1}, DType::Float32)},  {"z", filled({2}, DType::Int64)},
                                {"h", filled({3}, DType::BFloat16)}, {"i", filled({1}, DType::Int32)},
                                {"d", filled({1}, DType::Float64)},  {"u", filled({2}, DType::UInt8)},
                                {"c", filled({2}, DType::Int8)}};
  save_safetensors(path, tensors, {{"k", "v"}});
  const std::string bytes = read_file(path);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  CHECK(n % 8 == 0);
  const std::string header = bytes.substr(8, n);
  const size_t end = header.find_last_not_of(' ');
  CHECK(header[end] == '}');
  const auto json = nlohmann::ordered_json::parse(header);
  std::vector<std::string> keys;
  int64_t expected_begin = 0;
  for (const auto& [key, value] : json.items()) {
    keys.push_back(key);
    if (key == "__metadata__") continue;
    CHECK(value["data_offsets"][0].get<int64_t>() == expected_begin);
    expected_begin = value["data_offsets"][1].get<int64_t>();
  }
  // safetensors' Dtype enum, descending: I64, F64, F32, I32, BF16, I8, U8, BOOL.
  CHECK(keys == std::vector<std::string>{"__metadata__", "z", "d", "a", "b", "i", "h", "c", "u", "m"});
  CHECK(bytes.size() == 8 + n + static_cast<size_t>(expected_begin));
  // load_safetensors keeps the file's order.
  std::vector<std::string> loaded_names;
  for (const auto& [name, t] : load_safetensors(path)) loaded_names.push_back(name);
  CHECK(loaded_names == std::vector<std::string>(keys.begin() + 1, keys.end()));
}

TEST_CASE("safetensors: reads a file laid out as Python's writer does (spaces, escapes, metadata first)") {
  ScratchDir tmp;
  const std::string path = tmp.file("python.safetensors");
  // Python's json.dumps separators and \u escapes; one gap-free data section in header order.
  std::string header =
      R"({"__metadata__": {"format": "pt"}, "steps": {"dtype": "I64", "shape": [], "data_offsets": [0, 8]}, )"
      R"("w\u00e9": {"dtype": "F32", "shape": [2, 1], "data_offsets": [8, 16]}, )"
      R"("half": {"dtype": "BF16", "shape": [2], "data_offsets": [16, 20]}, )"
      R"("mask": {"dtype": "BOOL", "shape": [3], "data_offsets": [20, 23]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  const std::string data = raw<int64_t>({-123456789012345}) + raw<float>({1.5f, -2.25f}) +
                           raw<uint16_t>({0x3fc0, 0xc040}) + std::string("\x01\x00\x01", 3);
  write_file_bytes(path, file_bytes(header, data));

  CHECK(load_safetensors_metadata(path) == SafetensorsMetadata{{"format", "pt"}});
  const StateDict loaded = load_safetensors(path);
  REQUIRE(loaded.size() == 4);
  CHECK(loaded[0].first == "steps");
  CHECK(loaded[0].second.dim() == 0);
  CHECK(loaded[0].second.item<int64_t>() == -123456789012345);
  CHECK(loaded[1].first == "w\xc3\xa9");
  CHECK(loaded[1].second.shape() == Shape{2, 1});
  CHECK(loaded[1].second.data<float>()[0] == 1.5f);
  CHECK(loaded[1].second.data<float>()[1] == -2.25f);
  CHECK(loaded[2].second.dtype() == DType::BFloat16);
  CHECK(static_cast<float>(loaded[2].second.data<BFloat16>()[0]) == 1.5f);
  CHECK(static_cast<float>(loaded[2].second.data<BFloat16>()[1]) == -3.0f);
  const bool* mask = loaded[3].second.data<bool>();
  CHECK((mask[0] && !mask[1] && mask[2]));
}

// ---- rejection: every problem is a tl::Error naming the file ----

struct Rejection {
  ScratchDir tmp;
  std::string path = tmp.file("bad.safetensors");
  std::string message(const std::string& tail) const { return "safetensors: " + path + ": " + tail; }
};

#define CHECK_REJECTED(bytes, tail)                                                   \
  do {                                                                                \
    Rejection r;                                                                      \
    write_file_bytes(r.path, bytes);                                                       \
    const std::string expected = r.message(tail);                                     \
    CHECK_THROWS_WITH_AS(load_safetensors(r.path), expected.c_str(), Error);          \
    CHECK_THROWS_WITH_AS(load_safetensors_metadata(r.path), expected.c_str(), Error); \
  } while (false)

// One F32 [2] tensor "w" whose entry is `entry`, followed by `data`.
std::string one_entry(const std::string& entry, const std::string& data = std::string(8, '\0')) {
  return file_bytes(R"({"w":)" + entry + "}", data);
}

TEST_CASE("safetensors: missing file and non-regular file") {
  ScratchDir tmp;
  const std::string missing = tmp.file("absent.safetensors");
  CHECK_THROWS_WITH_AS(load_safetensors(missing), ("safetensors: " + missing + ": file not found").c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(load_safetensors(tmp.path().string()),
                       ("safetensors: " + tmp.path().string() + ": not a regular file").c_str(), Error);
}

TEST_CASE("safetensors: file shorter than the 8-byte length") {
  CHECK_REJECTED(std::string(), "the file is 0 bytes, shorter than the 8-byte header length");
  CHECK_REJECTED(std::string("\x02\x00\x00\x00\x00", 5),
                 "the file is 5 bytes, shorter than the 8-byte header length");
}

TEST_CASE("safetensors: header length beyond the file or absurdly large") {
  CHECK_REJECTED(le64(1000) + "{}", "header length 1000 runs past the end of the file (10 bytes)");
  CHECK_REJECTED(le64(100'000'001) + "{}", "header length 100000001 exceeds the limit of 100000000 bytes");
  CHECK_REJECTED(le64(UINT64_MAX) + "{}",
                 "header length 18446744073709551615 exceeds the limit of 100000000 bytes");
}

TEST_CASE("safetensors: invalid JSON") {
  for (const std::string& text : {std::string(R"({"w": {)"), std::string(""), std::string("{\"\xff\": {}}"),
                                  std::string(R"({"w": 1} trailing)")}) {
    CAPTURE(text);
    Rejection r;
    write_file_bytes(r.path, file_bytes(text));
    CHECK_THROWS_WITH_AS(load_safetensors(r.path),
                         doctest::Contains(r.message("invalid JSON header (").c_str()), Error);
  }
}

TEST_CASE("safetensors: JSON header that is not an object") {
  CHECK_REJECTED(file_bytes("[1, 2]"), "the JSON header is array, expected an object");
  CHECK_REJECTED(file_bytes(R"("text")"), "the JSON header is string, expected an object");
  CHECK_REJECTED(file_bytes("42"), "the JSON header is number, expected an object");
  // An object inside a top-level array has keys before any top-level name (found by the fuzzer).
  CHECK_REJECTED(file_bytes(R"([{"a": 1, "a": 2}])"), "the JSON header is array, expected an object");
}

TEST_CASE("safetensors: entry missing a field") {
  CHECK_REJECTED(one_entry(R"({"shape":[2],"data_offsets":[0,8]})"), "tensor 'w' has no 'dtype' field");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","data_offsets":[0,8]})"), "tensor 'w' has no 'shape' field");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2]})"), "tensor 'w' has no 'data_offsets' field");
}

TEST_CASE("safetensors: entry fields of the wrong type") {
  CHECK_REJECTED(one_entry("[1]"),
                 "tensor 'w' is [1], expected an object with dtype, shape and data_offsets");
  CHECK_REJECTED(one_entry(R"({"dtype":32,"shape":[2],"data_offsets":[0,8]})"),
                 "tensor 'w': dtype is 32, expected a string");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":"2","data_offsets":[0,8]})"),
                 "tensor 'w': shape is \"2\", expected an array of integers");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2.0],"data_offsets":[0,8]})"),
                 "tensor 'w': shape holds 2.0, expected an integer");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0]})"),
                 "tensor 'w': data_offsets is [0], expected [begin, end]");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2],"data_offsets":{"begin":0}})"),
                 "tensor 'w': data_offsets is {\"begin\":0}, expected [begin, end]");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,"8"]})"),
                 "tensor 'w': data_offsets holds \"8\", expected an integer");
  CHECK_REJECTED(file_bytes(R"({"__metadata__":[1]})"),
                 "__metadata__ is array, expected an object of strings");
  CHECK_REJECTED(file_bytes(R"({"__metadata__":{"epoch":3}})"),
                 "__metadata__ value for 'epoch' is 3, expected a string");
}

TEST_CASE("safetensors: unknown or unsupported dtype") {
  CHECK_REJECTED(one_entry(R"({"dtype":"Q4","shape":[2],"data_offsets":[0,8]})"),
                 "tensor 'w': unsupported dtype 'Q4' (supported: F32, F64, I64, I32, BOOL, BF16)");
  CHECK_REJECTED(one_entry(R"({"dtype":"F16","shape":[4],"data_offsets":[0,8]})"),
                 "tensor 'w': unsupported dtype 'F16' (supported: F32, F64, I64, I32, BOOL, BF16)");
}

TEST_CASE("safetensors: negative or too large dimensions") {
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2,-1],"data_offsets":[0,8]})"),
                 "tensor 'w': negative dimension -1 in shape [2, -1]");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[9223372036854775808],"data_offsets":[0,8]})"),
                 "tensor 'w': shape value 9223372036854775808 is too large");
}

TEST_CASE("safetensors: element count overflowing int64") {
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]})"),
                 "tensor 'w': shape [4294967296, 4294967296] of F32 needs more bytes than int64 can count");
  CHECK_REJECTED(one_entry(R"({"dtype":"F64","shape":[1152921504606846976,8],"data_offsets":[0,8]})"),
                 "tensor 'w': shape [1152921504606846976, 8] of F64 needs more bytes than int64 can count");
}

TEST_CASE("safetensors: byte range size different from numel * element size") {
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2,2],"data_offsets":[0,12]})", std::string(16, '\0')),
                 "tensor 'w': data_offsets [0, 12] hold 12 bytes but shape [2, 2] of F32 needs 16");
  CHECK_REJECTED(one_entry(R"({"dtype":"I64","shape":[0],"data_offsets":[0,8]})"),
                 "tensor 'w': data_offsets [0, 8] hold 8 bytes but shape [0] of I64 needs 0");
}

TEST_CASE("safetensors: byte range outside the data section, checked before allocating") {
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})"),
                 "tensor 'w': data_offsets [0, 16] lie outside the data section of 8 bytes");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[1],"data_offsets":[8,4]})"),
                 "tensor 'w': data_offsets [8, 4] end before they begin");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[-4,4]})"),
                 "tensor 'w': data_offsets [-4, 4] lie outside the data section of 8 bytes");
  // A header promising a terabyte must fail without trying to allocate it.
  reset_peak_bytes();
  const int64_t before = allocator_stats().bytes_in_use;
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[274877906944],"data_offsets":[0,1099511627776]})"),
                 "tensor 'w': data_offsets [0, 1099511627776] lie outside the data section of 8 bytes");
  CHECK(allocator_stats().peak_bytes - before < (1 << 20));
}

TEST_CASE("safetensors: overlapping tensors") {
  CHECK_REJECTED(file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                            std::string(12, '\0')),
                 "tensors 'a' [0, 8) and 'b' [4, 12) overlap");
  CHECK_REJECTED(file_bytes(R"({"b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]},)"
                            R"("a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})",
                            std::string(8, '\0')),
                 "tensors 'a' [0, 8) and 'b' [4, 8) overlap");
}

TEST_CASE("safetensors: duplicate names") {
  CHECK_REJECTED(file_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                            R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                            std::string(8, '\0')),
                 "the name 'a' appears more than once in the header");
}

TEST_CASE("safetensors: a field given twice in one entry, or a metadata key given twice") {
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2],"dtype":"F64","data_offsets":[0,8]})"),
                 "tensor 'w' has the field 'dtype' more than once");
  CHECK_REJECTED(one_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8],"shape":[2]})"),
                 "tensor 'w' has the field 'shape' more than once");
  CHECK_REJECTED(file_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                            R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8],"data_offsets":[4,8]}})",
                            std::string(8, '\0')),
                 "tensor 'b' has the field 'data_offsets' more than once");
  CHECK_REJECTED(file_bytes(R"({"__metadata__":{"k":"1","k":"2"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                            std::string(8, '\0')),
                 "__metadata__ has the key 'k' more than once");
  // The same field name in two entries is no repetition.
  Rejection r;
  write_file_bytes(r.path, file_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                 R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                 std::string(8, '\0')));
  CHECK(load_safetensors(r.path).size() == 2);
}

TEST_CASE("safetensors: BOOL bytes other than 0 and 1") {
  Rejection r;
  write_file_bytes(r.path, file_bytes(R"({"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})",
                                 std::string("\x01\x02\x00", 3)));
  CHECK_THROWS_WITH_AS(load_safetensors(r.path),
                       r.message("tensor 'm': BOOL element 1 holds byte 2, expected 0 or 1").c_str(), Error);
}

// ---- save errors ----

struct TestProxy : ProxyTag {
  std::string describe() const override { return "test proxy"; }
};

TEST_CASE("safetensors: save rejects what cannot be written and leaves an existing file untouched") {
  ScratchDir tmp;
  const std::string path = tmp.file("keep.safetensors");
  const Tensor w = filled({2}, DType::Float32);
  save_safetensors(path, {{"w", w}});
  const std::string original = read_file(path);
  const auto rejected = [&](const StateDict& tensors, const std::string& tail) {
    CHECK_THROWS_WITH_AS(save_safetensors(path, tensors), ("safetensors: " + path + ": " + tail).c_str(),
                         Error);
  };
  rejected({{"w", w}, {"w", w}}, "the name 'w' is given to more than one tensor");
  rejected({{"b", Tensor()}}, "tensor 'b' is undefined (None)");
  rejected({{"__metadata__", w}}, "'__metadata__' is reserved and cannot name a tensor");
  rejected({{"p", Tensor::make_proxy(std::make_shared<TestProxy>(), Shape{2})}},
           "tensor 'p' is a symbolic proxy and has no data");
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"bad\xff", w}}), doctest::Contains("is not valid UTF-8"),
                       Error);
  CHECK_THROWS_WITH_AS(save_safetensors(path, {}, {{"k", "\xc3"}}), doctest::Contains("is not valid UTF-8"),
                       Error);
  CHECK(read_file(path) == original);
  CHECK(std::distance(fs::directory_iterator(tmp.path()), fs::directory_iterator()) == 1);

  const std::string unwritable = tmp.file("no_such_dir/x.safetensors");
  CHECK_THROWS_WITH_AS(save_safetensors(unwritable, {{"w", w}}),
                       ("safetensors: " + unwritable + ": creating a temporary file in " + tmp.file("no_such_dir") +
                        " failed (No such file or directory)")
                           .c_str(),
                       Error);
}

TEST_CASE("safetensors: a save that fails mid-write (EFBIG) leaves the old file and no temporary") {
  testing::ScratchDir dir;
  const std::string path = dir.file("keep.safetensors");
  save_safetensors(path, {{"w", filled({2}, DType::Float32)}});
  const std::string original = read_file(path);
  {
    testing::FileSizeLimit limit(4096);
    CHECK_THROWS_WITH_AS(save_safetensors(path, {{"big", filled({10'000}, DType::Float32)}}),
                         ("safetensors: " + path + ": writing failed (File too large)").c_str(), Error);
  }
  CHECK(read_file(path) == original);
  CHECK(testing::dir_entries(dir.path()) == std::vector<std::string>{"keep.safetensors"});
}

TEST_CASE("safetensors: JSON nested deeper than 128 levels is refused before anything recurses") {
  // A 2 MB header of nested arrays: printing it for the error message used to recurse per level.
  const std::string deep = R"({"w":)" + std::string(1'000'000, '[') + std::string(1'000'000, ']') + "}";
  CHECK_REJECTED(file_bytes(deep), "the JSON header nests deeper than 128 levels");
  // An unknown field nesting `arrays` levels inside the header object and the entry object.
  const auto nested = [](int arrays) {
    return file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":)" + std::string(arrays, '[') +
                          std::string(arrays, ']') + "}}",
                      std::string(8, '\0'));
  };
  Rejection r;
  write_file_bytes(r.path, nested(126));
  CHECK(load_safetensors(r.path).size() == 1);
  CHECK_REJECTED(nested(127), "the JSON header nests deeper than 128 levels");
}

TEST_CASE("safetensors: a header of 100,000 entries loads in its own order") {
  // Read into a map-backed JSON value (ordered_json's linear key search made 10^6 entries take
  // minutes); the order of the text must survive that.
  constexpr int kEntries = 100'000;
  std::string header = "{";
  std::string data;
  for (int i = 0; i < kEntries; ++i) {
    const int id = (i * 7919) % kEntries;  // names out of sorted order
    header += detail::str_cat(i ? "," : "", "\"t", id, "\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[", 4 * i,
                              ",", 4 * i + 4, "]}");
    data += raw<int32_t>({id});
  }
  Rejection r;
  write_file_bytes(r.path, file_bytes(header + "}", data));
  const StateDict loaded = load_safetensors(r.path);
  REQUIRE(loaded.size() == kEntries);
  int misplaced = 0;
  for (int i = 0; i < kEntries; ++i) {
    const int id = (i * 7919) % kEntries;
    misplaced += loaded[i].first != detail::str_cat("t", id) || loaded[i].second.item<int32_t>() != id;
  }
  CHECK(misplaced == 0);
}

TEST_CASE("safetensors: a zero-size tensor loads if its other dimensions multiply within int64") {
  Rejection r;
  write_file_bytes(r.path, file_bytes(R"({"z":{"dtype":"F64","shape":[0,2147483648,2147483648],"data_offsets":[0,0]}})"));
  const StateDict loaded = load_safetensors(r.path);
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0].second.numel() == 0);
  CHECK(loaded[0].second.shape() == Shape{0, int64_t{1} << 31, int64_t{1} << 31});
  CHECK(loaded[0].second.is_contiguous());
}

TEST_CASE("safetensors: a zero-size tensor whose other dimensions overflow int64 is refused") {
  // Found by fuzzing, twice: is_contiguous() multiplied such dimensions, then numel_of overflowed on the
  // second shape before it reached the 0 (signed overflow under UBSan).
  CHECK_REJECTED(file_bytes(R"({"z":{"dtype":"F64","shape":[0,4611686018427387904,4611686018427387904],)"
                            R"("data_offsets":[0,0]}})"),
                 "tensor 'z': shape [0, 4611686018427387904, 4611686018427387904] is too large: its nonzero "
                 "dimensions multiply past int64");
  CHECK_REJECTED(file_bytes(R"({"z":{"dtype":"F64","shape":[1,46,1680,46,2,398077446655380,46,0,87904],)"
                            R"("data_offsets":[0,0]}})"),
                 "tensor 'z': shape [1, 46, 1680, 46, 2, 398077446655380, 46, 0, 87904] is too large: its "
                 "nonzero dimensions multiply past int64");
}

std::vector<std::byte> as_byte_vector(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

TEST_CASE("safetensors: a file held in memory loads exactly as from disk, and fails the same way") {
  ScratchDir tmp;
  const std::string path = tmp.file("all.safetensors");
  StateDict tensors;
  for (DType dtype : kAllDTypes) tensors.emplace_back(detail::str_cat(dtype), filled({2, 3}, dtype));
  save_safetensors(path, tensors);
  const StateDict from_file = load_safetensors(path);
  const StateDict from_memory = load_safetensors(as_byte_vector(read_file(path)));
  REQUIRE(from_memory.size() == from_file.size());
  for (size_t i = 0; i < from_file.size(); ++i) {
    CHECK(from_memory[i].first == from_file[i].first);
    check_same(from_memory[i].second, from_file[i].second);
  }
  const std::string bytes = read_file(path);
  CHECK_THROWS_WITH_AS(load_safetensors(as_byte_vector(bytes.substr(0, bytes.size() - 4)), "upload"),
                       doctest::Contains("safetensors: upload: tensor '"), Error);
  CHECK_THROWS_WITH_AS(load_safetensors(std::span<const std::byte>()),
                       "safetensors: <bytes>: the file is 0 bytes, shorter than the 8-byte header length", Error);
}

TEST_CASE("safetensors: a .gz path is written gzip'd and read back, header, metadata and tensors") {
  ScratchDir tmp;
  const std::string path = tmp.file("all.safetensors.gz");
  StateDict tensors;
  for (DType dtype : kAllDTypes) tensors.emplace_back(detail::str_cat(dtype), filled({2, 3}, dtype));
  tensors.emplace_back("empty", filled({0, 4}, DType::Float32));
  tensors.emplace_back("big", filled({300, 301}, DType::Float64));  // more than a gzip reader's chunk
  save_safetensors(path, tensors, {{"format", "pt"}});
  CHECK(read_file(path).substr(0, 2) == "\x1f\x8b");
  const StateDict loaded = load_safetensors(path);
  REQUIRE(loaded.size() == tensors.size());
  for (const auto& entry : tensors) {
    const std::string& name = entry.first;
    CAPTURE(name);
    const auto it = std::find_if(loaded.begin(), loaded.end(), [&](const auto& e) { return e.first == name; });
    REQUIRE(it != loaded.end());
    check_same(it->second, entry.second);
  }
  CHECK(load_safetensors_metadata(path) == SafetensorsMetadata{{"format", "pt"}});

  // A damaged or cut stream is reported as the gzip reader words it, after the file's name.
  const std::string bytes = read_file(path);
  const std::string cut = tmp.file("cut.safetensors.gz");
  write_file_bytes(cut, bytes.substr(0, bytes.size() / 2));
  CHECK_THROWS_WITH_AS(load_safetensors(cut), doctest::Contains(("safetensors: " + cut + ": truncated gzip data").c_str()),
                       Error);
  const std::string plain = tmp.file("plain.safetensors.gz");
  write_file_bytes(plain, file_bytes("{}"));
  CHECK_THROWS_WITH_AS(load_safetensors_metadata(plain),
                       ("safetensors: " + plain + ": corrupt gzip data at byte 2: not a gzip file (bad magic bytes)").c_str(),
                       Error);
  // The checks of an uncompressed file hold for the decompressed bytes.
  const std::string short_header = tmp.file("short.safetensors.gz");
  write_file(short_header, le64(100) + "{}", "test");
  CHECK_THROWS_WITH_AS(load_safetensors(short_header),
                       ("safetensors: " + short_header + ": header length 100 runs past the end of the file (10 bytes)")
                           .c_str(),
                       Error);
}

// ---- nn::save / nn::load ----

std::shared_ptr<Sequential> small_model() {
  return std::make_shared<Sequential>(std::make_shared<Conv2d>(3, 4, 3), std::make_shared<BatchNorm2d>(4),
                                      std::make_shared<Linear>(5, 2));
}

StateDict snapshot(const Module& m) {
  StateDict out;
  for (const auto& [name, t] : m.state_dict()) out.emplace_back(name, t.clone());
  return out;
}

void check_state_equal(const Module& m, const StateDict& expected) {
  const StateDict actual = m.state_dict();
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    CAPTURE(actual[i].first);
    CHECK(actual[i].first == expected[i].first);
    CHECK(actual[i].second.dtype() == expected[i].second.dtype());
    CHECK_TENSOR_CLOSE(actual[i].second, expected[i].second, 0.0, 0.0);
  }
}

TEST_CASE("serialize: save then load restores every parameter and buffer under PyTorch's names") {
  ScratchDir tmp;
  const std::string path = tmp.file("model.safetensors");
  auto source = small_model();
  Module& bn = *source->get_submodule("1");
  bn.buffer("running_mean").copy_(filled({4}, DType::Float32));
  bn.buffer("running_var").copy_(filled({4}, DType::Float32).abs());
  bn.buffer("num_batches_tracked").copy_(scalar_tensor(int64_t{42}, DType::Int64));
  save(*source, path, {{"format", "pt"}});

  std::vector<std::string> names;
  for (const auto& [name, t] : load_safetensors(path)) names.push_back(name);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"0.bias", "0.weight", "1.bias", "1.num_batches_tracked",
                                          "1.running_mean", "1.running_var", "1.weight", "2.bias",
                                          "2.weight"});
  CHECK(load_safetensors_metadata(path) == SafetensorsMetadata{{"format", "pt"}});

  auto target = small_model();
  const StateDict handles = target->state_dict();
  const IncompatibleKeys keys = load(*target, path);
  CHECK(keys.missing_keys.empty());
  CHECK(keys.unexpected_keys.empty());
  check_state_equal(*target, snapshot(*source));
  const StateDict after = target->state_dict();
  for (size_t i = 0; i < handles.size(); ++i) CHECK(after[i].second.is_same(handles[i].second));
}

TEST_CASE("serialize: a module saved to a .gz path loads back from it") {
  ScratchDir tmp;
  const std::string path = tmp.file("model.safetensors.gz");
  auto source = small_model();
  save(*source, path);
  auto target = small_model();
  load(*target, path);
  check_state_equal(*target, snapshot(*source));
}

TEST_CASE("serialize: save leaves a user's <path>.tmp alone") {
  testing::ScratchDir dir;
  const std::string path = dir.file("model.safetensors");
  testing::write_file_bytes(path + ".tmp", "the user's own file");
  auto source = small_model();
  save(*source, path);
  CHECK(testing::read_file(path + ".tmp") == "the user's own file");
  auto target = small_model();
  load(*target, path);
  check_state_equal(*target, snapshot(*source));
  CHECK(testing::dir_entries(dir.path()) ==
        std::vector<std::string>{"model.safetensors", "model.safetensors.tmp"});
}

TEST_CASE("serialize: two threads saving to one path both succeed and leave a valid file") {
  testing::ScratchDir dir;
  const std::string path = dir.file("model.safetensors");
  std::vector<std::shared_ptr<Sequential>> models = {small_model(), small_model()};
  std::vector<int> failures(models.size(), 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < models.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        try {
          save(*models[t], path);
        } catch (const Error&) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failures == std::vector<int>{0, 0});
  auto target = small_model();
  load(*target, path);
  const Tensor loaded = target->state_dict()[0].second;
  const bool from_first = tl::equal(loaded, models[0]->state_dict()[0].second);
  check_state_equal(*target, snapshot(*models[from_first ? 0 : 1]));
  CHECK(testing::dir_entries(dir.path()) == std::vector<std::string>{"model.safetensors"});
}

TEST_CASE("serialize: load converts dtypes as load_state_dict does") {
  ScratchDir tmp;
  const std::string path = tmp.file("f64.safetensors");
  auto source = small_model();
  StateDict wide;
  for (const auto& [name, t] : source->state_dict()) {
    wide.emplace_back(name, t.dtype() == DType::Float32 ? t.to(DType::Float64) : t);
  }
  save_safetensors(path, wide);
  auto target = small_model();
  load(*target, path);
  check_state_equal(*target, snapshot(*source));
}

TEST_CASE("serialize: a failed load leaves the module unchanged") {
  ScratchDir tmp;
  auto target = small_model();
  const StateDict before = snapshot(*target);

  const std::string other = tmp.file("other.safetensors");
  save(Sequential(std::make_shared<Conv2d>(3, 4, 5), std::make_shared<BatchNorm2d>(4),
                  std::make_shared<Linear>(5, 2)),
       other);
  CHECK_THROWS_WITH_AS(
      load(*target, other),
      ("load: " + other +
       ": Error(s) in loading state_dict for Sequential:\n\t"
       "size mismatch for 0.weight: copying a param with shape [4, 3, 5, 5] from checkpoint, "
       "the shape in current model is [4, 3, 3, 3].")
          .c_str(),
      Error);
  check_state_equal(*target, before);

  const std::string partial = tmp.file("partial.safetensors");
  save(Sequential(std::make_shared<Conv2d>(3, 4, 3)), partial);
  CHECK_THROWS_WITH_AS(load(*target, partial),
                       doctest::Contains("Missing key(s) in state_dict: \"1.weight\""), Error);
  check_state_equal(*target, before);

  const std::string truncated = tmp.file("truncated.safetensors");
  save(*small_model(), truncated);
  fs::resize_file(truncated, fs::file_size(truncated) - 4);
  CHECK_THROWS_WITH_AS(load(*target, truncated), doctest::Contains("lie outside the data section"), Error);
  check_state_equal(*target, before);

  CHECK_THROWS_WITH_AS(load(*target, tmp.file("absent.safetensors")), doctest::Contains("file not found"),
                       Error);
  check_state_equal(*target, before);
}

TEST_CASE("serialize: strict=false loads the matching keys and reports the others") {
  ScratchDir tmp;
  const std::string path = tmp.file("conv_only.safetensors");
  auto conv = std::make_shared<Conv2d>(3, 4, 3);
  save(Sequential(conv), path);
  auto target = small_model();
  const IncompatibleKeys keys = load(*target, path, /*strict=*/false);
  // 1.num_batches_tracked loads as 0, as PyTorch's batch norm does for a dict without version metadata.
  CHECK(keys.missing_keys == std::vector<std::string>{"1.weight", "1.bias", "1.running_mean", "1.running_var",
                                                      "2.weight", "2.bias"});
  CHECK(keys.unexpected_keys.empty());
  CHECK_TENSOR_CLOSE(target->get_parameter("0.weight"), conv->parameter("weight"), 0.0, 0.0);
}

TEST_CASE("serialize: load from memory restores the module, and a failed one changes nothing") {
  ScratchDir tmp;
  const std::string path = tmp.file("model.safetensors");
  auto source = small_model();
  save(*source, path);
  const std::vector<std::byte> bytes = as_byte_vector(read_file(path));
  auto target = small_model();
  const IncompatibleKeys keys = load(*target, bytes);
  CHECK(keys.missing_keys.empty());
  CHECK(keys.unexpected_keys.empty());
  check_state_equal(*target, snapshot(*source));

  auto other = std::make_shared<Sequential>(std::make_shared<Conv2d>(3, 4, 3));
  const StateDict before = snapshot(*other);
  CHECK_THROWS_WITH_AS(load(*other, bytes),
                       doctest::Contains("load: <bytes>: Error(s) in loading state_dict for Sequential:\n\t"
                                         "Unexpected key(s) in state_dict: \"1.num_batches_tracked\", \"1.bias\""),
                       Error);
  check_state_equal(*other, before);
  CHECK(load(*other, bytes, /*strict=*/false).unexpected_keys.size() == 7);
}

TEST_CASE("serialize: float counters that int64 cannot hold load as PyTorch loads them on x86") {
  // Found by fuzzing: NaN, inf and 1e30 were cast to int64 (undefined behaviour) on their way into
  // num_batches_tracked. They now become INT64_MIN, as cvttss2si gives PyTorch.
  for (float value : {std::nanf(""), INFINITY, -INFINITY, 1e30f, -1e30f}) {
    CAPTURE(value);
    auto model = small_model();
    StateDict tensors;
    for (const auto& [name, t] : model->state_dict())
      tensors.emplace_back(name, name == "1.num_batches_tracked" ? full({}, value) : t.clone());
    ScratchDir tmp;
    save_safetensors(tmp.file("counter.safetensors"), tensors);
    load(*model, tmp.file("counter.safetensors"));
    CHECK(model->get_buffer("1.num_batches_tracked").item<int64_t>() == std::numeric_limits<int64_t>::min());
  }
}

}  // namespace
}  // namespace tl::nn
