// models/maxvit.cpp — torchvision/models/maxvit.py in C++: the same registration order (it fixes repr, state_dict
// order and the order of the initialisation's draws), stochastic depth schedule, init and forward.
#include "models/maxvit.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/py_repr.h"
#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/functional.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"

namespace tl::models {
namespace {

using Size2 = std::pair<int64_t, int64_t>;

// torchvision's _get_conv_output_shape.
Size2 conv_output_shape(Size2 input_size, int64_t kernel_size, int64_t stride, int64_t padding) {
  return {(input_size.first - kernel_size + 2 * padding) / stride + 1,
          (input_size.second - kernel_size + 2 * padding) / stride + 1};
}

std::string py_tuple(Size2 s) { return tl::detail::str_cat("(", s.first, ", ", s.second, ")"); }

std::shared_ptr<nn::LayerNorm> layer_norm(int64_t channels) { return std::make_shared<nn::LayerNorm>(Shape{channels}); }

}  // namespace

namespace maxvit {

MBConv::MBConv(int64_t in_channels, int64_t out_channels, double expansion_ratio, double squeeze_ratio, int64_t stride,
               const ops::NormLayer& norm_layer, const ops::ActivationLayer& activation_layer,
               double p_stochastic_dropout) {
  if (stride != 1 || in_channels != out_channels) {
    auto proj = std::make_shared<nn::Sequential>();
    if (stride == 2)
      proj->append(std::make_shared<nn::AvgPool2d>(
          nn::AvgPool2dOptions{.kernel_size = 3, .stride = nn::IntPair(stride), .padding = 1}));
    proj->append(std::make_shared<nn::Conv2d>(
        nn::Conv2dOptions{.in_channels = in_channels, .out_channels = out_channels, .kernel_size = 1, .bias = true}));
    register_module("proj", proj);
  } else {
    register_module("proj", std::make_shared<nn::Identity>());
  }
  const auto mid_channels = static_cast<int64_t>(static_cast<double>(out_channels) * expansion_ratio);
  const auto sqz_channels = static_cast<int64_t>(static_cast<double>(out_channels) * squeeze_ratio);
  if (p_stochastic_dropout != 0.0)
    register_module("stochastic_depth", std::make_shared<ops::StochasticDepth>(p_stochastic_dropout, "row"));
  else
    register_module("stochastic_depth", std::make_shared<nn::Identity>());
  register_module(
      "layers",
      std::make_shared<nn::Sequential>(std::vector<nn::Module::NamedModule>{
          {"pre_norm", norm_layer(in_channels)},
          {"conv_a", std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
                         .in_channels = in_channels, .out_channels = mid_channels, .kernel_size = 1, .stride = 1,
                         .padding = 0, .norm_layer = norm_layer, .activation_layer = activation_layer})},
          {"conv_b", std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
                         .in_channels = mid_channels, .out_channels = mid_channels, .kernel_size = 3,
                         .stride = stride, .padding = 1, .groups = mid_channels, .norm_layer = norm_layer,
                         .activation_layer = activation_layer})},
          {"squeeze_excitation",
           std::make_shared<ops::SqueezeExcitation>(mid_channels, sqz_channels, ops::layer<nn::SiLU>())},
          {"conv_c", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{
                         .in_channels = mid_channels, .out_channels = out_channels, .kernel_size = 1, .bias = true})},
      }));
}

Tensor MBConv::forward(const Tensor& x) {
  const Tensor res = submodule("proj")(x);
  const Tensor y = submodule("stochastic_depth")(submodule("layers")(x));
  return res + y;
}

