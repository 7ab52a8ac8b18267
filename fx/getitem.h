// fx/getitem.h — operator.getitem's key, read and written in this one place: Python's t[i] on a tuple (an
// element of a multi-output node) and x[key] on a tensor (LibTorch's Tensor::index list: ints, slices, None,
// Ellipsis, bools, tensors), from an FX argument when a node is resolved and from an index list when the
// tracer records x.index(...) as torch.fx records x[...].
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "fx/argument.h"
#include "fx/value.h"

namespace tl::fx {

/// A getitem node's key, resolved once (ResolvedCall::key).
class GetItemKey {
 public:
  GetItemKey() = default;
  /// Reads `key`, a getitem node's second argument: an int, slice, None, Ellipsis, bool, node, list of ints,
  /// or a tuple of these. The nodes it names (tensor indices) are appended to `inputs`, in order. Throws
  /// tl::Error naming the node `node_name` and the value for anything else.
  static GetItemKey parse(const Argument& key, std::vector<Node*>& inputs, const std::string& node_name);

  /// The key when it is one int (the only key a tuple takes), else nullopt.
  std::optional<int64_t> tuple_index() const;
  /// Tensor::index's list for x[key], with `tensors` (the values of the key's nodes, in order) put in.
  std::vector<indexing::TensorIndex> index_list(std::span<const Tensor> tensors) const;

 private:
  /// One index; a tensor is the key's `input`-th node, or a list of ints made into an int64 tensor.
  struct Entry {
    indexing::TensorIndex::Kind kind = indexing::TensorIndex::Kind::None;
    int64_t integer = 0;  ///< an int, or a bool as 0 / 1
    indexing::Slice slice;
    int64_t input = -1;
    Shape ints;
  };
  std::vector<Entry> entries_;
  bool tuple_ = false;  ///< written as a tuple (x[a, b]), not one index (x[a])
};

/// The FX argument Python's `x[indices]` records as its key: one index as itself, several as a tuple; a
/// tensor index as `tensor_argument` gives it (its node, or a get_attr of a constant).
Argument getitem_key(std::span<const indexing::TensorIndex> indices,
                     const std::function<Argument(const Tensor&)>& tensor_argument);

/// Runs operator.getitem: the element of a tuple `value` (the key must be an int), else value[key] with
/// `key_tensors` the values of the key's nodes. Throws tl::Error for an out-of-range element or a bad index.
NodeValue getitem(const NodeValue& value, const GetItemKey& key, std::span<const Tensor> key_tensors);

}  // namespace tl::fx
