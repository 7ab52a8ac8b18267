// nn/attention.cpp — MultiheadAttention as PyTorch 1.13's nn.MultiheadAttention.forward and
// F.multi_head_attention_forward compute it (the slow path; the eval fast path gives the same numbers).
#include "nn/attention.h"

#include <cmath>

#include "core/py_repr.h"
#include "core/warning.h"
#include "nn/init.h"
#include "ops/ops.h"

namespace tl::nn {
namespace {

std::string size_of(const Tensor& t) { return py_size(t.shape().vec()); }

/// PyTorch's _mha_shape_check: whether the query is batched; throws its texts for the other shapes.
bool mha_shape_check(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
                     const Tensor& attn_mask, int64_t num_heads) {
  TL_CHECK(query.dim() == 2 || query.dim() == 3,
           "query should be unbatched 2D or batched 3D tensor but received ", query.dim(), "-D query tensor");
  const bool batched = query.dim() == 3;
  const char* which = batched ? "For batched (3-D) `query`" : "For unbatched (2-D) `query`";
  const int64_t want = batched ? 3 : 2;
  TL_CHECK(key.dim() == want && value.dim() == want, which, ", expected `key` and `value` to be ", want,
           "-D but found ", key.dim(), "-D and ", value.dim(), "-D tensors respectively");
  if (key_padding_mask.defined())
    TL_CHECK(key_padding_mask.dim() == want - 1, which, ", expected `key_padding_mask` to be `None` or ", want - 1,
             "-D but found ", key_padding_mask.dim(), "-D tensor instead");
  if (attn_mask.defined()) {
    TL_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3, which,
             ", expected `attn_mask` to be `None`, 2-D or 3-D but found ", attn_mask.dim(), "-D tensor instead");
    if (!batched && attn_mask.dim() == 3) {
      const std::vector<int64_t> expected{num_heads, query.size(0), key.size(0)};
      TL_CHECK(attn_mask.shape().vec() == expected, "Expected `attn_mask` shape to be ", py_int_tuple(expected),
               " but got ", size_of(attn_mask));
    }
  }
  return batched;
}

/// attn_mask (2-D or 3-D, bool, float or, deprecated with PyTorch's warning, uint8) and key_padding_mask (N, S) as one additive float mask
/// (N * heads or 1, L, S), or undefined; PyTorch's checks and its order of merging.
Tensor merged_mask(Tensor attn_mask, Tensor key_padding_mask, int64_t tgt_len, int64_t src_len, int64_t bsz,
                   int64_t num_heads, DType dtype) {
  if (attn_mask.defined() && attn_mask.dtype() == DType::UInt8) {
    warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.");
    attn_mask = attn_mask.to(DType::Bool);
  }
  if (attn_mask.defined()) {
    TL_CHECK(is_floating_point(attn_mask.dtype()) || attn_mask.dtype() == DType::Bool,
             "Only float, byte, and bool types are supported for attn_mask, not ", dtype_name(attn_mask.dtype()));
    if (attn_mask.dim() == 2) {
      const std::vector<int64_t> correct{tgt_len, src_len};
      TL_CHECK(attn_mask.shape().vec() == correct, "The shape of the 2D attn_mask is ", size_of(attn_mask),
               ", but should be ", py_int_tuple(correct), ".");
      attn_mask = attn_mask.unsqueeze(0);
    } else {
      const std::vector<int64_t> correct{bsz * num_heads, tgt_len, src_len};
      TL_CHECK(attn_mask.shape().vec() == correct, "The shape of the 3D attn_mask is ", size_of(attn_mask),
               ", but should be ", py_int_tuple(correct), ".");
    }
  }
  if (key_padding_mask.defined()) {
    const std::vector<int64_t> correct{bsz, src_len};
    TL_CHECK(key_padding_mask.shape().vec() == correct, "expecting key_padding_mask shape of ",
             py_int_tuple(correct), ", but got ", size_of(key_padding_mask));
    const Tensor kpm =
        key_padding_mask.view({bsz, 1, 1, src_len}).expand({bsz, num_heads, 1, src_len}).reshape({bsz * num_heads, 1, src_len});
    if (!attn_mask.defined())
      attn_mask = kpm;
    else if (attn_mask.dtype() == DType::Bool)
      attn_mask = attn_mask.logical_or(kpm);
    else
      attn_mask = attn_mask.masked_fill(kpm, -INFINITY);
  }
  if (attn_mask.defined() && attn_mask.dtype() == DType::Bool)
    attn_mask = zeros_like(attn_mask, dtype).masked_fill(attn_mask, -INFINITY);
  return attn_mask;
}

}  // namespace

