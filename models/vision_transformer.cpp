// models/vision_transformer.cpp — torchvision/models/vision_transformer.py in C++: the same registration
// order (it fixes repr, state_dict order and the order of the initialisation's draws), init and forward.
#include "models/vision_transformer.h"

#include <cmath>
#include <vector>

#include "core/py_repr.h"
#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/attention.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"

namespace tl::models {
namespace {

nn::ForwardSignature tensor_to_tensor(const std::string& arg) { return {{arg}, {"torch.Tensor"}, ""}; }

// torch._assert(input.dim() == 3, ...) of Encoder and EncoderBlock.
void check_sequence(const Tensor& input) {
  TL_CHECK(input.dim() == 3, "Expected (batch_size, seq_length, hidden_dim) got ",
           py_size(std::vector<int64_t>(input.shape().begin(), input.shape().end())));
}

std::shared_ptr<nn::LayerNorm> layer_norm(int64_t hidden_dim) {
  return std::make_shared<nn::LayerNorm>(nn::LayerNormOptions{.normalized_shape = {hidden_dim}, .eps = 1e-6});
}

}  // namespace

namespace vit {

MLPBlock::MLPBlock(int64_t in_dim, int64_t mlp_dim, double dropout)
    : ops::MLP(ops::MLPOptions{
          .in_channels = in_dim,
          .hidden_channels = {mlp_dim, in_dim},
          .activation_layer = [](std::optional<bool>) -> std::shared_ptr<nn::Module> {
            return std::make_shared<nn::GELU>();
          },
          .inplace = std::nullopt,
          .dropout = dropout}) {
  ops::xavier_linear_init_(*this);
}

EncoderBlock::EncoderBlock(int64_t num_heads, int64_t hidden_dim, int64_t mlp_dim, double dropout,
                           double attention_dropout) {
  register_module("ln_1", layer_norm(hidden_dim));
  const auto attention_options =
      nn::MultiheadAttentionOptions(hidden_dim, num_heads).dropout(attention_dropout).batch_first(true);
  register_module("self_attention", std::make_shared<nn::MultiheadAttention>(attention_options));
  register_module("dropout", std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = dropout}));
  register_module("ln_2", layer_norm(hidden_dim));
  register_module("mlp", std::make_shared<MLPBlock>(hidden_dim, mlp_dim, dropout));
}

nn::ForwardSignature EncoderBlock::forward_signature() const { return tensor_to_tensor("input"); }

Tensor EncoderBlock::forward(const Tensor& input) {
  check_sequence(input);
  Tensor x = submodule("ln_1")(input);
  auto& attention = dynamic_cast<nn::MultiheadAttention&>(*child("self_attention"));
  x = std::get<0>(attention.forward(x, x, x, Tensor(), /*need_weights=*/false));
  x = submodule("dropout")(x);
  x = x + input;
  const Tensor y = submodule("mlp")(submodule("ln_2")(x));
  return x + y;
}

Encoder::Encoder(int64_t seq_length, int64_t num_layers, int64_t num_heads, int64_t hidden_dim, int64_t mlp_dim,
                 double dropout, double attention_dropout) {
  Tensor pos_embedding = empty({1, seq_length, hidden_dim});
  nn::init::normal_(pos_embedding, 0.0, 0.02);  // from BERT
  register_parameter("pos_embedding", pos_embedding);
  register_module("dropout", std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = dropout}));
  auto layers = std::make_shared<nn::Sequential>();
  for (int64_t i = 0; i < num_layers; ++i)
    layers->register_module("encoder_layer_" + std::to_string(i),
                            std::make_shared<EncoderBlock>(num_heads, hidden_dim, mlp_dim, dropout, attention_dropout));
  register_module("layers", layers);
  register_module("ln", layer_norm(hidden_dim));
}

nn::ForwardSignature Encoder::forward_signature() const { return tensor_to_tensor("input"); }

Tensor Encoder::forward(const Tensor& input) {
  check_sequence(input);
  const Tensor x = input + parameter("pos_embedding");
  return submodule("ln")(submodule("layers")(submodule("dropout")(x)));
}

}  // namespace vit

