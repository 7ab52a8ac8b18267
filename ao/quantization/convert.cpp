// ao/quantization/convert.cpp — convert_fx: PyTorch 1.13's convert (torch/ao/quantization/fx/convert.py: observers
// to quantize / dequantize nodes) then _lower_to_native_backend (_lower_to_native_backend.py: reference patterns to
// quantized modules and ops), step by step in its order, so nodes and attributes get PyTorch's names. Everything
// happens on a deep copy, after every observer's qparams are computed: a failure changes nothing.
#include "ao/quantization/convert.h"

#include <algorithm>
#include <any>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>

#include "ao/nn/intrinsic.h"
#include "ao/nn/quantized.h"
#include "ao/quantization/pattern.h"
#include "ao/quantization/prepare.h"
#include "core/grad_mode.h"
#include "core/op_kind.h"
#include "fx/tracer.h"
#include "nn/activation.h"
#include "nn/pooling.h"
#include "ops/ops.h"

namespace tl::ao::quantization {
namespace {

using fx::Argument;
using fx::Node;
using fx::Opcode;

bool is_dequantize(const Node* n) {
  return n != nullptr && n->op() == Opcode::CallMethod && n->target() == "dequantize";
}
bool is_quantize(const Node* n) {
  return n != nullptr && n->op() == Opcode::CallFunction && n->target() == "torch.quantize_per_tensor";
}
Node* node_arg(const Node* n, size_t i) { return i < n->args().size() ? n->args()[i].node() : nullptr; }
bool is_number(const Argument& a) {
  return std::holds_alternative<int64_t>(a.value()) || std::holds_alternative<double>(a.value());
}

// PyTorch's node_name_to_scope: the module whose forward made the node, as the tracer recorded it (a call_module
// node's is its module's path); "" for the root's own nodes and for nodes no trace made.
std::string scope_of(const Node* n) {
  if (n->op() == Opcode::CallModule) return n->target();
  const auto it = n->meta().find(fx::kModuleScope);
  return it == n->meta().end() ? "" : std::any_cast<std::string>(it->second);
}

// The observer's statistics were never updated: its range is still (inf, -inf), or empty per channel.
bool never_calibrated(const ObserverBase& observer) {
  if (!observer.has_buffer("min_val")) return false;
  const Tensor& min_val = observer.buffer("min_val");
  const Tensor& max_val = observer.buffer("max_val");
  if (min_val.numel() == 0) return true;
  return (min_val > max_val).all().item<bool>();
}

struct ObserverQParams {
  double scale;
  int64_t zero_point;
};

class Converter {
 public:
  explicit Converter(ObservedGraphModule& gm) : gm_(gm) {}

  /// get_quantize_node_info of every observer node, before anything changes; none for one that leaves its
  /// value in float (a float16 / float32 placeholder). Throws naming the node.
  void compute_qparams() {
    for (Node* n : gm_.graph().nodes()) {
      if (!is_observer_node(gm_, n)) continue;
      const auto& observer = *gm_.module_at<ObserverBase>(n);
      const std::string where = "convert_fx: observer '" + n->name() + "' (of node '" + node_arg(n, 0)->name() + "')";
      if (observer.dtype() == QDType::Float32 || observer.dtype() == QDType::Float16) continue;
      TL_CHECK(observer.dtype() == QDType::QUInt8, where, " quantizes to ", qdtype_name(observer.dtype()),
               "; the backend's quantized ops take torch.quint8 activations");
      TL_CHECK(!never_calibrated(observer), where, " was never calibrated: run the prepared model on calibration ",
               "data before convert_fx");
      QParams q;
      try {
        q = observer.calculate_qparams();
      } catch (const Error& e) {
        throw Error(where + ": " + e.what());
      }
      qparams_[n] = ObserverQParams{q.scale.item<double>(), q.zero_point.item<int64_t>()};
    }
  }