MultiheadAttention::MultiheadAttention(const MultiheadAttentionOptions& options) : options_(options) {
  const int64_t e = options.embed_dim();
  TL_CHECK(e > 0 && options.num_heads() > 0, "MultiheadAttention: embed_dim and num_heads must be positive, got ", e,
           " and ", options.num_heads());
  TL_CHECK(e % options.num_heads() == 0, "embed_dim must be divisible by num_heads");
  TL_CHECK(options.kdim() > 0 && options.vdim() > 0, "MultiheadAttention: kdim and vdim must be positive, got ",
           options.kdim(), " and ", options.vdim());
  TL_CHECK(options.dropout() >= 0.0 && options.dropout() <= 1.0,
           "dropout probability has to be between 0 and 1, but got ", options.dropout());
  if (same_embed_dim()) {
    register_parameter("in_proj_weight", empty({3 * e, e}));
    register_parameter("q_proj_weight", Tensor());
    register_parameter("k_proj_weight", Tensor());
    register_parameter("v_proj_weight", Tensor());
  } else {
    register_parameter("q_proj_weight", empty({e, e}));
    register_parameter("k_proj_weight", empty({e, options.kdim()}));
    register_parameter("v_proj_weight", empty({e, options.vdim()}));
    register_parameter("in_proj_weight", Tensor());
  }
  register_parameter("in_proj_bias", options.bias() ? empty({3 * e}) : Tensor());
  register_module("out_proj", std::make_shared<NonDynamicallyQuantizableLinear>(e, e, options.bias()));
  reset_parameters();
}

bool MultiheadAttention::same_embed_dim() const {
  return options_.kdim() == options_.embed_dim() && options_.vdim() == options_.embed_dim();
}

void MultiheadAttention::reset_parameters() {
  if (same_embed_dim()) {
    init::xavier_uniform_(parameter("in_proj_weight"));
  } else {
    init::xavier_uniform_(parameter("q_proj_weight"));
    init::xavier_uniform_(parameter("k_proj_weight"));
    init::xavier_uniform_(parameter("v_proj_weight"));
  }
  if (options_.bias()) {
    init::zeros_(parameter("in_proj_bias"));
    init::zeros_(child("out_proj")->parameter("bias"));
  }
}

TensorList MultiheadAttention::forward(Inputs inputs) {
  const auto [output, weights] = forward(inputs[0], inputs[1], inputs[2]);
  return {output, weights};
}

