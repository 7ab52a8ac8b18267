// core/return_types.h — torch.return_types: the named (values, indices) results of ops such as max and
// min along a dim, sort, topk and kthvalue. Each is an aggregate of two Tensors, so
// `auto [values, indices] = x.max(1);` works.
#pragma once

#include <ostream>
#include <string_view>

namespace tl {
class Tensor;

namespace return_types {

/// (values, indices) of the op that `Op::name` names; prints as PyTorch prints its named tuple:
/// "torch.return_types.max(\nvalues=tensor([5., 4.]),\nindices=tensor([1, 0]))". (`T` is always Tensor:
/// a template parameter lets core/tensor.h name these types before Tensor is complete.)
template <class Op, class T = Tensor>
struct ValuesIndices {
  T values;
  T indices;

  friend std::ostream& operator<<(std::ostream& os, const ValuesIndices& r) {
    return os << "torch.return_types." << Op::name << "(\nvalues=" << r.values << ",\nindices=" << r.indices << ")";
  }
};

namespace names {
struct Max { static constexpr std::string_view name = "max"; };
struct Min { static constexpr std::string_view name = "min"; };
struct Sort { static constexpr std::string_view name = "sort"; };
struct Topk { static constexpr std::string_view name = "topk"; };
struct Kthvalue { static constexpr std::string_view name = "kthvalue"; };
}  // namespace names

using max = ValuesIndices<names::Max>;
using min = ValuesIndices<names::Min>;
using sort = ValuesIndices<names::Sort>;
using topk = ValuesIndices<names::Topk>;
using kthvalue = ValuesIndices<names::Kthvalue>;

}  // namespace return_types
}  // namespace tl