RelativePositionalMultiHeadAttention::RelativePositionalMultiHeadAttention(int64_t feat_dim, int64_t head_dim,
                                                                           int64_t max_seq_len)
    : n_heads_(0), head_dim_(head_dim), max_seq_len_(max_seq_len), feat_dim_(feat_dim) {
  TL_CHECK(head_dim > 0 && feat_dim % head_dim == 0, "feat_dim: ", feat_dim, " must be divisible by head_dim: ",
           head_dim);
  n_heads_ = feat_dim / head_dim;
  const auto size = static_cast<int64_t>(std::sqrt(static_cast<double>(max_seq_len)));
  register_module("to_qkv", std::make_shared<nn::Linear>(feat_dim, n_heads_ * head_dim * 3));
  register_module("merge", std::make_shared<nn::Linear>(head_dim * n_heads_, feat_dim));
  Tensor table = empty({(2 * size - 1) * (2 * size - 1), n_heads_});
  register_parameter("relative_position_bias_table", table);
  register_buffer("relative_position_index", ops::relative_position_index(size, size));
  // initialize with truncated normal the bias
  nn::init::trunc_normal_(table, 0.0, 0.02);
}

Tensor RelativePositionalMultiHeadAttention::get_relative_positional_bias() const {
  const Tensor bias_index = buffer("relative_position_index").view({-1});
  return ops::relative_position_bias(parameter("relative_position_bias_table"), bias_index, max_seq_len_);
}

Tensor RelativePositionalMultiHeadAttention::forward(const Tensor& x) {
  TL_CHECK(x.dim() == 4 && x.size(2) == max_seq_len_ && x.size(3) == feat_dim_,
           "RelativePositionalMultiHeadAttention: expected an input (B, G, ", max_seq_len_, ", ", feat_dim_, "), got ",
           x.shape());
  const int64_t b = x.size(0), g = x.size(1), p = x.size(2), d = x.size(3), h = n_heads_, dh = head_dim_;
  const Tensor qkv = submodule("to_qkv")(x);
  const std::vector<Tensor> qkv_chunks = tl::chunk(qkv, 3, -1);
  const Tensor q = qkv_chunks[0].reshape({b, g, p, h, dh}).permute({0, 1, 3, 2, 4});
  Tensor k = qkv_chunks[1].reshape({b, g, p, h, dh}).permute({0, 1, 3, 2, 4});
  const Tensor v = qkv_chunks[2].reshape({b, g, p, h, dh}).permute({0, 1, 3, 2, 4});
  k = k * std::pow(static_cast<double>(feat_dim_), -0.5);
  Tensor dot_prod = tl::einsum("B G H I D, B G H J D -> B G H I J", {q, k});
  const Tensor pos_bias = get_relative_positional_bias();
  dot_prod = nn::functional::softmax(dot_prod + pos_bias, -1);
  Tensor out = tl::einsum("B G H I J, B G H J D -> B G H I D", {dot_prod, v});
  out = out.permute({0, 1, 3, 2, 4}).reshape({b, g, p, d});
  return submodule("merge")(out);
}

Tensor SwapAxes::forward(const Tensor& x) { return tl::transpose(x, a_, b_); }

Tensor WindowPartition::forward(const Tensor& input, int64_t p) {
  TL_CHECK(input.dim() == 4, "WindowPartition: expected an input (B, C, H, W), got ", input.shape());
  const int64_t b = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  // chunk up H and W dimensions
  Tensor x = input.reshape({b, c, h / p, p, w / p, p});
  x = x.permute({0, 2, 4, 3, 5, 1});
  // colapse P * P dimension
  return x.reshape({b, (h / p) * (w / p), p * p, c});
}

Tensor WindowDepartition::forward(const Tensor& input, int64_t p, int64_t h_partitions, int64_t w_partitions) {
  TL_CHECK(input.dim() == 4, "WindowDepartition: expected an input (B, G, P * P, C), got ", input.shape());
  const int64_t b = input.size(0), c = input.size(3);
  // split P * P dimension into 2 P tile dimensionsa
  Tensor x = input.reshape({b, h_partitions, w_partitions, p, p, c});
  // permute into B, C, HP, P, WP, P
  x = x.permute({0, 5, 1, 3, 2, 4});
  // reshape into B, C, H, W
  return x.reshape({b, c, h_partitions * p, w_partitions * p});
}