  /// convert(): each observer node replaced by quantize_per_tensor and dequantize nodes (or removed).
  void insert_quantize_dequantize() {
    for (Node* n : gm_.graph().node_list()) {
      if (!is_observer_node(gm_, n)) continue;
      Node* observed = node_arg(n, 0);
      const auto q = qparams_.find(n);
      const auto guard = gm_.graph().inserting_before(n);
      if (all_none_qconfig(n) || q == qparams_.end()) {
        n->replace_all_uses_with(observed);
        gm_.graph().erase_node(n);
        continue;
      }
      const std::string prefix = module_path_and_prefix(n);
      Node* scale = attribute(prefix + "_scale_", full({}, q->second.scale, DType::Float32));
      Node* zero_point = attribute(prefix + "_zero_point_", full({}, q->second.zero_point, DType::Int64));
      Node* quantize = gm_.graph().call_function(OpKind::QuantizePerTensorTensorQparams,
                                                 {observed, scale, zero_point, DType::QUInt8});
      Node* dequantize = gm_.graph().call_method(OpKind::Dequantize, {quantize});
      n->replace_all_uses_with(dequantize);
      gm_.graph().erase_node(n);
    }
  }

  /// _lower_to_native_backend's steps for the patterns the onednn kernels run.
  void lower() {
    lower_weighted_modules();
    lower_binary_ops();
    lower_special_patterns();
    gm_.graph().eliminate_dead_code();
  }

 private:
  bool has_none_qconfig(const Node* n) const { return gm_.has_qconfig_entry(n->name()) && !gm_.qconfig_of(n->name()); }

  // Every argument and user of the observer node is left in float.
  bool all_none_qconfig(const Node* obs) const {
    for (const Argument& a : obs->args())
      if (a.node() != nullptr && !has_none_qconfig(a.node())) return false;
    return std::all_of(obs->users().begin(), obs->users().end(), [&](const Node* u) { return has_none_qconfig(u); });
  }

  // get_module_path_and_prefix: the observed node's module path, or for an input observed only for its user
  // (a graph input), the first user's path and "_input".
  std::string module_path_and_prefix(const Node* obs) const {
    const Node* observed = node_arg(obs, 0);
    const bool input_only = has_none_qconfig(observed);
    const Node* first_use = input_only ? (obs->users().empty() ? nullptr : obs->users().front()) : observed;
    return (first_use != nullptr ? scope_of(first_use) : "") + (input_only ? "_input" : "");
  }

  // create_getattr_from_value: a buffer named prefix + the first free index ('.' -> '_'), and its get_attr node.
  Node* attribute(std::string prefix, const Tensor& value) {
    std::replace(prefix.begin(), prefix.end(), '.', '_');
    std::string name;
    for (int64_t i = 0;; ++i) {
      name = prefix + std::to_string(i);
      if (!gm_.has_buffer(name) && !gm_.has_parameter(name) && !gm_.has_child(name)) break;
    }
    gm_.register_buffer(name, value);
    return gm_.graph().get_attr(name);
  }

  double scale_of(const Node* get_attr) const { return gm_.fetch_attr(get_attr->target()).item<double>(); }
  int64_t zero_point_of(const Node* get_attr) const { return gm_.fetch_attr(get_attr->target()).item<int64_t>(); }

  // The weight quantized by a fresh observer of the node's qconfig (convert_weighted_module).
  static Tensor quantized_weight(const Tensor& weight, const QConfig& qconfig, const Node* n) {
    NoGradGuard no_grad;
    const std::shared_ptr<ObserverBase> observer = qconfig.weight();
    TL_CHECK(observer->dtype() == QDType::QInt8, "convert_fx: node '", n->name(), "': its qconfig quantizes weights ",
             "as ", qdtype_name(observer->dtype()), "; the backend's quantized ops take torch.qint8 weights");
    observer->forward(weight);
    const QParams q = observer->calculate_qparams();
    if (const auto* per_channel = dynamic_cast<const PerChannelMinMaxObserver*>(observer.get()))
      return quantize_per_channel(weight, q.scale, q.zero_point, per_channel->ch_axis(), DType::QInt8);
    return quantize_per_tensor(weight, q.scale.item<double>(), q.zero_point.item<int64_t>(), DType::QInt8);
  }

