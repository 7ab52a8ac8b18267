// data/dataset.cpp — index checks for every data set; TensorDataset's rows, Subset's remapping and
// ConcatDataset's search of its cumulative sizes.
#include "data/dataset.h"

#include <algorithm>
#include <utility>

#include "core/error.h"

namespace tl::data {

Example Dataset::get(int64_t index) const {
  const int64_t n = size();
  TL_CHECK(index >= 0 && index < n, "Dataset: index ", index, " is out of range for a dataset of size ", n);
  return fetch(index);
}

TensorDataset::TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
  TL_CHECK(data_.defined() && target_.defined(), "TensorDataset: expected defined data and target tensors");
  TL_CHECK(data_.dim() >= 1 && target_.dim() >= 1, "TensorDataset: expected data and target with a dim 0 ",
           "(the example index), got data ", data_.shape(), " and target ", target_.shape());
  TL_CHECK(data_.size(0) == target_.size(0), "TensorDataset: data and target must share dim 0 (the example ",
           "index), got data ", data_.shape(), " and target ", target_.shape());
}

Example TensorDataset::fetch(int64_t index) const { return {data_.select(0, index), target_.select(0, index)}; }

Subset::Subset(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> indices)
    : dataset_(std::move(dataset)), indices_(std::move(indices)) {
  TL_CHECK(dataset_ != nullptr, "Subset: expected a dataset, got null");
  const int64_t n = dataset_->size();
  for (size_t i = 0; i < indices_.size(); ++i)
    TL_CHECK(indices_[i] >= 0 && indices_[i] < n, "Subset: index ", indices_[i], " at position ", i,
             " is out of range for a dataset of size ", n);
}

Example Subset::fetch(int64_t index) const { return dataset_->get(indices_[static_cast<size_t>(index)]); }

ConcatDataset::ConcatDataset(std::vector<std::shared_ptr<const Dataset>> datasets) : datasets_(std::move(datasets)) {
  TL_CHECK(!datasets_.empty(), "ConcatDataset: datasets should not be an empty iterable");
  int64_t total = 0;
  for (size_t i = 0; i < datasets_.size(); ++i) {
    TL_CHECK(datasets_[i] != nullptr, "ConcatDataset: expected a dataset at position ", i, ", got null");
    total += datasets_[i]->size();
    cumulative_sizes_.push_back(total);
  }
}

Example ConcatDataset::fetch(int64_t index) const {
  const auto k = std::upper_bound(cumulative_sizes_.begin(), cumulative_sizes_.end(), index) - cumulative_sizes_.begin();
  const int64_t offset = k == 0 ? 0 : cumulative_sizes_[static_cast<size_t>(k - 1)];
  return datasets_[static_cast<size_t>(k)]->get(index - offset);
}

}  // namespace tl::data
