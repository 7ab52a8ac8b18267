// data/digits.h — the UCI handwritten digits as scikit-learn ships them (sklearn.datasets.load_digits):
// 1797 8x8 images, read from its gzip'd CSV (64 pixel values, then the label, per row).
#pragma once

#include <string>

#include "data/dataset.h"

namespace tl::data {

/// Where Debian's python3-sklearn installs the file (a test and example dependency, not a runtime one).
inline constexpr const char* kDigitsPath = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";

/// The digits as a TensorDataset: data float32 (N, 1, 8, 8) holding the file's values 0..16 unscaled
/// (sklearn's load_digits().images; divide by 16 for [0, 1]), target int64 (N) holding 0..9. Rows are
/// kept in the file's order; empty lines are skipped, as numpy.loadtxt skips them. Throws tl::Error
/// naming the path, and the line for a bad row: a file that cannot be opened, gzip data that is corrupt
/// or truncated, a row without 65 comma-separated fields (a line of spaces too), a field that is not a
/// number, a pixel outside 0..16, a label that is not a whole number in 0..9, or no rows at all.
TensorDataset load_digits(const std::string& path = kDigitsPath);

}  // namespace tl::data