std::tuple<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       const Tensor& key_padding_mask, bool need_weights,
                                                       const Tensor& attn_mask, bool average_attn_weights) {
  const int64_t heads = options_.num_heads();
  const bool batched = mha_shape_check(query, key, value, key_padding_mask, attn_mask, heads);
  const bool transpose = batched && options_.batch_first();
  Tensor q_in = transpose ? query.transpose(1, 0) : batched ? query : query.unsqueeze(1);  // (L, N, E)
  Tensor k_in = transpose ? key.transpose(1, 0) : batched ? key : key.unsqueeze(1);        // (S, N, kdim)
  Tensor v_in = transpose ? value.transpose(1, 0) : batched ? value : value.unsqueeze(1);  // (S, N, vdim)
  const Tensor kpm = batched || !key_padding_mask.defined() ? key_padding_mask : key_padding_mask.unsqueeze(0);
  const int64_t tgt_len = q_in.size(0), bsz = q_in.size(1), embed_dim = q_in.size(2), src_len = k_in.size(0);
  if (kpm.defined())
    TL_CHECK(kpm.dtype() == DType::Bool || is_floating_point(kpm.dtype()),
             "only bool and floating types of key_padding_mask are supported");
  TL_CHECK(embed_dim == options_.embed_dim(), "was expecting embedding dimension of ", options_.embed_dim(),
           ", but got ", embed_dim);
  if (same_embed_dim())
    TL_CHECK(k_in.shape() == v_in.shape(), "key shape ", size_of(k_in), " does not match value shape ", size_of(v_in));
  else
    TL_CHECK(k_in.size(0) == v_in.size(0) && k_in.size(1) == v_in.size(1), "key's sequence and batch dims ",
             py_size({k_in.size(0), k_in.size(1)}), " do not match value's ", py_size({v_in.size(0), v_in.size(1)}));

  // In-projection: q, k, v (L or S, N, E). Self-attention projects once with the packed weight, as
  // PyTorch's _in_projection_packed does (and a traced graph then reads the parameter itself).
  const Tensor& b = parameter("in_proj_bias");
  std::vector<Tensor> qkv;
  if (same_embed_dim() && query.is_same(key) && key.is_same(value)) {
    qkv = linear(q_in, parameter("in_proj_weight"), b).chunk(3, -1);
  } else {
    const std::vector<Tensor> bias = b.defined() ? b.chunk(3) : std::vector<Tensor>(3);
    const std::vector<Tensor> w = same_embed_dim() ? parameter("in_proj_weight").chunk(3)
                                                   : std::vector<Tensor>{parameter("q_proj_weight"),
                                                                         parameter("k_proj_weight"),
                                                                         parameter("v_proj_weight")};
    qkv = {linear(q_in, w[0], bias[0]), linear(k_in, w[1], bias[1]), linear(v_in, w[2], bias[2])};
  }
  const Tensor &q = qkv[0], &k = qkv[1], &v = qkv[2];
  const Tensor mask = merged_mask(attn_mask, kpm, tgt_len, src_len, bsz, heads, q.dtype());

  // Per head: (N * heads, L or S, head_dim). Views leave the batch as -1, so that a graph traced with example
  // inputs follows its input's batch; with an empty sequence or batch the -1 would be ambiguous, and the batch
  // is written out, as PyTorch's views write it.
  const int64_t head_dim = embed_dim / heads;
  const bool empty = tgt_len == 0 || src_len == 0 || bsz == 0;
  const auto batch = [&](int64_t size) { return empty ? size : int64_t{-1}; };
  const Tensor qh = q.contiguous().view({tgt_len, batch(bsz * heads), head_dim}).transpose(0, 1);
  const Tensor kh = k.contiguous().view({src_len, batch(bsz * heads), head_dim}).transpose(0, 1);
  const Tensor vh = v.contiguous().view({src_len, batch(bsz * heads), head_dim}).transpose(0, 1);
  const Tensor q_scaled = qh / std::sqrt(static_cast<double>(head_dim));
  Tensor weights = mask.defined() ? mask.baddbmm(q_scaled, kh.transpose(-2, -1)) : q_scaled.bmm(kh.transpose(-2, -1));
  weights = weights.softmax(-1);  // (N * heads, L, S)
  if (options_.dropout() > 0.0 && is_training()) weights = tl::dropout(weights, options_.dropout(), true);

  const auto& out_proj = child("out_proj");
  Tensor out = weights.bmm(vh).transpose(0, 1).contiguous().view({batch(tgt_len * bsz), embed_dim});
  out = linear(out, out_proj->parameter("weight"), out_proj->parameter("bias")).view({tgt_len, batch(bsz), embed_dim});
  if (transpose) out = out.transpose(1, 0);
  if (!batched) out = out.squeeze(1);
  if (!need_weights) return {out, Tensor()};
  weights = weights.view({batch(bsz), heads, tgt_len, src_len});
  if (average_attn_weights) weights = weights.sum(1) / static_cast<double>(heads);
  if (!batched) weights = weights.squeeze(0);
  return {out, weights};
}

}  // namespace tl::nn
