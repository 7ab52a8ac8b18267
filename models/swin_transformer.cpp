// models/swin_transformer.cpp — torchvision/models/swin_transformer.py in C++: the same registration order (it
// fixes repr, state_dict order and the order of the initialisation's draws), buffers, init and forward; its three
// torch.fx.wrap'ped functions recorded as one call_function node each.
#include "models/swin_transformer.h"

#include <cmath>
#include <vector>

#include "fx/wrap.h"
#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/functional.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"

namespace tl::models {
namespace swin {
namespace {

namespace F = nn::functional;
using indexing::Ellipsis;
using indexing::None;
using indexing::Slice;

// A wrapped function's int-list argument ([7, 7]).
Shape int_list(const fx::Argument& a, const char* function, const char* name) {
  TL_CHECK(a.is_list(), function, ": expected a list of ints for ", name, ", got ", fx::repr_arg(a));
  Shape values;
  for (const fx::Argument& item : a.as_list().items) {
    const auto* i = std::get_if<int64_t>(&item.value());
    TL_CHECK(i != nullptr, function, ": expected a list of ints for ", name, ", got ", fx::repr_arg(a));
    values.push_back(*i);
  }
  return values;
}

template <class T>
T scalar_arg(const fx::Argument& a, const char* function, const char* name) {
  const auto* v = std::get_if<T>(&a.value());
  TL_CHECK(v != nullptr, function, ": unexpected value ", fx::repr_arg(a), " for ", name);
  return *v;
}

Tensor patch_merging_pad_impl(const Tensor& input) {
  TL_CHECK(input.dim() >= 3, "_patch_merging_pad: expected an input (..., H, W, C), got ", input.shape());
  const int64_t h = input.size(-3), w = input.size(-2);
  const Tensor x = F::pad(input, {0, 0, 0, w % 2, 0, h % 2});
  const Tensor x0 = x.index({Ellipsis, Slice(0, None, 2), Slice(0, None, 2), Slice()});  // ... H/2 W/2 C
  const Tensor x1 = x.index({Ellipsis, Slice(1, None, 2), Slice(0, None, 2), Slice()});
  const Tensor x2 = x.index({Ellipsis, Slice(0, None, 2), Slice(1, None, 2), Slice()});
  const Tensor x3 = x.index({Ellipsis, Slice(1, None, 2), Slice(1, None, 2), Slice()});
  return tl::cat({x0, x1, x2, x3}, -1);  // ... H/2 W/2 4*C
}

Tensor relative_position_bias_impl(const Tensor& table, const Tensor& index, const Shape& window_size) {
  TL_CHECK(window_size.size() == 2, "_get_relative_position_bias: expected a window_size of 2 ints, got ",
           window_size);
  return ops::relative_position_bias(table, index, window_size[0] * window_size[1]);
}

// The attention mask of shifted windows: (num_windows, N, N), -100 between tokens whose regions of the rolled,
// padded map differ (the regions torchvision labels with the slices (0, -window), (-window, -shift), (-shift,
// None) per dim), else 0.
Tensor shifted_window_mask(int64_t pad_h, int64_t pad_w, const Shape& window, const Shape& shift, DType dtype) {
  auto region = [](int64_t i, int64_t size, int64_t window_size, int64_t shift_size) -> int64_t {
    return i < size - window_size ? 0 : i < size - shift_size ? 1 : 2;
  };
  const int64_t windows_h = pad_h / window[0], windows_w = pad_w / window[1], n = window[0] * window[1];
  std::vector<int64_t> labels(static_cast<size_t>(windows_h * windows_w * n));
  for (int64_t i = 0; i < windows_h; ++i)
    for (int64_t j = 0; j < windows_w; ++j)
      for (int64_t a = 0; a < window[0]; ++a)
        for (int64_t b = 0; b < window[1]; ++b)
          labels[static_cast<size_t>(((i * windows_w + j) * window[0] + a) * window[1] + b)] =
              region(i * window[0] + a, pad_h, window[0], shift[0]) * 3 +
              region(j * window[1] + b, pad_w, window[1], shift[1]);
  std::vector<float> mask(static_cast<size_t>(windows_h * windows_w * n * n));
  for (size_t w = 0; w < static_cast<size_t>(windows_h * windows_w); ++w)
    for (size_t p = 0; p < static_cast<size_t>(n); ++p)
      for (size_t q = 0; q < static_cast<size_t>(n); ++q)
        mask[(w * n + p) * n + q] = labels[w * n + q] != labels[w * n + p] ? -100.0f : 0.0f;
  return from_vector(mask, {windows_h * windows_w, n, n}).to(dtype);
}

Tensor shifted_window_attention_impl(const Tensor& input, const Tensor& qkv_weight, const Tensor& proj_weight,
                                     const Tensor& relative_position_bias, const WindowAttentionArgs& a,
                                     const Tensor& qkv_bias_in, const Tensor& proj_bias, const Tensor& logit_scale_in) {
  TL_CHECK(input.dim() == 4, "shifted_window_attention: expected an input (B, H, W, C), got ", input.shape());
  TL_CHECK(a.window_size.size() == 2 && a.shift_size.size() == 2,
           "shifted_window_attention: window_size and shift_size must be of length 2, got ", a.window_size, " and ",
           a.shift_size);
  const int64_t b = input.size(0), h = input.size(1), w = input.size(2), c = input.size(3);
  TL_CHECK(a.num_heads > 0 && c % a.num_heads == 0, "shifted_window_attention: ", c,
           " channels cannot be split into ", a.num_heads, " heads");
  const Shape& window = a.window_size;
  // pad feature maps to multiples of window size
  const int64_t pad_r = (window[1] - w % window[1]) % window[1];
  const int64_t pad_b = (window[0] - h % window[0]) % window[0];
  Tensor x = F::pad(input, {0, 0, 0, pad_r, 0, pad_b});
  const int64_t pad_h = x.size(1), pad_w = x.size(2);
  Shape shift = a.shift_size;
  // If window size is larger than feature size, there is no need to shift window
  if (window[0] >= pad_h) shift[0] = 0;
  if (window[1] >= pad_w) shift[1] = 0;
  const bool shifted = shift[0] + shift[1] > 0;
  if (shifted) x = x.roll({-shift[0], -shift[1]}, {1, 2});
  // partition windows
  const int64_t num_windows = (pad_h / window[0]) * (pad_w / window[1]);
  x = x.view({b, pad_h / window[0], window[0], pad_w / window[1], window[1], c});
  x = x.permute({0, 1, 3, 2, 4, 5}).reshape({b * num_windows, window[0] * window[1], c});  // B*nW, Ws*Ws, C
  // multi-head attention
  Tensor qkv_bias = qkv_bias_in;
  if (logit_scale_in.defined() && qkv_bias.defined()) {
    qkv_bias = qkv_bias.clone();
    const int64_t length = qkv_bias.numel() / 3;
    qkv_bias.index_put_({Slice(length, 2 * length)}, 0);
  }
  const int64_t tokens = x.size(1), windows = x.size(0);
  Tensor qkv = F::linear(x, qkv_weight, qkv_bias);
  qkv = qkv.reshape({windows, tokens, 3, a.num_heads, c / a.num_heads}).permute({2, 0, 3, 1, 4});
  Tensor q = qkv.select(0, 0), k = qkv.select(0, 1), v = qkv.select(0, 2);
  Tensor attn;
  if (logit_scale_in.defined()) {
    // cosine attention
    attn = F::normalize(q, 2.0, -1).matmul(F::normalize(k, 2.0, -1).transpose(-2, -1));
    const Tensor logit_scale = logit_scale_in.clamp(std::nullopt, std::optional<Scalar>(std::log(100.0))).exp();
    attn = attn * logit_scale;
  } else {
    q = q * std::pow(static_cast<double>(c / a.num_heads), -0.5);
    attn = q.matmul(k.transpose(-2, -1));
  }
  // add relative position bias
  attn = attn + relative_position_bias;
  if (shifted) {
    const Tensor attn_mask = shifted_window_mask(pad_h, pad_w, window, shift, x.dtype());
    attn = attn.view({windows / num_windows, num_windows, a.num_heads, tokens, tokens});
    attn = attn + attn_mask.unsqueeze(1).unsqueeze(0);
    attn = attn.view({-1, a.num_heads, tokens, tokens});
  }
  attn = F::softmax(attn, -1);
  attn = F::dropout(attn, a.attention_dropout);
  x = attn.matmul(v).transpose(1, 2).reshape({windows, tokens, c});
  x = F::linear(x, proj_weight, proj_bias);
  x = F::dropout(x, a.dropout);
  // reverse windows
  x = x.view({b, pad_h / window[0], pad_w / window[1], window[0], window[1], c});
  x = x.permute({0, 1, 3, 2, 4, 5}).reshape({b, pad_h, pad_w, c});
  // reverse cyclic shift
  if (shifted) x = x.roll({shift[0], shift[1]}, {1, 2});
  // unpad features
  return x.index({Slice(), Slice(None, h), Slice(None, w), Slice()}).contiguous();
}

// V2's relative_coords_table: (1, 2 Wh - 1, 2 Ww - 1, 2) of sign(t) log2(|t| + 1) / 3 with t the offset scaled
// to [-8, 8], each step in float32 as torchvision computes it.
Tensor relative_coords_table(const Shape& window) {
  std::vector<float> table;
  auto coord = [](int64_t offset, int64_t window_size) {
    float t = static_cast<float>(offset) / static_cast<float>(window_size - 1);
    t *= 8.0f;  // normalize to -8, 8
    const float sign = t > 0 ? 1.0f : t < 0 ? -1.0f : 0.0f;
    return sign * std::log2(std::fabs(t) + 1.0f) / 3.0f;
  };
  for (int64_t i = -(window[0] - 1); i < window[0]; ++i)
    for (int64_t j = -(window[1] - 1); j < window[1]; ++j) {
      table.push_back(coord(i, window[0]));
      table.push_back(coord(j, window[1]));
    }
  return from_vector(table, {1, 2 * window[0] - 1, 2 * window[1] - 1, 2});
}

std::shared_ptr<nn::LayerNorm> layer_norm(int64_t dim) {
  return std::make_shared<nn::LayerNorm>(nn::LayerNormOptions{.normalized_shape = {dim}, .eps = 1e-5});
}

}  // namespace

Tensor patch_merging_pad(const Tensor& x) {
  // torch.fx.wrap("_patch_merging_pad")
  static const fx::WrappedFunction& wrapped =
      fx::wrap("torchvision.models.swin_transformer._patch_merging_pad",
               [](const TensorList& tensors, const std::vector<fx::Argument>& args) {
                 TL_CHECK(tensors.size() == 1 && args.size() == 1, "_patch_merging_pad: expected (x), got ",
                          args.size(), " arguments");
                 return patch_merging_pad_impl(tensors[0]);
               });
  return fx::call_wrapped(wrapped, {x});
}

Tensor get_relative_position_bias(const Tensor& table, const Tensor& index, const Shape& window_size) {
  // torch.fx.wrap("_get_relative_position_bias")
  static const fx::WrappedFunction& wrapped = fx::wrap(
      "torchvision.models.swin_transformer._get_relative_position_bias",
      [](const TensorList& tensors, const std::vector<fx::Argument>& args) {
        TL_CHECK(tensors.size() == 2 && args.size() == 3,
                 "_get_relative_position_bias: expected (relative_position_bias_table, relative_position_index, "
                 "window_size), got ",
                 args.size(), " arguments");
        return relative_position_bias_impl(tensors[0], tensors[1],
                                           int_list(args[2], "_get_relative_position_bias", "window_size"));
      });
  return fx::call_wrapped(wrapped, {table, index, fx::Argument::int_list(window_size)});
}

Tensor shifted_window_attention(const Tensor& input, const Tensor& qkv_weight, const Tensor& proj_weight,
                                const Tensor& relative_position_bias, const WindowAttentionArgs& args,
                                const Tensor& qkv_bias, const Tensor& proj_bias, const Tensor& logit_scale) {
  // torch.fx.wrap("shifted_window_attention"), its parameters: input, qkv_weight, proj_weight, relative_position_bias,
  // window_size, num_heads, shift_size, attention_dropout, dropout, qkv_bias, proj_bias[, logit_scale].
  static const fx::WrappedFunction& wrapped = fx::wrap(
      "torchvision.models.swin_transformer.shifted_window_attention",
      [](const TensorList& t, const std::vector<fx::Argument>& args) {
        const char* name = "shifted_window_attention";
        TL_CHECK((t.size() == 6 && args.size() == 11) || (t.size() == 7 && args.size() == 12), name,
                 ": expected (input, qkv_weight, proj_weight, relative_position_bias, window_size, num_heads, "
                 "shift_size, attention_dropout, dropout, qkv_bias, proj_bias[, logit_scale]), got ",
                 args.size(), " arguments");
        const WindowAttentionArgs a{int_list(args[4], name, "window_size"),
                                    scalar_arg<int64_t>(args[5], name, "num_heads"),
                                    int_list(args[6], name, "shift_size"),
                                    scalar_arg<double>(args[7], name, "attention_dropout"),
                                    scalar_arg<double>(args[8], name, "dropout")};
        return shifted_window_attention_impl(t[0], t[1], t[2], t[3], a, t[4], t[5], t.size() == 7 ? t[6] : Tensor());
      },
      {"input", "qkv_weight", "proj_weight", "relative_position_bias", "window_size", "num_heads", "shift_size",
       "attention_dropout", "dropout", "qkv_bias", "proj_bias", "logit_scale"});
  // As ShiftedWindowAttention(V2).forward calls it: the last arguments as keywords.
  std::vector<fx::WrappedKwarg> kwargs{{"shift_size", fx::Argument::int_list(args.shift_size)},
                                       {"attention_dropout", fx::Argument(args.attention_dropout)},
                                       {"dropout", fx::Argument(args.dropout)},
                                       {"qkv_bias", qkv_bias},
                                       {"proj_bias", proj_bias}};
  if (logit_scale.defined()) kwargs.emplace_back("logit_scale", logit_scale);
  return fx::call_wrapped(wrapped,
                          {input, qkv_weight, proj_weight, relative_position_bias,
                           fx::Argument::int_list(args.window_size), fx::Argument(args.num_heads)},
                          kwargs);
}

PatchMerging::PatchMerging(int64_t dim) {
  register_module("reduction", std::make_shared<nn::Linear>(4 * dim, 2 * dim, false));
  register_module("norm", layer_norm(4 * dim));
}

Tensor PatchMerging::forward(const Tensor& input) {
  Tensor x = patch_merging_pad(input);
  x = submodule("norm")(x);
  return submodule("reduction")(x);  // ... H/2 W/2 2*C
}

PatchMergingV2::PatchMergingV2(int64_t dim) {
  register_module("reduction", std::make_shared<nn::Linear>(4 * dim, 2 * dim, false));
  register_module("norm", layer_norm(2 * dim));  // difference
}

Tensor PatchMergingV2::forward(const Tensor& input) {
  Tensor x = patch_merging_pad(input);
  x = submodule("reduction")(x);  // ... H/2 W/2 2*C
  return submodule("norm")(x);
}

ShiftedWindowAttention::ShiftedWindowAttention(const ShiftedWindowAttentionOptions& options)
    : ShiftedWindowAttention(options, false) {}

ShiftedWindowAttention::ShiftedWindowAttention(const ShiftedWindowAttentionOptions& o, bool continuous_position_bias)
    : options_(o) {
  TL_CHECK(o.window_size.size() == 2 && o.shift_size.size() == 2, "window_size and shift_size must be of length 2");
  register_module("qkv", std::make_shared<nn::Linear>(o.dim, o.dim * 3, o.qkv_bias));
  register_module("proj", std::make_shared<nn::Linear>(o.dim, o.dim, o.proj_bias));
  const Shape& ws = o.window_size;
  if (continuous_position_bias) {
    register_buffer("relative_coords_table", relative_coords_table(ws));
  } else {
    Tensor table = zeros({(2 * ws[0] - 1) * (2 * ws[1] - 1), o.num_heads});  // 2*Wh-1 * 2*Ww-1, nH
    nn::init::trunc_normal_(table, 0.0, 0.02);
    register_parameter("relative_position_bias_table", table);
  }
  register_buffer("relative_position_index", ops::relative_position_index(ws[0], ws[1]).reshape({-1}));
}

WindowAttentionArgs ShiftedWindowAttention::attention_args() const {
  return {options_.window_size, options_.num_heads, options_.shift_size, options_.attention_dropout, options_.dropout};
}

Tensor ShiftedWindowAttention::relative_position_bias() {
  // A trace records the bias's computation from the table as torch.fx does (get_attr, _get_relative_position_bias).
  return get_relative_position_bias(fx::getattr(parameter("relative_position_bias_table")),
                                    buffer("relative_position_index"), options_.window_size);
}

Tensor ShiftedWindowAttention::forward(const Tensor& x) {
  const Tensor bias = relative_position_bias();
  const auto qkv = child("qkv"), proj = child("proj");
  return shifted_window_attention(x, qkv->parameter("weight"), proj->parameter("weight"), bias, attention_args(),
                                  qkv->parameter("bias"), proj->parameter("bias"));
}

ShiftedWindowAttentionV2::ShiftedWindowAttentionV2(const ShiftedWindowAttentionOptions& o)
    : ShiftedWindowAttention(o, true) {
  register_parameter("logit_scale", full({o.num_heads, 1, 1}, 10.0).log());
  // mlp to generate continuous relative position bias
  register_module("cpb_mlp", std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(2, 512, true),
                                                              std::make_shared<nn::ReLU>(true),
                                                              std::make_shared<nn::Linear>(512, o.num_heads, false)));
  if (o.qkv_bias) {
    const Tensor bias = child("qkv")->parameter("bias");
    const int64_t length = bias.numel() / 3;
    nn::init::zeros_(bias.index({Slice(length, 2 * length)}));
  }
}

Tensor ShiftedWindowAttentionV2::relative_position_bias() {
  Tensor table = submodule("cpb_mlp")(buffer("relative_coords_table"));
  table = table.view({-1, options().num_heads});
  const Tensor bias = get_relative_position_bias(table, buffer("relative_position_index"), options().window_size);
  return 16 * tl::sigmoid(bias);
}

Tensor ShiftedWindowAttentionV2::forward(const Tensor& x) {
  const Tensor bias = relative_position_bias();
  const auto qkv = child("qkv"), proj = child("proj");
  return shifted_window_attention(x, qkv->parameter("weight"), proj->parameter("weight"), bias, attention_args(),
                                  qkv->parameter("bias"), proj->parameter("bias"), parameter("logit_scale"));
}

SwinTransformerBlock::SwinTransformerBlock(const SwinTransformerBlockOptions& options)
    : SwinTransformerBlock(options, false) {}

SwinTransformerBlock::SwinTransformerBlock(const SwinTransformerBlockOptions& o, bool v2) {
  register_module("norm1", layer_norm(o.dim));
  const ShiftedWindowAttentionOptions attention{.dim = o.dim, .window_size = o.window_size,
                                                .shift_size = o.shift_size, .num_heads = o.num_heads,
                                                .attention_dropout = o.attention_dropout, .dropout = o.dropout};
  if (v2)
    register_module("attn", std::make_shared<ShiftedWindowAttentionV2>(attention));
  else
    register_module("attn", std::make_shared<ShiftedWindowAttention>(attention));
  register_module("stochastic_depth", std::make_shared<ops::StochasticDepth>(o.stochastic_depth_prob, "row"));
  register_module("norm2", layer_norm(o.dim));
  auto mlp = std::make_shared<ops::MLP>(ops::MLPOptions{
      .in_channels = o.dim,
      .hidden_channels = {static_cast<int64_t>(static_cast<double>(o.dim) * o.mlp_ratio), o.dim},
      .activation_layer = [](std::optional<bool>) -> std::shared_ptr<nn::Module> {
        return std::make_shared<nn::GELU>();
      },
      .inplace = std::nullopt,
      .dropout = o.dropout});
  register_module("mlp", mlp);
  ops::xavier_linear_init_(*mlp);
}

Tensor SwinTransformerBlock::forward(const Tensor& input) {
  Tensor x = input + submodule("stochastic_depth")(submodule("attn")(submodule("norm1")(input)));
  return x + submodule("stochastic_depth")(submodule("mlp")(submodule("norm2")(x)));
}

SwinTransformerBlockV2::SwinTransformerBlockV2(const SwinTransformerBlockOptions& options)
    : SwinTransformerBlock(options, true) {}

Tensor SwinTransformerBlockV2::forward(const Tensor& input) {
  Tensor x = input + submodule("stochastic_depth")(submodule("norm1")(submodule("attn")(input)));
  return x + submodule("stochastic_depth")(submodule("norm2")(submodule("mlp")(x)));
}

}  // namespace swin

