// data/digits.cpp — scikit-learn's digits.csv.gz, decompressed by core's GzipStreamBuf and parsed row by
// row; every value is checked before the tensors are built.
#include "data/digits.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/error.h"
#include "core/gzip.h"
#include "ops/ops.h"

namespace tl::data {
namespace {

constexpr int64_t kSide = 8;
constexpr int64_t kPixels = kSide * kSide;
constexpr int64_t kFields = kPixels + 1;  // the pixels, then the label

// Field `field` (1-based) of line `line`, which must be a whole decimal number.
double parse_field(std::string_view text, const std::string& path, int64_t line, int64_t field) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  TL_CHECK(ec == std::errc() && end == text.data() + text.size() && std::isfinite(value), "load_digits: ", path,
           ":", line, ": field ", field, " is not a number: '", text, "'");
  return value;
}

// Appends the 64 pixels and the label of one row to `pixels` and `labels`.
void parse_row(std::string_view row, const std::string& path, int64_t line, std::vector<float>& pixels,
               std::vector<int64_t>& labels) {
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    const size_t comma = row.find(',', start);
    fields.push_back(row.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  TL_CHECK(static_cast<int64_t>(fields.size()) == kFields, "load_digits: ", path, ":", line, ": expected ", kFields,
           " comma-separated fields (", kPixels, " pixels, then the label), got ", fields.size());
  for (int64_t i = 0; i < kPixels; ++i) {
    const double value = parse_field(fields[static_cast<size_t>(i)], path, line, i + 1);
    TL_CHECK(value >= 0.0 && value <= 16.0, "load_digits: ", path, ":", line, ": pixel ", value, " in field ", i + 1,
             " is outside 0..16");
    pixels.push_back(static_cast<float>(value));
  }
  const double label = parse_field(fields.back(), path, line, kFields);
  TL_CHECK(label >= 0.0 && label <= 9.0 && label == std::floor(label), "load_digits: ", path, ":", line, ": label ",
           label, " is not a digit 0..9");
  labels.push_back(static_cast<int64_t>(label));
}

}  // namespace

TensorDataset load_digits(const std::string& path) {
  std::error_code ec;
  TL_CHECK(!std::filesystem::is_directory(path, ec), "load_digits: cannot open ", path, ": it is a directory");
  std::ifstream file(path, std::ios::binary);
  TL_CHECK(file.is_open(), "load_digits: cannot open ", path, ": ", std::strerror(errno));
  GzipStreamBuf unzipped(*file.rdbuf(), path);
  std::istream text(&unzipped);
  text.exceptions(std::ios::badbit);  // GzipReader's tl::Error propagates instead of setting badbit
  std::vector<float> pixels;
  std::vector<int64_t> labels;
  std::string row;
  for (int64_t line = 1; std::getline(text, row); ++line) {
    if (!row.empty() && row.back() == '\r') row.pop_back();
    if (row.empty()) continue;  // numpy.loadtxt, sklearn's reader, skips empty lines (not lines of spaces)
    parse_row(row, path, line, pixels, labels);
  }
  TL_CHECK(!labels.empty(), "load_digits: ", path, ": no rows");
  const int64_t n = static_cast<int64_t>(labels.size());
  return TensorDataset(from_vector(pixels, {n, 1, kSide, kSide}), from_vector(labels, {n}));
}

}  // namespace tl::data
