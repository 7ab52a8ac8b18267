// ops/einsum.cpp — einsum, as ATen's: the equation is parsed into labels, each operand is aligned (a
// diagonal per repeated label, unsqueezed missing labels) to (output dims, contraction dims), and the
// operands contract left to right through sum, mul and bmm, so autograd records those ops.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "core/op_args.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

constexpr int kLabels = 52;  // A-Z, then a-z (the implicit output's order)
constexpr int kEllipsis = kLabels;

bool is_label(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
int label_index(unsigned char c) { return c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char label_char(int i) { return static_cast<char>(i < 26 ? 'A' + i : 'a' + i - 26); }

// Each operand's labels (kEllipsis for "..."), from the equation's left-hand side.
std::vector<std::vector<int>> parse_operands(const std::string& lhs, size_t num_ops) {
  std::vector<std::vector<int>> labels(num_ops);
  bool found_ellipsis = false;
  size_t op = 0;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const unsigned char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      TL_CHECK(!found_ellipsis, "einsum(): found '.' for operand ", op, " for which an ellipsis was already found");
      TL_CHECK(i + 2 < lhs.size() && lhs[++i] == '.' && lhs[++i] == '.', "einsum(): found '.' for operand ", op,
               " that is not part of any ellipsis");
      labels[op].push_back(kEllipsis);
      found_ellipsis = true;
    } else if (c == ',') {
      ++op;
      TL_CHECK(op < num_ops, "einsum(): fewer operands were provided than specified in the equation");
      found_ellipsis = false;
    } else {
      TL_CHECK(is_label(c), "einsum(): invalid subscript given at index ", i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      labels[op].push_back(label_index(c));
    }
  }
  TL_CHECK(op == num_ops - 1, "einsum(): more operands were provided than specified in the equation");
  return labels;
}

// ATen's sumproduct_pair: left * right summed over sum_dims, through one bmm. Both have the same rank
// (size-1 dims broadcast); the result keeps every dim, the summed ones as size 1.
Tensor sumproduct_pair(Tensor left, Tensor right, const std::vector<int64_t>& sum_dims) {
  const int64_t rank = left.dim();
  std::vector<bool> summed(static_cast<size_t>(rank), false);
  for (int64_t d : sum_dims) summed[d] = true;
  Shape lro, lo, ro;
  int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t i = 0; i < rank; ++i) {
    const bool sl = left.size(i) != 1, sr = right.size(i) != 1;
    if (summed[i]) {
      if (sl && sr) sum_size *= left.size(i);
      else if (sl) left = left.sum(i, true);
      else if (sr) right = right.sum(i, true);
    } else if (sl && sr) {
      lro.push_back(i);
      lro_size *= left.size(i);
    } else if (sl) {
      lo.push_back(i);
      lo_size *= left.size(i);
    } else {
      ro.push_back(i);
      ro_size *= right.size(i);
    }
  }
  Shape out_size, lperm, rperm, operm(static_cast<size_t>(rank), 0);
  for (int64_t d : lro) out_size.push_back(left.size(d));
  for (int64_t d : lo) out_size.push_back(left.size(d));
  for (size_t k = 0; k < sum_dims.size(); ++k) out_size.push_back(1);
  for (int64_t d : ro) out_size.push_back(right.size(d));
  Shape sums(std::vector<int64_t>(sum_dims.begin(), sum_dims.end()));
  for (const Shape* part : {&lro, &lo, &sums, &ro})
    for (int64_t d : *part) lperm.push_back(d);
  for (const Shape* part : {&lro, &sums, &ro, &lo})
    for (int64_t d : *part) rperm.push_back(d);
  for (int64_t i = 0; i < rank; ++i) operm[lperm[i]] = i;
  left = left.permute(lperm).reshape({lro_size, lo_size, sum_size});
  right = right.permute(rperm).reshape({lro_size, sum_size, ro_size});
  return left.bmm(right).view(out_size).permute(operm);
}

// Moves dim `from` of x to position `to` (the others keep their order).
Tensor move_dim(const Tensor& x, int64_t from, int64_t to) {
  Shape order;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != from) order.push_back(d);
  order.insert(to, from);
  return x.permute(order);
}

}  // namespace