SwinTransformer::SwinTransformer(const Shape& patch_size, int64_t embed_dim, const Shape& depths,
                                 const Shape& num_heads, const Shape& window_size,
                                 const SwinTransformerOptions& options, bool v2) {
  TL_CHECK(patch_size.size() == 2, "SwinTransformer: expected a patch_size of 2 ints, got ", patch_size);
  TL_CHECK(window_size.size() == 2, "window_size and shift_size must be of length 2");
  TL_CHECK(!depths.empty() && depths.size() == num_heads.size(),
           "SwinTransformer: expected one num_heads per stage, got depths ", depths, " and num_heads ", num_heads);
  check_num_classes("SwinTransformer", options.num_classes);
  int64_t total_stage_blocks = 0;
  for (int64_t d : depths) total_stage_blocks += d;
  const double stochastic_depth_prob = options.stochastic_depth_prob.value_or(0.1);
  check_stochastic_depth_prob("SwinTransformer", stochastic_depth_prob, total_stage_blocks, total_stage_blocks - 1);
  std::vector<std::shared_ptr<nn::Module>> layers;
  // split image into non-overlapping patches
  layers.push_back(std::make_shared<nn::Sequential>(
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 3, .out_channels = embed_dim,
                                                     .kernel_size = nn::IntPair(patch_size[0], patch_size[1]),
                                                     .stride = nn::IntPair(patch_size[0], patch_size[1])}),
      std::make_shared<ops::Permute>(Shape{0, 2, 3, 1}), swin::layer_norm(embed_dim)));
  int64_t stage_block_id = 0;
  // build SwinTransformer blocks
  for (int64_t i_stage = 0; i_stage < depths.size(); ++i_stage) {
    auto stage = std::make_shared<nn::Sequential>();
    const int64_t dim = embed_dim << i_stage;
    for (int64_t i_layer = 0; i_layer < depths[i_stage]; ++i_layer) {
      // adjust stochastic depth probability based on the depth of the stage block
      const double sd_prob = stochastic_depth_prob * static_cast<double>(stage_block_id) /
                             static_cast<double>(total_stage_blocks - 1);
      Shape shift_size;
      for (int64_t w : window_size) shift_size.push_back(i_layer % 2 == 0 ? 0 : w / 2);
      const swin::SwinTransformerBlockOptions block{
          .dim = dim, .num_heads = num_heads[i_stage], .window_size = window_size, .shift_size = shift_size,
          .mlp_ratio = options.mlp_ratio, .dropout = options.dropout,
          .attention_dropout = options.attention_dropout, .stochastic_depth_prob = sd_prob};
      if (v2)
        stage->append(std::make_shared<swin::SwinTransformerBlockV2>(block));
      else
        stage->append(std::make_shared<swin::SwinTransformerBlock>(block));
      ++stage_block_id;
    }
    layers.push_back(stage);
    // add patch merging layer
    if (i_stage + 1 < depths.size()) {
      if (v2)
        layers.push_back(std::make_shared<swin::PatchMergingV2>(dim));
      else
        layers.push_back(std::make_shared<swin::PatchMerging>(dim));
    }
  }
  register_module("features", std::make_shared<nn::Sequential>(std::move(layers)));
  const int64_t num_features = embed_dim << (depths.size() - 1);
  register_module("norm", swin::layer_norm(num_features));
  register_module("permute", std::make_shared<ops::Permute>(Shape{0, 3, 1, 2}));
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1)));
  register_module("flatten", std::make_shared<nn::Flatten>(1, -1));
  register_module("head", std::make_shared<nn::Linear>(num_features, options.num_classes));
  for (const auto& m : modules()) {
    if (dynamic_cast<nn::Linear*>(m.get()) == nullptr) continue;
    nn::init::trunc_normal_(m->parameter("weight"), 0.0, 0.02);
    if (m->parameter("bias").defined()) nn::init::zeros_(m->parameter("bias"));
  }
}

