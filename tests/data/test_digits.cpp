// tests/data/test_digits.cpp — load_digits against scikit-learn (expected.txt: row count, class counts,
// first image) and against the fixtures, each broken in one way, gzip'd here through tl::write_file.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/file_writer.h"
#include "data/digits.h"
#include "ops/ops.h"
#include "tests/data/data_test_util.h"
#include "tests/support/file_testing.h"
#include "tests/support/tensor_check.h"

namespace tl::data {
namespace {

using testing::expected_entries;
using testing::integers;
using tl::testing::read_file;
using tl::testing::ScratchDir;

// Fixture `name` (tests/data/fixtures/) gzip-compressed into `dir`; returns the .gz path.
std::string gzipped_fixture(const ScratchDir& dir, const std::string& name) {
  const std::string text = read_file("tests/data/fixtures/" + name);
  REQUIRE_MESSAGE((!text.empty() || name == "digits_empty.csv"), "fixture missing: ", name);
  const std::string path = dir.file(name + ".gz");
  write_file(path, text, "test fixture");
  return path;
}

TEST_CASE("load_digits: scikit-learn's 1797 digits, as sklearn.datasets.load_digits reads them") {
  REQUIRE_MESSAGE(std::filesystem::exists(kDigitsPath), kDigitsPath, " missing: install python3-sklearn (scripts/deps.sh)");
  const TensorDataset digits = load_digits();
  const int64_t rows = integers(expected_entries("rows")[0]).at(0);
  CHECK(rows == 1797);
  CHECK(digits.size() == rows);
  CHECK(digits.data().shape() == Shape{rows, 1, 8, 8});
  CHECK(digits.data().dtype() == DType::Float32);
  CHECK(digits.target().shape() == Shape{rows});
  CHECK(digits.target().dtype() == DType::Int64);

  std::vector<int64_t> counts(10, 0);
  const int64_t* target = digits.target().data<int64_t>();
  for (int64_t i = 0; i < rows; ++i) {
    REQUIRE((target[i] >= 0 && target[i] <= 9));
    ++counts[static_cast<size_t>(target[i])];
  }
  CHECK(counts == integers(expected_entries("class_counts")[0]));

  const std::vector<int64_t> first = integers(expected_entries("first_image")[0]);
  REQUIRE(first.size() == 64);
  const Example example = digits.get(0);
  CHECK_TENSOR_CLOSE(example.data, from_vector(first, {1, 8, 8}).to(DType::Float32), 0.0, 0.0);
  CHECK(example.target.item<int64_t>() == integers(expected_entries("first_target")[0]).at(0));
  CHECK(tl::min(digits.data()).item<float>() == 0.0f);  // unscaled: the file's 0..16
  CHECK(tl::max(digits.data()).item<float>() == 16.0f);
}

TEST_CASE("load_digits: a small file, rows in order") {
  ScratchDir dir;
  const TensorDataset digits = load_digits(gzipped_fixture(dir, "digits_good.csv"));
  REQUIRE(digits.size() == 3);
  CHECK(digits.target().shape() == Shape{3});
  for (int64_t i = 0; i < 3; ++i) CHECK(digits.get(i).target.item<int64_t>() == i);
  const std::vector<int64_t> first = integers(expected_entries("first_image")[0]);
  CHECK_TENSOR_CLOSE(digits.get(0).data, from_vector(first, {1, 8, 8}).to(DType::Float32), 0.0, 0.0);
  // Windows line ends read the same.
  std::string crlf;
  for (char c : read_file("tests/data/fixtures/digits_good.csv")) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  write_file(dir.file("crlf.csv.gz"), crlf, "test fixture");
  const TensorDataset same = load_digits(dir.file("crlf.csv.gz"));
  CHECK_TENSOR_CLOSE(same.data(), digits.data(), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(same.target(), digits.target(), 0.0, 0.0);
}

TEST_CASE("load_digits: empty lines are skipped anywhere, as numpy.loadtxt (sklearn's reader) skips them") {
  ScratchDir dir;
  const std::string good = read_file("tests/data/fixtures/digits_good.csv");
  const TensorDataset digits = load_digits(gzipped_fixture(dir, "digits_good.csv"));
  const size_t second = good.find('\n') + 1;
  for (const std::string& text : {good + "\n", good + "\n\n", good + "\r\n", "\n" + good,
                                  good.substr(0, second) + "\n" + good.substr(second)}) {
    CAPTURE(text.size());
    write_file(dir.file("blank.csv.gz"), text, "test fixture");
    const TensorDataset same = load_digits(dir.file("blank.csv.gz"));
    CHECK_TENSOR_CLOSE(same.data(), digits.data(), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(same.target(), digits.target(), 0.0, 0.0);
  }
  // A line of spaces is not empty: numpy reads one column there, and refuses it.
  const std::string path = dir.file("spaces.csv.gz");
  write_file(path, good + "  \n", "test fixture");
  CHECK_THROWS_WITH_AS(load_digits(path),
                       ("load_digits: " + path + ":4: expected 65 comma-separated fields (64 pixels, then the label), got 1")
                           .c_str(),
                       Error);
}

TEST_CASE("load_digits: each malformed file is refused, naming the path and the line") {
  ScratchDir dir;
  struct Case {
    std::string fixture, message;
  };
  const std::vector<Case> cases = {
      {"digits_short_row.csv", ":2: expected 65 comma-separated fields (64 pixels, then the label), got 64"},
      {"digits_not_number.csv", ":3: field 10 is not a number: 'x'"},
      {"digits_bad_label.csv", ":2: label 10 is not a digit 0..9"},
      {"digits_bad_pixel.csv", ":1: pixel 17 in field 5 is outside 0..16"},
      {"digits_empty.csv", ": no rows"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.fixture);
    const std::string path = gzipped_fixture(dir, c.fixture);
    CHECK_THROWS_WITH_AS(load_digits(path), ("load_digits: " + path + c.message).c_str(), Error);
  }
}

TEST_CASE("load_digits: a missing file, a directory, a plain file and cut gzip data are refused, naming the path") {
  ScratchDir dir;
  const std::string missing = dir.file("none.csv.gz");
  CHECK_THROWS_WITH_AS(load_digits(missing), ("load_digits: cannot open " + missing + ": No such file or directory").c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(load_digits(dir.path().string()),
                       ("load_digits: cannot open " + dir.path().string() + ": it is a directory").c_str(), Error);
  const std::string plain = dir.file("plain.csv");
  tl::testing::write_file_bytes(plain, read_file("tests/data/fixtures/digits_good.csv"));
  CHECK_THROWS_WITH_AS(load_digits(plain), (plain + ": corrupt gzip data at byte 2: not a gzip file (bad magic bytes)").c_str(),
                       Error);
  const std::string whole = read_file(gzipped_fixture(dir, "digits_good.csv"));
  const std::string cut = dir.file("cut.csv.gz");
  tl::testing::write_file_bytes(cut, whole.substr(0, whole.size() / 2));
  CHECK_THROWS_WITH_AS(load_digits(cut), doctest::Contains((cut + ": truncated gzip data").c_str()), Error);
}

}  // namespace
}  // namespace tl::data