Tensor einsum(std::span<const Tensor> operands, const EinsumArgs& args) {
  const std::string& equation = args.equation;
  TL_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  const size_t num_ops = operands.size();
  const std::string arrow_text = "->";
  const size_t arrow = equation.find(arrow_text);
  const std::string lhs = equation.substr(0, arrow);
  const std::vector<std::vector<int>> op_labels = parse_operands(lhs, num_ops);

  std::array<int64_t, kLabels> label_count{};
  int64_t ell_num_dim = 0;
  for (size_t i = 0; i < num_ops; ++i) {
    const int64_t ndims = operands[i].dim();
    int64_t nlabels = static_cast<int64_t>(op_labels[i].size());
    const bool has_ellipsis = std::count(op_labels[i].begin(), op_labels[i].end(), kEllipsis) > 0;
    if (has_ellipsis) --nlabels;
    for (int label : op_labels[i])
      if (label != kEllipsis) ++label_count[label];
    if (has_ellipsis) {
      TL_CHECK(nlabels <= ndims, "einsum(): the number of subscripts in the equation (", nlabels,
               ") is more than the number of dimensions (", ndims, ") for operand ", i);
      ell_num_dim = std::max(ell_num_dim, ndims - nlabels);
    } else {
      TL_CHECK(nlabels == ndims, "einsum(): the number of subscripts in the equation (", nlabels,
               ") does not match the number of dimensions (", ndims, ") for operand ", i, " and no ellipsis was given");
    }
  }

  // Every label's position in the aligned shape: the output's dims first, then the contracted ones.
  std::array<int64_t, kLabels> perm_index;
  perm_index.fill(-1);
  int64_t next = 0, ell_index = 0;
  bool found_ellipsis = false;
  if (arrow == std::string::npos) {  // implicit output: the ellipsis, then the labels seen once, A-Z a-z
    next = ell_num_dim;
    found_ellipsis = true;
    for (int label = 0; label < kLabels; ++label)
      if (label_count[label] == 1) perm_index[label] = next++;
  } else {
    const std::string rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      const unsigned char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        TL_CHECK(!found_ellipsis, "einsum(): found '.' for output but an ellipsis (...) was already found");
        TL_CHECK(i + 2 < rhs.size() && rhs[++i] == '.' && rhs[++i] == '.',
                 "einsum(): found '.' for output that is not part of any ellipsis (...)");
        ell_index = next;
        next += ell_num_dim;
        found_ellipsis = true;
        continue;
      }
      TL_CHECK(is_label(c), "einsum(): invalid subscript given at index ", lhs.size() + 2 + i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      const int label = label_index(c);
      TL_CHECK(label_count[label] > 0 && perm_index[label] == -1, "einsum(): output subscript ", c,
               perm_index[label] > -1 ? " appears more than once in the output"
                                      : " does not appear in the equation for any input operand");
      perm_index[label] = next++;
    }
  }
  const int64_t out_size = next;
  if (!found_ellipsis) {
    ell_index = next;
    next += ell_num_dim;
  }
  for (int label = 0; label < kLabels; ++label)
    if (label_count[label] > 0 && perm_index[label] == -1) perm_index[label] = next++;
  const int64_t total = next;

  // Each operand aligned to the `total` dims: a diagonal per repeated label, size 1 for missing ones.
  std::vector<Tensor> aligned;
  std::array<int64_t, kLabels> label_size;
  label_size.fill(-1);
  std::vector<int64_t> ell_size(static_cast<size_t>(ell_num_dim), 1);
  for (size_t i = 0; i < num_ops; ++i) {
    Tensor operand = operands[i];
    const std::vector<int>& labels = op_labels[i];
    Shape perm(static_cast<size_t>(total), -1);
    std::array<int64_t, kLabels> label_dim;
    label_dim.fill(-1);
    int64_t j = 0;
    for (int label : labels) {
      if (label == kEllipsis) {
        const int64_t missing = ell_num_dim - (operands[i].dim() - static_cast<int64_t>(labels.size()) + 1);
        for (int64_t k = 0; k < missing; ++k) operand = operand.unsqueeze(j);
        for (int64_t k = 0; k < ell_num_dim; ++k) {
          const int64_t size = operand.size(j);
          TL_CHECK(ell_size[k] == size || ell_size[k] == 1 || size == 1, "einsum(): dimension ", k,
                   " covered by ellipsis in operand ", i, " has size ", size,
                   " which does not broadcast with previously seen ellipsis with size ", ell_size[k],
                   " for the respective dimension");
          if (size != 1) ell_size[k] = size;
          perm[ell_index + k] = j++;
        }
      } else if (label_dim[label] != -1) {
        const int64_t dim = label_dim[label];
        TL_CHECK(operand.size(j) == operand.size(dim), "einsum(): subscript ", label_char(label),
                 " is repeated for operand ", i, " but the sizes don't match, ", operand.size(j), " != ",
                 operand.size(dim));
        operand = move_dim(operand.diagonal(0, dim, j), operand.dim() - 2, dim);
      } else {
        const int64_t size = operand.size(j);
        TL_CHECK(label_size[label] == -1 || label_size[label] == size || label_size[label] == 1 || size == 1,
                 "einsum(): subscript ", label_char(label), " has size ", size, " for operand ", i,
                 " which does not broadcast with previously seen size ", label_size[label]);
        if (label_size[label] == -1 || label_size[label] == 1) label_size[label] = size;
        label_dim[label] = j;
        perm[perm_index[label]] = j++;
      }
    }
    for (int64_t& index : perm) {
      if (index == -1) {
        operand = operand.unsqueeze(-1);
        index = j++;
      }
    }
    aligned.push_back(operand.permute(perm));
  }

  // The last operand with a size other than 1 in each dim (the sizes broadcast, checked above): a
  // contracted dim is summed there.
  std::vector<size_t> dim_last_op(static_cast<size_t>(total), 0);
  for (int64_t d = 0; d < total; ++d)
    for (size_t i = 1; i < num_ops; ++i)
      if (aligned[i].size(d) != 1) dim_last_op[d] = i;
  Tensor result = aligned[0];
  int64_t dim = out_size;
  for (int64_t d = out_size; d < total; ++d, ++dim) {
    if (dim_last_op[d] != 0) continue;
    result = result.size(dim) == 1 ? result.squeeze(dim) : result.sum(dim);
    --dim;
  }
  for (size_t i = 1; i < num_ops; ++i) {
    Tensor operand = aligned[i];
    std::vector<int64_t> sum_dims;
    dim = out_size;
    for (int64_t d = out_size; d < total; ++d, ++dim) {
      if (dim_last_op[d] < i) {
        operand = operand.squeeze(dim);
        --dim;
      } else if (dim_last_op[d] == i) {
        if (result.size(dim) == 1) {
          operand = operand.sum(dim);
          result = result.squeeze(dim);
          --dim;
        } else {
          sum_dims.push_back(dim);
        }
      }
    }
    if (sum_dims.empty()) {
      result = result.mul(operand);
    } else {
      result = sumproduct_pair(result, operand, sum_dims);
      for (auto d = sum_dims.rbegin(); d != sum_dims.rend(); ++d) result = result.squeeze(*d);
    }
  }
  return result;
}

}  // namespace tl::kernels