PartitionAttentionLayer::PartitionAttentionLayer(const PartitionAttentionOptions& o) : p_(0), grid_size_(o.grid_size) {
  TL_CHECK(o.partition_type == "grid" || o.partition_type == "window",
           "partition_type must be either 'grid' or 'window'");
  TL_CHECK(o.partition_size > 0, "PartitionAttentionLayer: partition_size must be positive, got ", o.partition_size);
  const int64_t n_partitions = o.grid_size.first / o.partition_size;
  p_ = o.partition_type == "window" ? o.partition_size : n_partitions;
  const bool grid = o.partition_type == "grid";
  register_module("partition_op", std::make_shared<WindowPartition>());
  register_module("departition_op", std::make_shared<WindowDepartition>());
  register_module("partition_swap", grid ? std::shared_ptr<nn::Module>(std::make_shared<SwapAxes>(-2, -3))
                                         : std::make_shared<nn::Identity>());
  register_module("departition_swap", grid ? std::shared_ptr<nn::Module>(std::make_shared<SwapAxes>(-2, -3))
                                           : std::make_shared<nn::Identity>());
  // it's always going to be partition_size ** 2 because of the axis swap in the case of grid partitioning
  register_module("attn_layer", std::make_shared<nn::Sequential>(
                                    layer_norm(o.in_channels),
                                    std::make_shared<RelativePositionalMultiHeadAttention>(
                                        o.in_channels, o.head_dim, o.partition_size * o.partition_size),
                                    std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = o.attention_dropout})));
  // pre-normalization similar to transformer layers
  const int64_t hidden = o.in_channels * o.mlp_ratio;
  register_module("mlp_layer", std::make_shared<nn::Sequential>(
                                   layer_norm(o.in_channels), std::make_shared<nn::Linear>(o.in_channels, hidden),
                                   std::make_shared<nn::GELU>(), std::make_shared<nn::Linear>(hidden, o.in_channels),
                                   std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = o.mlp_dropout})));
  // layer scale factors
  register_module("stochastic_dropout", std::make_shared<ops::StochasticDepth>(o.p_stochastic_dropout, "row"));
}

Tensor PartitionAttentionLayer::forward(const Tensor& input) {
  const int64_t gh = grid_size_.first / p_, gw = grid_size_.second / p_;
  TL_CHECK(grid_size_.first % p_ == 0 && grid_size_.second % p_ == 0,
           "Grid size must be divisible by partition size. Got grid size of ", py_tuple(grid_size_),
           " and partition size of ", p_);
  Tensor x = dynamic_cast<WindowPartition&>(*child("partition_op")).forward(input, p_);
  x = submodule("partition_swap")(x);
  x = x + submodule("stochastic_dropout")(submodule("attn_layer")(x));
  x = x + submodule("stochastic_dropout")(submodule("mlp_layer")(x));
  x = submodule("departition_swap")(x);
  return dynamic_cast<WindowDepartition&>(*child("departition_op")).forward(x, p_, gh, gw);
}

MaxVitLayer::MaxVitLayer(const MaxVitLayerOptions& o, const ops::NormLayer& norm_layer,
                         const ops::ActivationLayer& activation_layer) {
  auto attention = [&o](const char* type) {
    return std::make_shared<PartitionAttentionLayer>(PartitionAttentionOptions{
        .in_channels = o.out_channels, .head_dim = o.head_dim, .partition_size = o.partition_size,
        .partition_type = type, .grid_size = o.grid_size, .mlp_ratio = o.mlp_ratio,
        .attention_dropout = o.attention_dropout, .mlp_dropout = o.mlp_dropout,
        .p_stochastic_dropout = o.p_stochastic_dropout});
  };
  // convolutional layer, then the attention layers, block -> grid (the order of the draws)
  std::vector<nn::Module::NamedModule> layers;
  layers.emplace_back("MBconv", std::make_shared<MBConv>(o.in_channels, o.out_channels, o.expansion_ratio,
                                                         o.squeeze_ratio, o.stride, norm_layer, activation_layer,
                                                         o.p_stochastic_dropout));
  layers.emplace_back("window_attention", attention("window"));
  layers.emplace_back("grid_attention", attention("grid"));
  register_module("layers", std::make_shared<nn::Sequential>(std::move(layers)));
}

