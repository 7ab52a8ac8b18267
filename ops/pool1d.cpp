// ops/pool1d.cpp — max_pool1d_with_indices, avg_pool1d, adaptive_avg_pool1d and adaptive_max_pool1d as ATen's
// composites: the 2-d pool over self.unsqueeze(-2), squeezed back, recorded op by op (autograd differentiates
// the 2-d pool; the profiler shows its tree). max_pool1d's own kernel is in ops/pool.cpp.
#include <tuple>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/onednn/window.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

using onednn::check_pool1d_input;
using onednn::pool1d_value;

Shape pair_of(const onednn::Pair& p) { return Shape{p[0], p[1]}; }

}  // namespace

// self (N, C, L) or (C, L) -> (values, indices), both (N, C, L_out); indices int64 positions along L.
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, const MaxPool1dWithIndicesArgs& args) {
  const char* op = "max_pool1d_with_indices";
  const onednn::PoolParams p =
      onednn::pool1d_params(op, args.kernel_size, args.stride, args.padding, args.dilation, args.ceil_mode);
  check_pool1d_input(op, self);
  auto [values, indices] = tl::max_pool2d_with_indices(self.unsqueeze(-2), pair_of(p.kernel), pair_of(p.stride),
                                                       pair_of(p.padding), pair_of(p.dilation), p.ceil_mode);
  return {values.squeeze(-2), indices.squeeze(-2)};
}

// self (N, C, L) or (C, L) -> (N, C, L_out).
Tensor avg_pool1d(const Tensor& self, const AvgPool1dArgs& args) {
  const char* op = "avg_pool1d";
  const onednn::PoolParams p =
      onednn::pool1d_params(op, args.kernel_size, args.stride, args.padding, IntList{Shape{1}, true}, args.ceil_mode);
  check_pool1d_input(op, self);
  return tl::avg_pool2d(self.unsqueeze(-2), pair_of(p.kernel), pair_of(p.stride), pair_of(p.padding), p.ceil_mode,
                        args.count_include_pad)
      .squeeze(-2);
}

// self (N, C, L) or (C, L) -> (N, C, output_size).
Tensor adaptive_avg_pool1d(const Tensor& self, const AdaptiveAvgPool1dArgs& args) {
  const char* op = "adaptive_avg_pool1d";
  const int64_t size = pool1d_value(op, args.output_size, "output_size");
  check_pool1d_input(op, self);
  return tl::adaptive_avg_pool2d(self.unsqueeze(-2), Shape{1, size}).squeeze(-2);
}

// self (N, C, L) or (C, L) -> (values, indices), both (N, C, output_size); indices int64 positions along L.
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, const AdaptiveMaxPool1dArgs& args) {
  const char* op = "adaptive_max_pool1d";
  const int64_t size = pool1d_value(op, args.output_size, "output_size");
  check_pool1d_input(op, self);
  auto [values, indices] = tl::adaptive_max_pool2d(self.unsqueeze(-2), Shape{1, size});
  return {values.squeeze(-2), indices.squeeze(-2)};
}

}  // namespace tl::kernels
