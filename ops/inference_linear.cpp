// ops/inference_linear.cpp — mkldnn_linear and mkldnn_reorder_linear_weight: y = x W^T + b, optionally GELU'd, as
// one oneDNN matmul primitive (cached per rows and features) with the bias and GELU (erf) folded in. The second
// packs a weight once into the layout the primitive picked for itself (format_tag::any), carried by a 1-D tensor
// (ops/onednn/packed.h); the first finds it again and uses it as it is.
#include <memory>
#include <string>
#include <unordered_map>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/warning.h"
#include "ops/inference_layout.h"
#include "ops/ops.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/matmul_primitive.h"
#include "ops/onednn/memory.h"
#include "ops/onednn/packed.h"
#include "ops/onednn/primitive_cache.h"

namespace tl::kernels {
namespace {

/// Everything the primitive depends on besides the data: the input folded to (rows, in_features).
struct LinearSpec {
  int64_t rows = 0, in_features = 0, out_features = 0;
  bool bias = false, gelu = false;

  onednn::PrimitiveKey key() const {
    onednn::PrimitiveKey k("mkldnn_linear");
    k.add(rows).add(in_features).add(out_features).add(int64_t{bias}).add(int64_t{gelu});
    return k;
  }
  std::string context() const {
    return detail::str_cat("input rows ", rows, " of ", in_features, " features, weight [", out_features, ", ",
                           in_features, "]", gelu ? ", gelu" : "");
  }
};

/// The matmul primitive and its layouts: src and dst row-major, weights (in_features, out_features) as oneDNN picked.
struct LinearPlan : onednn::MatmulPrimitive {
  LinearPlan(const dnnl::matmul::primitive_desc& pd, const dnnl::memory::desc& bias)
      : MatmulPrimitive(pd), bias(bias) {}
  dnnl::memory::desc bias;  ///< empty without a bias
};

LinearPlan make_plan(const LinearSpec& s) {
  using dnnl::memory;
  const memory::data_type f32 = memory::data_type::f32;
  const memory::desc src({s.rows, s.in_features}, f32, memory::format_tag::ab);
  const memory::desc weights({s.in_features, s.out_features}, f32, memory::format_tag::any);
  const memory::desc bias({1, s.out_features}, f32, memory::format_tag::ab);
  const memory::desc dst({s.rows, s.out_features}, f32, memory::format_tag::ab);
  dnnl::primitive_attr attr = onednn::default_attr();
  // oneDNN's gelu_erf is what PyTorch's (and our) float32 GELU computes; NaN stays NaN, gelu(-inf) is NaN.
  if (s.gelu) {
    dnnl::post_ops post_ops;
    post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
    attr.set_post_ops(post_ops);
  }
  const dnnl::matmul::desc desc = s.bias ? dnnl::matmul::desc(src, weights, bias, dst) : dnnl::matmul::desc(src, weights, dst);
  return LinearPlan(dnnl::matmul::primitive_desc(desc, attr, onednn::engine()), s.bias ? bias : memory::desc());
}

std::shared_ptr<const LinearPlan> plan_for(const LinearSpec& s) {
  return onednn::primitive_cache().get_or_create<LinearPlan>(s.key(), [&] { return make_plan(s); });
}

/// The dense (out_features, in_features) weight seen as the (in_features, out_features) matrix matmul multiplies by.
dnnl::memory::desc dense_weight_desc(const Tensor& w) {
  return onednn::strided_desc(Shape{w.size(1), w.size(0)}, Strides{w.stride(1), w.stride(0)}, DType::Float32);
}

/// Reorders the dense weight into `packed`, in the plan's layout.
void pack_dense_weight(const LinearPlan& plan, const Tensor& w, const dnnl::memory& packed) {
  const dnnl::memory::desc user = dense_weight_desc(w);
  onednn::make_reorder(user, plan.weights).execute({{DNNL_ARG_FROM, onednn::memory_of(w, user)}, {DNNL_ARG_TO, packed}});
}

/// A weight packed by mkldnn_reorder_linear_weight: its bytes (1-D float32) in the layout `desc` of the primitive
/// for `spec`, carried by the tensor the op hands out.
struct PackedLinearWeight : onednn::Packed {
  LinearSpec spec;
  dnnl::memory::desc desc;
};

/// An input of `sizes` (..., in_features) as matmul's src: rows (the product of every size but the last) x features.
struct Rows {
  int64_t rows = 1, features = 0;
};
Rows rows_of(const char* op, const Shape& sizes) {
  TL_CHECK(sizes.size() >= 1, op, ": expected an input of at least 1 dimension (..., in_features), got ", sizes);
  Rows r;
  for (int64_t d = 0; d + 1 < sizes.size(); ++d) r.rows *= sizes[d];
  r.features = sizes[sizes.size() - 1];
  return r;
}

void check_dense_weight(const char* op, const Tensor& w) {
  TL_CHECK(w.dim() == 2 && w.dtype() == DType::Float32, op, ": expected a 2-D float32 weight (out_features, ",
           "in_features), got ", w.shape(), " ", w.dtype());
  TL_CHECK(w.size(0) > 0 && w.size(1) > 0, op, ": weight ", w.shape(), " has an empty dimension");
}

/// The weight as the primitive wants it: a prepacked one as it is, a dense one reordered on every call.
dnnl::memory weight_memory(const LinearPlan& plan, const Tensor& w, const PackedLinearWeight* packed,
                           std::shared_ptr<Storage>& keep) {
  if (packed) {
    TL_CHECK(packed->desc == plan.weights, "mkldnn_linear: weight was prepacked for ", packed->spec.rows,
             " input rows, whose layout is not the one the primitive for ", plan.src.dims()[0], " rows wants");
    return onednn::memory_of(w, plan.weights);
  }
  TL_WARN_ONCE("mkldnn_linear got a dense weight ", w.shape(),
               "; it is reordered on every call (prepack it with mkldnn_reorder_linear_weight)");
  dnnl::memory staged = onednn::staging_memory(onednn::Staging::Weights, plan.weights, keep);
  pack_dense_weight(plan, w, staged);
  return staged;
}

}  // namespace

// self: (..., in_features) float32, any strides (copied dense when not contiguous); weight: dense (out_features,
// in_features) float32 or a 1-D tensor mkldnn_reorder_linear_weight returned (weight_size, when not empty, must be
// its logical size); bias (out_features) float32 or None; gelu: GELU (erf form) applied to the result. Result:
// contiguous (..., out_features) float32, written into `out` when given. NaN and inf come out as eager's
// linear (+ gelu) give them.
Tensor mkldnn_linear(const Tensor& self, const Tensor& weight, const Tensor& bias, const Tensor& out,
                     const MkldnnLinearArgs& args) {
  constexpr const char* op = "mkldnn_linear";
  const Tensor &x = self, &w = weight, &b = bias;
  TL_CHECK(x.defined() && x.dtype() == DType::Float32, op, ": expected a float32 input, got ",
           x.defined() ? detail::str_cat(x.shape(), " ", x.dtype()) : std::string("None"));
  TL_CHECK(w.defined() && (w.dim() == 2 || w.dim() == 1), op, ": expected a 2-D weight or a 1-D prepacked one, got ",
           w.defined() ? w.shape() : Shape{});
  const PackedLinearWeight* packed = nullptr;
  if (w.dim() == 1) {
    packed = onednn::packed_as<PackedLinearWeight>(w);
    TL_CHECK(packed, op, ": a 1-D weight must be a tensor mkldnn_reorder_linear_weight returned, got ", w.shape(), " ",
             w.dtype());
  } else {
    check_dense_weight(op, w);
  }
  LinearSpec s;
  const Rows in = rows_of(op, x.shape());
  s.rows = in.rows;
  s.out_features = packed ? packed->spec.out_features : w.size(0);
  s.in_features = packed ? packed->spec.in_features : w.size(1);
  s.bias = b.defined();
  s.gelu = args.gelu;
  const Shape weight_size{s.out_features, s.in_features};
  TL_CHECK(args.weight_size.size() == 0 || args.weight_size == weight_size, op, ": weight_size ", args.weight_size,
           " does not match the ", packed ? "prepacked" : "dense", " weight's size ", weight_size);
  TL_CHECK(in.features == s.in_features, op, ": input ", x.shape(), " has ", in.features, " features but weight ",
           weight_size, " expects ", s.in_features);
  if (s.bias) {
    TL_CHECK(b.dim() == 1 && b.size(0) == s.out_features && b.dtype() == DType::Float32 && b.is_contiguous(), op,
             ": expected a contiguous float32 bias of shape [", s.out_features, "], got ", b.shape(), " ", b.dtype());
  }
  Shape sizes = x.shape();
  sizes[sizes.size() - 1] = s.out_features;
  Tensor y = out;
  if (y.defined()) inference::check_out(op, y, sizes, contiguous_strides(sizes), DType::Float32);
  else y = Tensor::allocate(sizes, DType::Float32);
  if (s.rows == 0) return y;
  const Tensor dense_x = onednn::to_contiguous(x, op);
  onednn::guarded(op, [&] { return s.context(); }, [&] {
    auto plan = plan_for(s);
    std::shared_ptr<Storage> keep;
    std::unordered_map<int, dnnl::memory> memories{{DNNL_ARG_SRC, onednn::memory_of(dense_x, plan->src)},
                                                   {DNNL_ARG_WEIGHTS, weight_memory(*plan, w, packed, keep)},
                                                   {DNNL_ARG_DST, onednn::memory_of(y, plan->dst)}};
    if (s.bias) memories.emplace(DNNL_ARG_BIAS, onednn::memory_of(b, plan->bias));
    plan->matmul.execute(std::move(memories));
  });
  return y;
}

// self: a dense (out_features, in_features) float32 weight. Returns it reordered into the layout mkldnn_linear's
// primitive wants for an input of input_size (..., in_features) with the same bias and gelu, as a 1-D float32
// tensor holding that many bytes whose storage carries the PackedLinearWeight (a copy or view of it is not one).
Tensor mkldnn_reorder_linear_weight(const Tensor& self, const MkldnnReorderLinearWeightArgs& args) {
  constexpr const char* op = "mkldnn_reorder_linear_weight";
  const Tensor& w = self;
  TL_CHECK(w.defined(), op, ": weight is None");
  check_dense_weight(op, w);
  LinearSpec s;
  const Rows in = rows_of(op, args.input_size);
  s.rows = in.rows;
  s.out_features = w.size(0);
  s.in_features = w.size(1);
  s.bias = args.bias;
  s.gelu = args.gelu;
  TL_CHECK(in.features == s.in_features && s.rows > 0, op, ": input_size ", args.input_size, " does not give rows of the ",
           s.in_features, " features weight ", w.shape(), " expects");
  return onednn::guarded(op, [&] { return s.context(); }, [&] {
    auto plan = plan_for(s);
    auto packed = std::make_shared<PackedLinearWeight>();
    packed->spec = s;
    packed->desc = plan->weights;
    packed->bytes = Tensor::allocate({static_cast<int64_t>(plan->weights.get_size() / sizeof(float))}, DType::Float32);
    pack_dense_weight(*plan, w, onednn::memory_of(packed->bytes, plan->weights));
    return onednn::carry(std::move(packed));
  });
}

}  // namespace tl::kernels