Tensor MaxVitLayer::forward(const Tensor& x) { return submodule("layers")(x); }

MaxVitBlock::MaxVitBlock(const MaxVitLayerOptions& layer, const ops::NormLayer& norm_layer,
                         const ops::ActivationLayer& activation_layer, Size2 input_grid_size,
                         const std::vector<double>& p_stochastic)
    : grid_size_(conv_output_shape(input_grid_size, 3, 2, 1)) {  // account for the first stride of the first layer
  TL_CHECK(!p_stochastic.empty(), "MaxVitBlock: p_stochastic must name at least one layer");
  auto layers = std::make_shared<nn::ModuleList>();
  for (size_t idx = 0; idx < p_stochastic.size(); ++idx) {
    MaxVitLayerOptions o = layer;
    o.in_channels = idx == 0 ? layer.in_channels : layer.out_channels;
    o.stride = idx == 0 ? 2 : 1;
    o.grid_size = grid_size_;
    o.p_stochastic_dropout = p_stochastic[idx];
    layers->append(std::make_shared<MaxVitLayer>(o, norm_layer, activation_layer));
  }
  register_module("layers", layers);
}

Tensor MaxVitBlock::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& layer : dynamic_cast<const nn::ModuleList&>(*child("layers"))) x = (*layer)(x);
  return x;
}

}  // namespace maxvit