Tensor SwinTransformer::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("features")(input);
  x = submodule("norm")(x);
  x = submodule("permute")(x);
  x = submodule("avgpool")(x);
  x = submodule("flatten")(x);
  return submodule("head")(x);
}

namespace {

std::shared_ptr<SwinTransformer> build_swin(int64_t embed_dim, const Shape& depths, const Shape& num_heads,
                                            int64_t window, double stochastic_depth_prob, bool v2,
                                            SwinTransformerOptions options) {
  refuse_passed_argument(options.stochastic_depth_prob.has_value(),
                         "torchvision.models.swin_transformer._swin_transformer", "stochastic_depth_prob");
  options.stochastic_depth_prob = stochastic_depth_prob;
  return std::make_shared<SwinTransformer>(Shape{4, 4}, embed_dim, depths, num_heads, Shape{window, window}, options,
                                           v2);
}

}  // namespace

std::shared_ptr<SwinTransformer> swin_t(const SwinTransformerOptions& o) {
  return build_swin(96, {2, 2, 6, 2}, {3, 6, 12, 24}, 7, 0.2, false, o);
}
std::shared_ptr<SwinTransformer> swin_s(const SwinTransformerOptions& o) {
  return build_swin(96, {2, 2, 18, 2}, {3, 6, 12, 24}, 7, 0.3, false, o);
}
std::shared_ptr<SwinTransformer> swin_b(const SwinTransformerOptions& o) {
  return build_swin(128, {2, 2, 18, 2}, {4, 8, 16, 32}, 7, 0.5, false, o);
}
std::shared_ptr<SwinTransformer> swin_v2_t(const SwinTransformerOptions& o) {
  return build_swin(96, {2, 2, 6, 2}, {3, 6, 12, 24}, 8, 0.2, true, o);
}
std::shared_ptr<SwinTransformer> swin_v2_s(const SwinTransformerOptions& o) {
  return build_swin(96, {2, 2, 18, 2}, {3, 6, 12, 24}, 8, 0.3, true, o);
}
std::shared_ptr<SwinTransformer> swin_v2_b(const SwinTransformerOptions& o) {
  return build_swin(128, {2, 2, 18, 2}, {4, 8, 16, 32}, 8, 0.5, true, o);
}

}  // namespace tl::models