  // The quantized module for a float conv / linear (fused with a ReLU or not); nullptr for other modules.
  std::shared_ptr<tl::nn::Module> quantized_module(const Node* ref, double scale, int64_t zero_point) const {
    namespace q = tl::ao::nn::quantized;
    namespace qi = tl::ao::nn::intrinsic::quantized;
    const QConfig& qconfig = *gm_.qconfig_of(ref->name());
    if (auto conv = gm_.module_at<tl::nn::Conv2d>(ref))
      return q::Conv2d::from_float(*conv, quantized_weight(conv->parameter("weight"), qconfig, ref), scale, zero_point);
    if (auto linear = gm_.module_at<tl::nn::Linear>(ref))
      return q::Linear::from_float(*linear, quantized_weight(linear->parameter("weight"), qconfig, ref), scale,
                                   zero_point);
    if (auto fused = gm_.module_at<tl::ao::nn::intrinsic::ConvReLU2d>(ref)) {
      const auto conv = std::dynamic_pointer_cast<tl::nn::Conv2d>(fused->children().at(0));
      if (!conv) return nullptr;
      const Tensor w = quantized_weight(conv->parameter("weight"), qconfig, ref);
      return std::make_shared<qi::ConvReLU2d>(conv->options(), w, conv->parameter("bias"), scale, zero_point);
    }
    if (auto fused = gm_.module_at<tl::ao::nn::intrinsic::LinearReLU>(ref)) {
      const auto linear = std::dynamic_pointer_cast<tl::nn::Linear>(fused->children().at(0));
      if (!linear) return nullptr;
      const Tensor w = quantized_weight(linear->parameter("weight"), qconfig, ref);
      return std::make_shared<qi::LinearReLU>(w, linear->parameter("bias"), scale, zero_point);
    }
    return nullptr;
  }

  // _lower_static_weighted_ref_module: dequantize -> conv / linear -> quantize becomes the quantized module.
  void lower_weighted_modules() {
    for (Node* q : gm_.graph().node_list()) {
      if (!is_quantize(q)) continue;
      Node* ref = node_arg(q, 0);
      if (ref == nullptr || ref->op() != Opcode::CallModule || has_none_qconfig(ref) ||
          !is_dequantize(node_arg(ref, 0)))
        continue;
      Node* scale = node_arg(q, 1);
      Node* zero_point = node_arg(q, 2);
      std::shared_ptr<tl::nn::Module> module = quantized_module(ref, scale_of(scale), zero_point_of(zero_point));
      if (!module) continue;
      gm_.set_submodule(ref->target(), std::move(module));
      Node* dq = node_arg(ref, 0);
      ref->replace_input_with(dq, node_arg(dq, 0));
      q->replace_all_uses_with(ref);
      gm_.graph().erase_node(q);
      gm_.graph().erase_node(scale);
      gm_.graph().erase_node(zero_point);
    }
  }

  bool is_relu(const Node* n) const {
    return (n->op() == Opcode::CallFunction && (n->target() == "torch.relu" || n->target() == "torch.nn.functional.relu")) ||
           gm_.module_at<tl::nn::ReLU>(n) != nullptr;
  }

  // QBIN_OP_MAPPING / QBIN_RELU_OP_MAPPING: the quantized op of an add or mul (fused with a ReLU or not), of two
  // quantized tensors (the output's qparams as arguments) or of one and a number (the .Scalar overloads).
  static std::optional<OpKind> quantized_binary_op(const std::string& target, bool relu, bool scalar) {
    if (target == "operator.add" || target == "torch.add") {
      if (scalar) return relu ? OpKind::QuantizedAddReluScalar : OpKind::QuantizedAddScalar;
      return relu ? OpKind::QuantizedAddReluTensorQparams : OpKind::QuantizedAddTensorQparams;
    }
    if (target == "operator.mul" || target == "torch.mul") {
      if (scalar) return relu ? OpKind::QuantizedMulReluScalar : OpKind::QuantizedMulScalar;
      return relu ? OpKind::QuantizedMulReluTensorQparams : OpKind::QuantizedMulTensorQparams;
    }
    return std::nullopt;
  }