MaxVit::MaxVit(int64_t stem_channels, int64_t partition_size, const Shape& block_channels, const Shape& block_layers,
               int64_t head_dim, double stochastic_depth_prob, const MaxVitOptions& options)
    : input_size_(options.input_size) {
  TL_CHECK(!block_channels.empty() && block_channels.size() == block_layers.size(),
           "MaxVit: expected one block_layers entry per block, got block_channels ", block_channels,
           " and block_layers ", block_layers);
  check_num_classes("MaxVit", options.num_classes);
  int64_t total_layers = 0;
  for (int64_t n : block_layers) total_layers += n;
  // np.linspace(0, stochastic_depth_prob, n): no division for a single layer
  check_stochastic_depth_prob("MaxVit", stochastic_depth_prob, total_layers, std::max<int64_t>(total_layers - 1, 1));
  const ops::NormLayer norm_layer = ops::batch_norm2d(1e-3, 0.99);
  const ops::ActivationLayer activation_layer = [](bool) -> std::shared_ptr<nn::Module> {
    return std::make_shared<nn::GELU>();
  };
  // Make sure input size will be divisible by the partition size in all blocks
  std::vector<Size2> block_input_sizes;
  Size2 shape = conv_output_shape(input_size_, 3, 2, 1);
  for (int64_t i = 0; i < block_channels.size(); ++i) {
    shape = conv_output_shape(shape, 3, 2, 1);
    block_input_sizes.push_back(shape);
  }
  for (size_t idx = 0; idx < block_input_sizes.size(); ++idx) {
    const Size2 s = block_input_sizes[idx];
    if (s.first % partition_size == 0 && s.second % partition_size == 0) continue;
    std::string sizes;
    for (const Size2& b : block_input_sizes) sizes += (sizes.empty() ? "" : ", ") + py_tuple(b);
    TL_CHECK(false, "Input size ", py_tuple(s), " of block ", idx, " is not divisible by partition size ",
             partition_size, ". Consider changing the partition size or the input size.\nCurrent configuration "
             "yields the following block input sizes: [", sizes, "].");
  }
  // stem
  register_module("stem", std::make_shared<nn::Sequential>(
                              std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
                                  .in_channels = 3, .out_channels = stem_channels, .kernel_size = 3, .stride = 2,
                                  .norm_layer = norm_layer, .activation_layer = activation_layer, .bias = false}),
                              std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
                                  .in_channels = stem_channels, .out_channels = stem_channels, .kernel_size = 3,
                                  .stride = 1, .norm_layer = nullptr, .activation_layer = nullptr, .bias = true})));
  // account for stem stride
  Size2 input_size = conv_output_shape(input_size_, 3, 2, 1);
  // the stochastic depth probabilities from 0 to stochastic_depth_prob, as np.linspace gives them
  std::vector<double> p_stochastic;
  const double step = total_layers > 1 ? stochastic_depth_prob / static_cast<double>(total_layers - 1) : 0.0;
  for (int64_t i = 0; i < total_layers; ++i)
    p_stochastic.push_back(i == total_layers - 1 ? stochastic_depth_prob : static_cast<double>(i) * step);
  auto blocks = std::make_shared<nn::ModuleList>();
  size_t p_idx = 0;
  for (int64_t i = 0; i < block_channels.size(); ++i) {
    const maxvit::MaxVitLayerOptions layer{
        .in_channels = i == 0 ? stem_channels : block_channels[i - 1], .out_channels = block_channels[i],
        .squeeze_ratio = options.squeeze_ratio, .expansion_ratio = options.expansion_ratio, .head_dim = head_dim,
        .mlp_ratio = options.mlp_ratio, .mlp_dropout = options.mlp_dropout,
        .attention_dropout = options.attention_dropout, .partition_size = partition_size};
    const auto n = static_cast<size_t>(block_layers[i]);
    auto block = std::make_shared<maxvit::MaxVitBlock>(
        layer, norm_layer, activation_layer, input_size,
        std::vector<double>(p_stochastic.begin() + static_cast<std::ptrdiff_t>(p_idx),
                            p_stochastic.begin() + static_cast<std::ptrdiff_t>(p_idx + n)));
    input_size = block->grid_size();
    blocks->append(block);
    p_idx += n;
  }
  register_module("blocks", blocks);
  const int64_t last = block_channels[block_channels.size() - 1];
  register_module("classifier", std::make_shared<nn::Sequential>(
                                    std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1)),
                                    std::make_shared<nn::Flatten>(1, -1), layer_norm(last),
                                    std::make_shared<nn::Linear>(last, last), std::make_shared<nn::Tanh>(),
                                    std::make_shared<nn::Linear>(last, options.num_classes, false)));
  // _init_weights
  for (const auto& m : modules()) {
    if (dynamic_cast<nn::Conv2d*>(m.get()) != nullptr || dynamic_cast<nn::Linear*>(m.get()) != nullptr) {
      nn::init::normal_(m->parameter("weight"), 0.0, 0.02);
      if (m->parameter("bias").defined()) nn::init::zeros_(m->parameter("bias"));
    } else if (dynamic_cast<nn::BatchNorm2d*>(m.get()) != nullptr) {
      nn::init::ones_(m->parameter("weight"));
      nn::init::zeros_(m->parameter("bias"));
    }
  }
}

Tensor MaxVit::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  TL_CHECK(input.dim() == 4, "MaxVit: expected an input (N, C, H, W), got ", input.shape());
  const Size2 stem = conv_output_shape({input.size(2), input.size(3)}, 3, 2, 1);
  const Size2 expected = conv_output_shape(input_size_, 3, 2, 1);
  TL_CHECK(stem == expected, "MaxVit: an input of ", input.size(2), "x", input.size(3), " gives a ", stem.first, "x",
           stem.second, " stem output; the model was built for input_size ", py_tuple(input_size_), " (",
           expected.first, "x", expected.second, ")");
  Tensor x = submodule("stem")(input);
  for (const auto& block : dynamic_cast<const nn::ModuleList&>(*child("blocks"))) x = (*block)(x);
  return submodule("classifier")(x);
}

std::shared_ptr<MaxVit> maxvit_t(const MaxVitOptions& options) {
  return std::make_shared<MaxVit>(64, 7, Shape{64, 128, 256, 512}, Shape{2, 2, 5, 2}, 32, 0.2, options);
}

}  // namespace tl::models
