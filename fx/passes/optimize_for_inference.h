// fx/passes/optimize_for_inference.h — our torch.jit.optimize_for_inference: conv-bn folding, ReLU and
// residual add folded into oneDNN convs, activations kept in blocked (fp32) or NHWC (bf16) layouts
// between ops, weights prepacked, and a per-shape plan running in one liveness-planned arena.
#pragma once

#include <memory>

#include "fx/passes/inference_plan.h"

namespace tl::fx {

enum class InferencePrecision { Float32, BFloat16 };

struct InferenceOptions {
  /// BFloat16: bf16 weights and NHWC bf16 activations (the logits stay float32; expect ~1% error).
  InferencePrecision precision = InferencePrecision::Float32;
  /// Float32 3x3 stride-1 convs use oneDNN's Winograd kernels: ~1.6x faster on ResNet18, packed weights of those
  /// convs up to 4x larger, and a deep net's logits about twice as far from eager's as with direct convolution
  /// (inception_v3: 1.2e-4 of their scale against 6e-5; docs/fx.md).
  bool winograd = true;
  /// Each rewrite below can be turned off (to bisect a numerical difference or measure its effect);
  /// the result computes the same function either way.
  /// Conv2d -> BatchNorm2d pairs folded into the conv (fuse_conv_bn).
  bool fold_conv_bn = true;
  /// Conv2d become MkldnnConv2d and activations stay in the inference layouts between them; when false,
  /// nothing below applies either and the graph stays on the eager ops.
  bool inference_layouts = true;
  /// A ReLU after a conv (or after its folded residual add) folded into the MkldnnConv2d.
  bool fuse_relu = true;
  /// A residual add after a conv folded into the MkldnnConv2d (an int8 one's quantized add into the
  /// quantized conv) as oneDNN's sum post-op.
  bool fuse_add = true;
  /// Linear become MkldnnLinear (oneDNN's matmul, the weight prepacked, bias and a following GELU folded in).
  bool inference_linear = true;
  /// Pools reading an inference-layout activation swapped for their inference versions (MkldnnMaxPool2d,
  /// MkldnnAdaptiveAvgPool2d) instead of converting back to dense NCHW before them.
  bool inference_pools = true;
  /// The input shape primitives, prepacked weights and the arena are prepared for while optimizing
  /// (other shapes are prepared on first use); empty to prepare nothing.
  Shape example_input_shape{1, 3, 224, 224};
};

/// A new module computing `module`'s function (eval mode) faster. `module` (traced first unless it is
/// a GraphModule) is never modified. The graph is rewritten as follows (each step has a switch in
/// `options`):
///   - Conv2d -> BatchNorm2d pairs are folded (fuse_conv_bn);
///   - Conv2d [-> ReLU] and Conv2d -> add(., residual) [-> ReLU] become one call_module to an
///     MkldnnConv2d (the conv's output must have that single user, the conv one call site), with
///     Winograd for float32 3x3 stride-1 convs unless options.winograd is false;
///   - in a converted int8 graph (ao::quantization::convert_fx), a quantized conv whose result only a
///     torch.ops.quantized.add(_relu) reads becomes one call_module (x, other) of the conv with the add
///     folded in (FusesQuantizedAdd: QuantizedConvAdd(ReLU)2d, oneDNN's sum post-op), computing the same
///     integers;
///   - Linear [-> GELU(approximate='none')] (GELU the Linear result's only user) becomes one call_module
///     to an MkldnnLinear (the Linear one call site), on dense tensors;
///   - MaxPool2d / AdaptiveAvgPool2d (one table in the .cpp) whose input is in an inference layout
///     become MkldnnMaxPool2d / MkldnnAdaptiveAvgPool2d;
///   - torch.to_mkldnn / torch.to_dense nodes convert at the boundaries (an fp32 conv takes the dense
///     image itself), so everything else (flatten, MkldnnLinear, ...) still sees dense NCHW float32.
/// The result prints, interprets and profiles like any GraphModule; its forward() runs compiled plans.
/// Throws tl::Error if `module` is in training mode.
std::shared_ptr<InferenceGraphModule> optimize_for_inference(const std::shared_ptr<nn::Module>& module,
                                                             const InferenceOptions& options = {});

}  // namespace tl::fx