  // _lower_quantized_binary_op: dequantize (x2, or x1 and a number) -> add / mul (-> relu) -> quantize becomes
  // quantized::add(_relu) / mul(_relu).
  void lower_binary_ops() {
    for (Node* q : gm_.graph().node_list()) {
      if (!is_quantize(q)) continue;
      Node* op = node_arg(q, 0);
      Node* relu = nullptr;
      if (op != nullptr && is_relu(op)) {
        relu = op;
        op = node_arg(relu, 0);
      }
      if (op == nullptr || op->op() != Opcode::CallFunction || has_none_qconfig(op) || !op->kwargs().empty() ||
          op->args().size() != 2)
        continue;
      // Each operand a dequantized tensor or a number (the tracer records 1.0 + x as x + 1.0).
      int tensors = 0;
      bool other_operand = false;
      for (const Argument& a : op->args()) {
        if (is_dequantize(a.node())) ++tensors;
        else other_operand = other_operand || !is_number(a);
      }
      const std::optional<OpKind> kind = quantized_binary_op(op->target(), relu != nullptr, tensors == 1);
      if (!kind || tensors == 0 || other_operand) continue;
      std::vector<Argument> args;
      for (const Argument& a : op->args()) args.push_back(a.is_node() ? Argument(node_arg(a.node(), 0)) : a);
      if (tensors == 2) {
        args.push_back(q->args()[1]);
        args.push_back(q->args()[2]);
      }
      Node* qop = nullptr;
      {
        const auto guard = gm_.graph().inserting_after(q);
        qop = gm_.graph().call_function(*kind, std::move(args));
      }
      q->replace_all_uses_with(qop);
      gm_.graph().erase_node(q);
      if (relu != nullptr) gm_.graph().erase_node(relu);
      gm_.graph().erase_node(op);
    }
  }

  // The ops of special_pattern_replacement whose torchless kernels take quantized tensors: pooling, mean, dropout,
  // hardswish and batch norm (the last three swapped for their quantized modules), relu, relu6 / hardtanh,
  // torch.flatten, torch.cat and the view methods, all keeping their input's qparams, and the fixed-qparams
  // hardsigmoid and sigmoid.
  bool runs_quantized(const Node* n) const {
    switch (n->op()) {
      case Opcode::CallModule:
        return gm_.module_at<tl::nn::MaxPool2d>(n) != nullptr || gm_.module_at<tl::nn::AvgPool2d>(n) != nullptr ||
               gm_.module_at<tl::nn::AdaptiveAvgPool2d>(n) != nullptr || gm_.module_at<tl::nn::Dropout>(n) != nullptr ||
               gm_.module_at<tl::nn::BatchNorm2d>(n) != nullptr ||
               gm_.module_at<tl::ao::nn::intrinsic::BNReLU2d>(n) != nullptr ||
               gm_.module_at<tl::nn::ReLU>(n) != nullptr || gm_.module_at<tl::nn::ReLU6>(n) != nullptr ||
               gm_.module_at<tl::nn::Hardtanh>(n) != nullptr || gm_.module_at<tl::nn::Hardswish>(n) != nullptr ||
               gm_.module_at<tl::nn::Hardsigmoid>(n) != nullptr || gm_.module_at<tl::nn::Sigmoid>(n) != nullptr;
      case Opcode::CallFunction:
        for (const char* f : {"torch.flatten", "torch.cat", "torch.sigmoid", "torch.nn.functional.relu",
                              "torch.nn.functional.relu6", "torch.nn.functional.hardtanh",
                              "torch.nn.functional.hardsigmoid", "torch.nn.functional.adaptive_avg_pool2d",
                              "torch.nn.functional.max_pool2d", "torch._C._nn.avg_pool2d", "torch.mean"})
          if (n->target() == f) return true;
        return false;
      case Opcode::CallMethod:
        for (const char* m : {"contiguous", "mean", "permute", "relu", "relu_", "reshape", "sigmoid", "transpose",
                              "unsqueeze", "view"})
          if (n->target() == m) return true;
        return false;
      default: return false;
    }
  }

