// nn/functional_traced.cpp — the F.* functions torchvision's models and training loops call that torch.fx records
// as one node (a named call, core/named_call.h): each boxes its arguments in the form torch.nn.functional's own
// handle_torch_function call gives them (F.relu(x) records inplace=False), or, for a C builtin
// (torch._C._nn.avg_pool2d), as the caller wrote them; each is registered to run from those arguments.
#include <array>
#include <string>

#include "core/named_call.h"
#include "nn/functional.h"

namespace tl::nn::functional {
namespace {

using Pair = std::array<int64_t, 2>;

// An int-or-pair argument as Python's caller wrote it: 3 or (3, 5).
AttrValue box(const IntPair& v) { return v.is_single() ? AttrValue(v.h()) : AttrValue(v.shape()); }
AttrValue box(const std::optional<IntPair>& v) { return v ? box(*v) : AttrValue(); }
AttrValue box(const std::optional<int64_t>& v) { return v ? AttrValue(*v) : AttrValue(); }

IntPair pair(const Pair& p) { return IntPair(p[0], p[1]); }
std::optional<IntPair> pair(const std::optional<Pair>& p) {
  return p ? std::optional<IntPair>(pair(*p)) : std::nullopt;
}

// The argument `param` (position i) the function cannot do without.
const BoundArgs& require(const BoundArgs& a, size_t i, const NamedCall& call, std::string_view param) {
  TL_CHECK(a.find(i) != nullptr, call.target, ": missing argument '", param, "'");
  return a;
}

Tensor relu_impl(const Tensor& input, bool inplace) {
  if (!inplace) return tl::relu(input);
  Tensor out = input;
  out.relu_();
  return out;
}

Tensor max_pool2d_impl(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride, IntPair padding,
                       IntPair dilation, bool ceil_mode) {
  return tl::max_pool2d(input, kernel_size.shape(), stride.value_or(kernel_size).shape(), padding.shape(),
                        dilation.shape(), ceil_mode);
}

Tensor avg_pool2d_impl(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride, IntPair padding,
                       bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return tl::avg_pool2d(input, kernel_size.shape(), stride.value_or(kernel_size).shape(), padding.shape(), ceil_mode,
                        count_include_pad, divisor_override);
}

Tensor dropout_impl(const Tensor& input, double p, bool training, bool inplace) {
  TL_CHECK(p >= 0.0 && p <= 1.0, "dropout: probability has to be between 0 and 1, but got ", p);
  if (!inplace) return tl::dropout(input, p, training);
  Tensor out = input;
  if (training) out.copy_(tl::dropout(input, p, training));
  return out;
}

constexpr const char* kRelu = "torch.nn.functional.relu";
constexpr const char* kMaxPool2d = "torch.nn.functional.max_pool2d";
constexpr const char* kAvgPool2d = "torch._C._nn.avg_pool2d";
constexpr const char* kAdaptiveAvgPool2d = "torch.nn.functional.adaptive_avg_pool2d";
constexpr const char* kDropout = "torch.nn.functional.dropout";
constexpr const char* kLayerNorm = "torch.nn.functional.layer_norm";
constexpr const char* kNllLoss = "torch.nn.functional.nll_loss";
constexpr const char* kMseLoss = "torch.nn.functional.mse_loss";

Tensor nll_loss_impl(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     const std::string& reduction) {
  return tl::nll_loss_nd(input, target, weight, reduction_enum(reduction, "nll_loss"), ignore_index);
}

Tensor mse_loss_impl(const Tensor& input, const Tensor& target, const std::string& reduction) {
  const int64_t r = reduction_enum(reduction, "mse_loss");
  const auto [x, y] = detail::broadcast_loss_operands(input, target, "mse_loss");
  return tl::mse_loss(x, y, r);
}

// PyTorch's deprecated size_average / reduce: accepted as None only.
void check_legacy_reduction(const BoundArgs& a, size_t size_average, size_t reduce, const NamedCall& c) {
  for (size_t i : {size_average, reduce}) {
    const AttrValue* v = a.value(i);
    TL_CHECK(v == nullptr || std::holds_alternative<std::monostate>(*v), c.target,
             ": size_average and reduce are deprecated and not supported; use reduction");
  }
}

// Each function run from a named call's arguments, bound to its Python parameters.
[[maybe_unused]] const bool g_registered = [] {
  register_named_function(kRelu, [](const NamedCall& c) {
    const BoundArgs a(c, {"input", "inplace"});
    return TensorList{relu_impl(a.tensor(0), a.get(1, false))};
  });
  register_named_function(kMaxPool2d, [](const NamedCall& c) {
    const BoundArgs a(c, {"input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"});
    require(a, 1, c, "kernel_size");
    TL_CHECK(!a.get(6, false), c.target, ": return_indices=True is not supported; call max_pool2d_with_indices");
    return TensorList{max_pool2d_impl(a.tensor(0), pair(a.get(1, Pair{})), pair(a.get(2, std::optional<Pair>())),
                                      pair(a.get(3, Pair{0, 0})), pair(a.get(4, Pair{1, 1})), a.get(5, false))};
  });
  register_named_function(kAvgPool2d, [](const NamedCall& c) {
    const BoundArgs a(c, {"input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                          "divisor_override"});
    require(a, 1, c, "kernel_size");
    return TensorList{avg_pool2d_impl(a.tensor(0), pair(a.get(1, Pair{})), pair(a.get(2, std::optional<Pair>())),
                                      pair(a.get(3, Pair{0, 0})), a.get(4, false), a.get(5, true),
                                      a.get(6, std::optional<int64_t>()))};
  });
  register_named_function(kAdaptiveAvgPool2d, [](const NamedCall& c) {
    const BoundArgs a(c, {"input", "output_size"});
    require(a, 1, c, "output_size");
    return TensorList{tl::adaptive_avg_pool2d(a.tensor(0), pair(a.get(1, Pair{})).shape())};
  });
  register_named_function(kDropout, [](const NamedCall& c) {
    const BoundArgs a(c, {"input", "p", "training", "inplace"});
    return TensorList{dropout_impl(a.tensor(0), a.get(1, 0.5), a.get(2, true), a.get(3, false))};
  });
  register_named_function(kLayerNorm, [](const NamedCall& c) {
    const BoundArgs a(c, {"input", "normalized_shape", "weight", "bias", "eps"});
    require(a, 1, c, "normalized_shape");
    return TensorList{tl::layer_norm(a.tensor(0), a.get(1, Shape{}), a.tensor(2), a.tensor(3), a.get(4, 1e-5))};
  });
  register_named_function(kNllLoss, [](const NamedCall& c) {
    const BoundArgs a(c, {"input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"});
    check_legacy_reduction(a, 3, 5, c);
    return TensorList{nll_loss_impl(a.tensor(0), a.tensor(1), a.tensor(2), a.get(4, int64_t{-100}),
                                    a.get(6, std::string("mean")))};
  });
  register_named_function(kMseLoss, [](const NamedCall& c) {
    const BoundArgs a(c, {"input", "target", "size_average", "reduce", "reduction"});
    check_legacy_reduction(a, 2, 3, c);
    return TensorList{mse_loss_impl(a.tensor(0), a.tensor(1), a.get(4, std::string("mean")))};
  });
  return true;
}();

}  // namespace

Tensor relu(const Tensor& input, bool inplace) {
  if (auto traced = intercept_named_call(kRelu, [&] { return BoxedCall{{input}, {{"inplace", AttrValue(inplace)}}}; }))
    return *traced;
  return relu_impl(input, inplace);
}

Tensor max_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride, IntPair padding,
                  IntPair dilation, bool ceil_mode) {
  if (auto traced = intercept_named_call(kMaxPool2d, [&] {
        return BoxedCall{{input, box(kernel_size)},
                         {{"stride", box(stride)},
                          {"padding", box(padding)},
                          {"dilation", box(dilation)},
                          {"ceil_mode", AttrValue(ceil_mode)},
                          {"return_indices", AttrValue(false)}}};
      }))
    return *traced;
  return max_pool2d_impl(input, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor avg_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride, IntPair padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  if (auto traced = intercept_named_call(kAvgPool2d, [&] {
        // Positional as written: the trailing arguments still at their defaults are left out, as a caller does.
        BoxedCall call{{input, box(kernel_size), box(stride), box(padding), AttrValue(ceil_mode),
                        AttrValue(count_include_pad), box(divisor_override)}, {}};
        const bool at_default[] = {false, false, !stride, padding.all_equal(0) && padding.is_single(), !ceil_mode,
                                   count_include_pad, !divisor_override};
        size_t n = call.args.size();
        while (at_default[n - 1]) --n;
        call.args.resize(n);
        return call;
      }))
    return *traced;
  return avg_pool2d_impl(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dKwargs& kwargs) {
  if (auto traced = intercept_named_call(kAvgPool2d, [&] {
        BoxedCall call{{input}, {{"kernel_size", box(kwargs.kernel_size)}}};
        if (kwargs.stride) call.kwargs.push_back({"stride", box(*kwargs.stride)});
        if (kwargs.padding) call.kwargs.push_back({"padding", box(*kwargs.padding)});
        if (kwargs.ceil_mode) call.kwargs.push_back({"ceil_mode", AttrValue(*kwargs.ceil_mode)});
        if (kwargs.count_include_pad) call.kwargs.push_back({"count_include_pad", AttrValue(*kwargs.count_include_pad)});
        if (kwargs.divisor_override) call.kwargs.push_back({"divisor_override", AttrValue(*kwargs.divisor_override)});
        return call;
      }))
    return *traced;
  return avg_pool2d_impl(input, kwargs.kernel_size, kwargs.stride, kwargs.padding.value_or(0),
                         kwargs.ceil_mode.value_or(false), kwargs.count_include_pad.value_or(true),
                         kwargs.divisor_override);
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntPair output_size) {
  if (auto traced = intercept_named_call(kAdaptiveAvgPool2d, [&] { return BoxedCall{{input, box(output_size)}, {}}; }))
    return *traced;
  return tl::adaptive_avg_pool2d(input, output_size.shape());
}

Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  if (auto traced = intercept_named_call(kDropout, [&] {
        return BoxedCall{{input}, {{"p", AttrValue(p)}, {"training", AttrValue(training)}, {"inplace", AttrValue(inplace)}}};
      }))
    return *traced;
  return dropout_impl(input, p, training, inplace);
}

Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  if (auto traced = intercept_named_call(kLayerNorm, [&] {
        return BoxedCall{{input, AttrValue(normalized_shape)},
                         {{"weight", weight}, {"bias", bias}, {"eps", AttrValue(eps)}}};
      }))
    return *traced;
  return tl::layer_norm(input, normalized_shape, weight, bias, eps);
}


Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                const std::string& reduction) {
  if (auto traced = intercept_named_call(kNllLoss, [&] {
        return BoxedCall{{input, target},
                         {{"weight", weight},
                          {"size_average", AttrValue()},
                          {"ignore_index", AttrValue(ignore_index)},
                          {"reduce", AttrValue()},
                          {"reduction", AttrValue(reduction)}}};
      }))
    return *traced;
  return nll_loss_impl(input, target, weight, ignore_index, reduction);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  if (auto traced = intercept_named_call(kMseLoss, [&] {
        return BoxedCall{{input, target},
                         {{"size_average", AttrValue()}, {"reduce", AttrValue()}, {"reduction", AttrValue(reduction)}}};
      }))
    return *traced;
  return mse_loss_impl(input, target, reduction);
}

}  // namespace tl::nn::functional
