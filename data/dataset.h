// data/dataset.h — map-style data sets (torch.utils.data.Dataset): a size and an example per index.
// A data set does not change after construction, so loaders and subsets may share it freely.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"

namespace tl::data {

/// One sample: its input and its label (PyTorch's (data, target) pair). A DataLoader batch is an
/// Example too, each tensor stacked along a new dim 0.
struct Example {
  Tensor data;
  Tensor target;
};

/// An indexed collection of examples. Subclasses implement size() and fetch(); get() checks the index
/// once for all of them.
class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  /// The example at `index` in [0, size()); throws tl::Error naming the index and the size otherwise.
  Example get(int64_t index) const;

 protected:
  /// The example at `index`, already checked to be in range.
  virtual Example fetch(int64_t index) const = 0;
};

/// Examples that are rows of two tensors sharing dim 0 (torch.utils.data.TensorDataset with two
/// tensors): example i is (data[i], target[i]), views of the tensors given.
class TensorDataset : public Dataset {
 public:
  /// Throws tl::Error when a tensor is undefined or 0-dim, or their dim 0 sizes differ.
  TensorDataset(Tensor data, Tensor target);

  int64_t size() const override { return data_.size(0); }
  const Tensor& data() const { return data_; }
  const Tensor& target() const { return target_; }

 protected:
  Example fetch(int64_t index) const override;

 private:
  Tensor data_;
  Tensor target_;
};

/// The examples of `dataset` at `indices`, in that order (torch.utils.data.Subset).
class Subset : public Dataset {
 public:
  /// Throws tl::Error for a null dataset or an index outside [0, dataset->size()), naming its position.
  Subset(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> indices);

  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  const Dataset& dataset() const { return *dataset_; }
  const std::vector<int64_t>& indices() const { return indices_; }

 protected:
  Example fetch(int64_t index) const override;

 private:
  std::shared_ptr<const Dataset> dataset_;
  std::vector<int64_t> indices_;
};

/// The examples of several datasets one after the other (torch.utils.data.ConcatDataset): index i is
/// example i - cumulative_sizes()[k - 1] of the first dataset k whose cumulative size exceeds i.
class ConcatDataset : public Dataset {
 public:
  /// Throws tl::Error for no datasets or a null one, naming its position.
  explicit ConcatDataset(std::vector<std::shared_ptr<const Dataset>> datasets);

  int64_t size() const override { return cumulative_sizes_.back(); }
  const std::vector<std::shared_ptr<const Dataset>>& datasets() const { return datasets_; }
  /// The running totals of the datasets' sizes, as PyTorch's cumulative_sizes.
  const std::vector<int64_t>& cumulative_sizes() const { return cumulative_sizes_; }

 protected:
  Example fetch(int64_t index) const override;

 private:
  std::vector<std::shared_ptr<const Dataset>> datasets_;
  std::vector<int64_t> cumulative_sizes_;
};

}  // namespace tl::data
