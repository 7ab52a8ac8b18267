// tests/nn/test_archive.cpp — OutputArchive / InputArchive round trips of tensors, numbers and strings
// (a model's state dict beside an epoch counter), the committed file tests/tools/test_load_archive.py
// reads in Python, and each misuse refused with the archive left as it was.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "nn/archive.h"
#include "nn/linear.h"
#include "nn/safetensors.h"
#include "ops/ops.h"
#include "tests/support/file_testing.h"
#include "tests/support/tensor_check.h"

namespace tl::serialize {
namespace {

using testing::read_file;
using testing::ScratchDir;
using testing::write_file_bytes;

// The archive committed as tests/nn/data/archive.safetensors; test_load_archive.py checks its values.
OutputArchive fixture_archive() {
  OutputArchive archive;
  archive.write("epoch", 3);
  archive.write("lr", 0.1);
  archive.write("best", -std::numeric_limits<double>::infinity());
  archive.write("resumed", true);
  archive.write("name", "digits \xe2\x84\x93");  // "digits ℓ"
  archive.write("big", std::numeric_limits<int64_t>::min());
  archive.write("weights", arange(0, 6, 1, DType::Float32).reshape({2, 3}).div(4.0));
  archive.write("counts", from_vector<int64_t>({5, -7, 1LL << 40}, {3}));
  archive.write("mask", from_vector<double>({1, 0, 1, 1}, {2, 2}).to(DType::Bool));
  archive.write("half", from_vector<double>({1.5, -2.25}, {2}).to(DType::BFloat16));
  archive.write("model", nn::StateDict{{"fc.weight", full({2, 2}, 0.5)}, {"fc.bias", from_vector<double>({-1, 2}, {2})}});
  return archive;
}

TEST_CASE("archive: every value type reads back as written, keys in the order written") {
  ScratchDir dir;
  fixture_archive().save_to(dir.file("a.safetensors"));
  InputArchive archive;
  archive.load_from(dir.file("a.safetensors"));
  CHECK(archive.keys() == std::vector<std::string>{"epoch", "lr", "best", "resumed", "name", "big", "weights", "counts",
                                                   "mask", "half", "model.fc.weight", "model.fc.bias"});
  int64_t epoch = 0, big = 0;
  double lr = 0.0, best = 0.0;
  bool resumed = false;
  std::string name;
  archive.read("epoch", epoch);
  archive.read("big", big);
  archive.read("lr", lr);
  archive.read("best", best);
  archive.read("resumed", resumed);
  archive.read("name", name);
  CHECK(epoch == 3);
  CHECK(big == std::numeric_limits<int64_t>::min());
  CHECK(lr == 0.1);
  CHECK(best == -std::numeric_limits<double>::infinity());
  CHECK(resumed);
  CHECK(name == "digits \xe2\x84\x93");
  Tensor weights, counts, mask, half;
  archive.read("weights", weights);
  archive.read("counts", counts);
  archive.read("mask", mask);
  archive.read("half", half);
  CHECK_TENSOR_CLOSE(weights, arange(0, 6, 1, DType::Float32).reshape({2, 3}).div(4.0), 0.0, 0.0);
  CHECK(counts.dtype() == DType::Int64);
  CHECK(std::vector<int64_t>(counts.data<int64_t>(), counts.data<int64_t>() + 3) ==
        std::vector<int64_t>{5, -7, 1LL << 40});
  CHECK(mask.dtype() == DType::Bool);
  CHECK(half.dtype() == DType::BFloat16);
  CHECK_TENSOR_CLOSE(half.to(DType::Float64), from_vector<double>({1.5, -2.25}, {2}), 0.0, 0.0);
  nn::StateDict model;
  archive.read("model", model);
  REQUIRE(model.size() == 2);
  CHECK(model[0].first == "fc.weight");
  CHECK(model[1].first == "fc.bias");
  CHECK(model[1].second.dtype() == DType::Float64);
  CHECK_TENSOR_CLOSE(model[1].second, from_vector<double>({-1, 2}, {2}), 0.0, 0.0);
}

TEST_CASE("archive: a path ending in .gz is gzip'd and reads back") {
  ScratchDir dir;
  fixture_archive().save_to(dir.file("a.safetensors.gz"));
  CHECK(read_file(dir.file("a.safetensors.gz")).substr(0, 2) == "\x1f\x8b");
  InputArchive archive;
  archive.load_from(dir.file("a.safetensors.gz"));
  std::string name;
  archive.read("name", name);
  CHECK(name == "digits \xe2\x84\x93");
  CHECK(archive.keys().size() == 12);
}

TEST_CASE("archive: a checkpoint of a model's state dict and an epoch restores the model") {
  ScratchDir dir;
  tl::manual_seed(0);
  nn::Linear trained(3, 2), fresh(3, 2);
  OutputArchive out;
  out.write("epoch", 7);
  out.write("model", trained.state_dict());
  out.save_to(dir.file("ckpt.safetensors"));
  InputArchive in;
  in.load_from(dir.file("ckpt.safetensors"));
  nn::StateDict weights;
  in.read("model", weights);
  fresh.load_state_dict(weights);
  const nn::StateDict before = trained.state_dict(), after = fresh.state_dict();
  REQUIRE(after.size() == 2);
  for (size_t i = 0; i < after.size(); ++i) CHECK_TENSOR_CLOSE(after[i].second, before[i].second, 0.0, 0.0);
}

TEST_CASE("archive: OutputArchive writes tests/nn/data/archive.safetensors byte for byte") {
  ScratchDir dir;
  fixture_archive().save_to(dir.file("a.safetensors"));
  const std::string committed = read_file("tests/nn/data/archive.safetensors");
  REQUIRE_MESSAGE(!committed.empty(), "tests/nn/data/archive.safetensors not found (run from the project root)");
  CHECK(read_file(dir.file("a.safetensors")) == committed);
}

TEST_CASE("archive: a bad write is refused and leaves the archive as it was") {
  OutputArchive archive;
  archive.write("epoch", 1);
  CHECK_THROWS_WITH_AS(archive.write("epoch", 2), "OutputArchive: key 'epoch' was already written", Error);
  CHECK_THROWS_WITH_AS(archive.write("", 2), "OutputArchive: expected a non-empty key", Error);
  CHECK_THROWS_WITH_AS(archive.write("__metadata__", 2),
                       "OutputArchive: the key \"__metadata__\" is reserved by safetensors", Error);
  CHECK_THROWS_WITH_AS(archive.write("t", Tensor()), "OutputArchive: expected a defined tensor for key 't'", Error);
  CHECK_THROWS_WITH_AS(archive.write("n", std::numeric_limits<uint64_t>::max()),
                       "OutputArchive: integer 18446744073709551615 for key 'n' is beyond int64", Error);
  CHECK_THROWS_WITH_AS(archive.write("m", nn::StateDict{{"a", zeros({1})}, {"b", Tensor()}}),
                       "OutputArchive: expected a defined tensor for key 'm.b'", Error);
  CHECK_THROWS_WITH_AS(archive.write("m", nn::StateDict{{"a", zeros({1})}, {"a", zeros({1})}}),
                       "OutputArchive: key 'm.a' was already written", Error);
  REQUIRE(archive.entries().size() == 1);
  CHECK(archive.entries()[0].first == "epoch");
  ScratchDir dir;
  archive.write("bad", std::string("\xff"));
  CHECK_THROWS_WITH_AS(archive.save_to(dir.file("x.safetensors")),
                       doctest::Contains("a key or string value is not valid UTF-8"), Error);
  CHECK(testing::dir_entries(dir.path()).empty());
}

TEST_CASE("archive: a header past the 100 MB every reader refuses is refused by the writer, the old file kept") {
  ScratchDir dir;
  const std::string path = dir.file("big.safetensors");
  OutputArchive small;
  small.write("epoch", 1);
  small.save_to(path);
  const std::string before = read_file(path);
  OutputArchive archive;
  archive.write("notes", std::string(100'000'000, 'a'));  // JSON quotes and the archive's own entries add more
  std::string message;
  try {
    archive.save_to(path);
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message.starts_with("safetensors: " + path + ": the header would be 1000000"));
  CHECK(message.ends_with(" bytes, more than the 100000000 bytes a reader takes (long strings in the metadata, or very "
                          "many tensors)"));
  CHECK(read_file(path) == before);
  CHECK(testing::dir_entries(dir.path()).size() == 1);
  // whatever the writer writes, the reader reads: the largest string that fits comes back
  OutputArchive fits;
  fits.write("notes", std::string(99'999'000, 'a'));
  fits.save_to(path);
  InputArchive in;
  in.load_from(path);
  std::string notes;
  in.read("notes", notes);
  CHECK(notes.size() == 99'999'000);
}

TEST_CASE("archive: a missing key and a read of the wrong type are refused, the target unchanged") {
  ScratchDir dir;
  fixture_archive().save_to(dir.file("a.safetensors"));
  InputArchive archive;
  archive.load_from(dir.file("a.safetensors"));
  int64_t epoch = -1;
  CHECK_THROWS_WITH_AS(archive.read("epochs", epoch),
                       ("InputArchive: no key 'epochs' in " + dir.file("a.safetensors")).c_str(), Error);
  double lr = -1.0;
  CHECK_THROWS_WITH_AS(archive.read("epoch", lr), "InputArchive: key 'epoch' holds a int, not a float", Error);
  std::string name = "kept";
  CHECK_THROWS_WITH_AS(archive.read("weights", name), "InputArchive: key 'weights' holds a tensor, not a str", Error);
  Tensor t;
  CHECK_THROWS_WITH_AS(archive.read("resumed", t), "InputArchive: key 'resumed' holds a bool, not a tensor", Error);
  nn::StateDict dict = {{"kept", zeros({1})}};
  CHECK_THROWS_WITH_AS(archive.read("optimizer", dict),
                       ("InputArchive: no tensor under 'optimizer.' in " + dir.file("a.safetensors")).c_str(), Error);
  CHECK(epoch == -1);
  CHECK(lr == -1.0);
  CHECK(name == "kept");
  CHECK(!t.defined());
  CHECK(dict.size() == 1);
  CHECK_THROWS_WITH_AS(InputArchive().read("x", epoch), "InputArchive: no key 'x' in an empty archive", Error);
  CHECK(archive.contains("lr"));
  CHECK(!archive.contains("model"));
}

TEST_CASE("archive: bytes (the generator's state) read back as written, and resume its stream") {
  ScratchDir dir;
  manual_seed(7);
  OutputArchive out;
  out.write("rng_state", get_rng_state());
  out.write("empty", std::vector<uint8_t>{});
  out.write("all", [] {
    std::vector<uint8_t> all(256);
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint8_t>(i);
    return all;
  }());
  CHECK_THROWS_WITH_AS(out.write("all", std::vector<uint8_t>{1}), "OutputArchive: key 'all' was already written", Error);
  CHECK(out.entries().size() == 3);
  const Tensor drawn = rand({5});
  out.save_to(dir.file("rng.safetensors"));

  InputArchive in;
  in.load_from(dir.file("rng.safetensors"));
  std::vector<uint8_t> state, empty = {9}, all;
  in.read("rng_state", state);
  in.read("empty", empty);
  in.read("all", all);
  CHECK(state.size() == 5056);
  CHECK(empty.empty());
  REQUIRE(all.size() == 256);
  CHECK(all[0] == 0);
  CHECK(all[171] == 171);
  CHECK(all[255] == 255);
  set_rng_state(state);
  CHECK_TENSOR_CLOSE(rand({5}), drawn, 0.0, 0.0);

  std::vector<uint8_t> kept = {1, 2};
  CHECK_THROWS_WITH_AS(in.read("missing", kept),
                       ("InputArchive: no key 'missing' in " + dir.file("rng.safetensors")).c_str(), Error);
  int64_t number = -1;
  CHECK_THROWS_WITH_AS(in.read("all", number), "InputArchive: key 'all' holds a bytes, not a int", Error);
  CHECK(kept == std::vector<uint8_t>{1, 2});
  CHECK(number == -1);
}

// Writes a safetensors file with one F32 tensor "t" and `entry` as its archive metadata.
std::string with_entry(const ScratchDir& dir, const std::string& entry) {
  const std::string path = dir.file("bad.safetensors");
  nn::save_safetensors(path, {{"t", zeros({2})}}, {{"torchless.archive", entry}});
  return path;
}

TEST_CASE("archive: a truncated, foreign or malformed file is refused and the archive kept") {
  ScratchDir dir;
  const std::string good = dir.file("a.safetensors");
  fixture_archive().save_to(good);
  InputArchive archive;
  archive.load_from(good);
  const std::vector<std::string> keys = archive.keys();

  const std::string bytes = read_file(good);
  write_file_bytes(dir.file("cut.safetensors"), bytes.substr(0, bytes.size() - 5));
  CHECK_THROWS_WITH_AS(archive.load_from(dir.file("cut.safetensors")), doctest::Contains("cut.safetensors"), Error);
  CHECK_THROWS_WITH_AS(archive.load_from(dir.file("none.safetensors")), doctest::Contains("file not found"), Error);
  nn::save_safetensors(dir.file("plain.safetensors"), {{"t", zeros({2})}});
  CHECK_THROWS_WITH_AS(archive.load_from(dir.file("plain.safetensors")),
                       ("InputArchive: " + dir.file("plain.safetensors") +
                        ": not a torchless archive (no \"torchless.archive\" entry in __metadata__)").c_str(),
                       Error);
  const std::string prefix = "InputArchive: " + dir.file("bad.safetensors") + ": ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1, 2]", "the \"torchless.archive\" entry is not a JSON object with an \"entries\" list"},
      {"{\"version\": 1", "the \"torchless.archive\" entry is not a JSON object with an \"entries\" list"},
      {"{\"version\": 2, \"entries\": []}", "expected archive version 1"},
      {"{\"version\": 1, \"entries\": [[\"t\"]]}", "an entry is not [key, type] or [key, type, text] of strings"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"tensor\"], [\"t\", \"tensor\"]]}", "key 't' appears twice"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"list\", \"\"]]}", "entry 't' has an unknown type 'list'"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"tensor\", \"1\"]]}", "entry 't' of type tensor has a text"},
      {"{\"version\": 1, \"entries\": [[\"n\", \"int\"]]}", "entry 'n' of type int has no text"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"tensor\"], [\"n\", \"int\", \"1.5\"]]}", "int entry 'n' holds '1.5'"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"tensor\"], [\"x\", \"float\", \"one\"]]}",
       "float entry 'x' holds 'one'"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"tensor\"], [\"b\", \"bool\", \"true\"]]}",
       "bool entry 'b' holds 'true'"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"tensor\"], [\"r\", \"bytes\", \"0a1\"]]}",
       "bytes entry 'r' holds 3 hex digits, an odd number"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"tensor\"], [\"r\", \"bytes\", \"0a+1\"]]}",
       "bytes entry 'r' holds '+1' at byte 1, not two hex digits"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"tensor\"], [\"r\", \"bytes\", \"0x\"]]}",
       "bytes entry 'r' holds '0x' at byte 0, not two hex digits"},
      {"{\"version\": 1, \"entries\": [[\"t\", \"tensor\"], [\"u\", \"tensor\"]]}",
       "tensor entry 'u' has no tensor in the file"},
      {"{\"version\": 1, \"entries\": []}", "tensor 't' has no entry in the archive"},
  };
  for (const auto& c : cases) {
    const auto& entry = c.first;
    const auto& message = c.second;
    CAPTURE(entry);
    CHECK_THROWS_WITH_AS(archive.load_from(with_entry(dir, entry)), (prefix + message).c_str(), Error);
  }
  CHECK(archive.keys() == keys);
  int64_t epoch = 0;
  archive.read("epoch", epoch);
  CHECK(epoch == 3);
}

}  // namespace
}  // namespace tl::serialize
