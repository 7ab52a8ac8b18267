// tests/ops/op_db.h — the one table of op samples (PyTorch's OpInfo): every op row (core/native_functions.toml) has
// an opinfo_<kernel>() here, so an op without samples fails to link the test binary. The special-value
// check (test_special_values.cpp) and the generic checks (test_op_info.cpp) run over it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/op_kind.h"
#include "core/op_list.h"
#include "core/tensor.h"

namespace tl::testing {

/// One way of calling an op on x, y: (1, 2, 4, 4) float32 tensors (x is the one that gets special values).
using SampleFn = std::function<TensorList(const Tensor& x, const Tensor& y)>;

/// A sample, with the generic checks it opts out of; an opt-out always says why ("bug: ..." for a
/// known defect). Built fluently: `Sample{"dim", fn}.sums().generic().no_trace("reads a value")`.
struct Sample {
  std::string name;
  SampleFn fn;
  /// > 0 (ops that sum products): the special-value check allows atol_scale * max |expected| and
  /// ignores the sign of zero; 0 asks for exact zeros and denormals.
  double atol_scale = 0;
  /// Runs on x, y of shape (1, 2, 0, 4): a result then has a zero dimension (or tl::Error is thrown).
  bool shape_generic = false;
  std::string skip_noncontiguous;  ///< why x must be contiguous; empty runs the check
  std::string skip_trace;          ///< why symbolic tracing does not apply; empty runs the check
  std::string skip_profile;        ///< why the profiler check does not apply; empty runs the check

  Sample sums(double scale = 1e-6) const { Sample s = *this; s.atol_scale = scale; return s; }
  Sample generic() const { Sample s = *this; s.shape_generic = true; return s; }
  Sample no_noncontiguous(std::string why) const { Sample s = *this; s.skip_noncontiguous = std::move(why); return s; }
  Sample no_trace(std::string why) const { Sample s = *this; s.skip_trace = std::move(why); return s; }
  Sample no_profile(std::string why) const { Sample s = *this; s.skip_profile = std::move(why); return s; }
};
using Samples = std::vector<Sample>;

// One definition per op row (op_db.cpp); a missing one is an undefined reference.
#define TL_DECLARE_OPINFO(Enum, kernel, aten, schema, pyop, tags, variants) Samples opinfo_##kernel();
TL_FORALL_OPS(TL_DECLARE_OPINFO)
#undef TL_DECLARE_OPINFO

/// The samples of `op` (built once, indexed by OpKind).
const Samples& samples_of(OpKind op);

// ---- the inference ops, called as optimize_for_inference's modules call them ----

/// x (dense NCHW) in the blocked inference layout, or bf16 NHWC for dtype bfloat16.
Tensor to_mkldnn(const Tensor& x, std::optional<DType> dtype = std::nullopt);
/// The dense weight prepacked for input x (bias, residual and ReLU as the conv will use them).
Tensor pack_conv_weight(const Tensor& w, const Tensor& x, Shape padding, bool sum, bool relu, bool winograd);
/// The samples' conv2d weight (3, 2, 3, 3), with exact zeros, and bias (3).
Tensor conv_weight();
Tensor conv_bias();

}  // namespace tl::testing