  // special_pattern_replacement's module swap (SPECIAL_PATTERN_LOWER_MODULE_MAP): a Dropout becomes
  // torch.ao.nn.quantized.Dropout; a Hardswish, a BatchNorm2d and a BNReLU2d their quantized modules with the
  // output's qparams.
  void swap_special_module(const Node* op, const Node* q) {
    namespace qnn = tl::ao::nn::quantized;
    const double scale = scale_of(node_arg(q, 1));
    const int64_t zero_point = zero_point_of(node_arg(q, 2));
    if (auto dropout = gm_.module_at<tl::nn::Dropout>(op))
      gm_.set_submodule(op->target(), std::make_shared<qnn::Dropout>(dropout->options()));
    if (gm_.module_at<tl::nn::Hardswish>(op))
      gm_.set_submodule(op->target(), std::make_shared<qnn::Hardswish>(scale, zero_point));
    if (auto bn = gm_.module_at<tl::nn::BatchNorm2d>(op))
      gm_.set_submodule(op->target(), std::make_shared<qnn::BatchNorm2d>(*bn, scale, zero_point));
    if (auto fused = gm_.module_at<tl::ao::nn::intrinsic::BNReLU2d>(op)) {
      const auto bn = std::dynamic_pointer_cast<tl::nn::BatchNorm2d>(fused->children().at(0));
      TL_INTERNAL_ASSERT(bn != nullptr, "convert_fx: BNReLU2d '", op->target(), "' holds no BatchNorm2d");
      gm_.set_submodule(op->target(),
                        std::make_shared<tl::ao::nn::intrinsic::quantized::BNReLU2d>(*bn, scale, zero_point));
    }
  }

  // special_pattern_replacement: dequantize -> op -> quantize becomes the op on the quantized tensor.
  void lower_special_patterns() {
    for (Node* q : gm_.graph().node_list()) {
      if (!is_quantize(q)) continue;
      Node* op = node_arg(q, 0);
      if (op == nullptr || !runs_quantized(op) || op->args().empty()) continue;
      // The first argument: one dequantize node, or (cat) a list of them.
      const Argument& first = op->args()[0];
      std::vector<Node*> dqs;
      for (const Argument& a : first.is_list() ? first.as_list().items : std::vector<Argument>{first})
        dqs.push_back(a.node());
      if (dqs.empty() || !std::all_of(dqs.begin(), dqs.end(), is_dequantize)) continue;
      swap_special_module(op, q);
      for (Node* dq : dqs) op->replace_input_with(dq, node_arg(dq, 0));
      Node* scale = node_arg(q, 1);
      Node* zero_point = node_arg(q, 2);
      q->replace_all_uses_with(op);
      gm_.graph().erase_node(q);
      gm_.graph().erase_node(scale);
      gm_.graph().erase_node(zero_point);
    }
  }

  ObservedGraphModule& gm_;
  std::unordered_map<const Node*, ObserverQParams> qparams_;
};

}  // namespace

std::shared_ptr<fx::GraphModule> convert_fx(const std::shared_ptr<fx::GraphModule>& observed) {
  const auto prepared = std::dynamic_pointer_cast<ObservedGraphModule>(observed);
  TL_CHECK(prepared != nullptr, "convert_fx: expected the GraphModule prepare_fx returned, got ",
           observed ? observed->type_name() : std::string("null"));
  const auto copy = std::static_pointer_cast<ObservedGraphModule>(prepared->clone());
  Converter converter(*copy);
  converter.compute_qparams();
  converter.insert_quantize_dequantize();
  // convert() ends in a GraphModule over a copy of its graph (only the live nodes' names are taken), without
  // what no one uses; lowering works on that one, and ends in a GraphModule of what its graph refers to.
  auto reference = std::make_shared<ObservedGraphModule>(*copy, copy->graph().copy(), copy->qconfig_map());
  reference->graph().eliminate_dead_code();
  Converter(*reference).lower();
  return std::make_shared<fx::GraphModule>(*reference, reference->graph().copy());
}

}  // namespace tl::ao::quantization