VisionTransformer::VisionTransformer(int64_t patch_size, int64_t num_layers, int64_t num_heads, int64_t hidden_dim,
                                     int64_t mlp_dim, const VisionTransformerOptions& options)
    : patch_size_(patch_size), hidden_dim_(hidden_dim), options_(options) {
  check_num_classes("VisionTransformer", options.num_classes);
  TL_CHECK(patch_size > 0 && options.image_size % patch_size == 0,
           "Input shape indivisible by patch size! (image_size ", options.image_size, ", patch_size ", patch_size, ")");
  // nn.MultiheadAttention's assertion, before any weight is drawn
  TL_CHECK(num_heads > 0 && hidden_dim % num_heads == 0, "embed_dim must be divisible by num_heads (hidden_dim ",
           hidden_dim, ", num_heads ", num_heads, ")");
  auto conv_proj = std::make_shared<nn::Conv2d>(nn::Conv2dOptions{
      .in_channels = 3, .out_channels = hidden_dim, .kernel_size = patch_size, .stride = patch_size});
  register_module("conv_proj", conv_proj);
  const int64_t seq_length = (options.image_size / patch_size) * (options.image_size / patch_size) + 1;
  register_parameter("class_token", zeros({1, 1, hidden_dim}));
  register_module("encoder", std::make_shared<vit::Encoder>(seq_length, num_layers, num_heads, hidden_dim, mlp_dim,
                                                            options.dropout, options.attention_dropout));
  auto heads = std::make_shared<nn::Sequential>();
  if (options.representation_size) {
    heads->register_module("pre_logits", std::make_shared<nn::Linear>(hidden_dim, *options.representation_size));
    heads->register_module("act", std::make_shared<nn::Tanh>());
    heads->register_module("head", std::make_shared<nn::Linear>(*options.representation_size, options.num_classes));
  } else {
    heads->register_module("head", std::make_shared<nn::Linear>(hidden_dim, options.num_classes));
  }
  register_module("heads", heads);

  const double fan_in = 3.0 * static_cast<double>(patch_size * patch_size);
  nn::init::trunc_normal_(conv_proj->parameter("weight"), 0.0, std::sqrt(1.0 / fan_in));
  nn::init::zeros_(conv_proj->parameter("bias"));
  if (options.representation_size) {
    auto pre_logits = heads->child("pre_logits");
    nn::init::trunc_normal_(pre_logits->parameter("weight"), 0.0, std::sqrt(1.0 / static_cast<double>(hidden_dim)));
    nn::init::zeros_(pre_logits->parameter("bias"));
  }
  nn::init::zeros_(heads->child("head")->parameter("weight"));
  nn::init::zeros_(heads->child("head")->parameter("bias"));
}

nn::ForwardSignature VisionTransformer::forward_signature() const { return tensor_to_tensor("x"); }

Tensor VisionTransformer::forward(const Tensor& x) {
  const BuffersKeptOnError kept(*this);
  // _process_input: `n, c, h, w = x.shape`, then torchvision's asserts, before the convolution runs.
  TL_CHECK(x.dim() == 4, "VisionTransformer: expected an input (N, C, H, W), got ", x.shape());
  const int64_t n = x.size(0), h = x.size(2), w = x.size(3), image_size = options_.image_size;
  TL_CHECK(h == image_size, "Wrong image height! Expected ", image_size, " but got ", h, "!");
  TL_CHECK(w == image_size, "Wrong image width! Expected ", image_size, " but got ", w, "!");
  const int64_t n_h = h / patch_size_, n_w = w / patch_size_;
  Tensor out = submodule("conv_proj")(x);
  out = out.reshape({n, hidden_dim_, n_h * n_w}).permute({0, 2, 1});

  const Tensor batch_class_token = parameter("class_token").expand({n, -1, -1});
  out = tl::cat({batch_class_token, out}, 1);
  out = submodule("encoder")(out);
  out = out.index({indexing::Slice(), 0});
  return submodule("heads")(out);
}

std::shared_ptr<VisionTransformer> vit_b_16(const VisionTransformerOptions& options) {
  return std::make_shared<VisionTransformer>(16, 12, 12, 768, 3072, options);
}

std::shared_ptr<VisionTransformer> vit_b_32(const VisionTransformerOptions& options) {
  return std::make_shared<VisionTransformer>(32, 12, 12, 768, 3072, options);
}

std::shared_ptr<VisionTransformer> vit_l_16(const VisionTransformerOptions& options) {
  return std::make_shared<VisionTransformer>(16, 24, 16, 1024, 4096, options);
}

std::shared_ptr<VisionTransformer> vit_l_32(const VisionTransformerOptions& options) {
  return std::make_shared<VisionTransformer>(32, 24, 16, 1024, 4096, options);
}

std::shared_ptr<VisionTransformer> vit_h_14(const VisionTransformerOptions& options) {
  return std::make_shared<VisionTransformer>(14, 32, 16, 1280, 5120, options);
}

}  // namespace tl::models
