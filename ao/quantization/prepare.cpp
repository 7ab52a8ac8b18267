// ao/quantization/prepare.cpp — prepare_fx: PyTorch 1.13's insert_observers_for_model for post-training static
// quantization (torch/ao/quantization/fx/prepare.py), over a fused copy of the model.
#include "ao/quantization/prepare.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "ao/quantization/fuse.h"
#include "ao/quantization/pattern.h"

namespace tl::ao::quantization {
namespace {

using fx::Node;
using fx::Opcode;

// Convolutions and linear layers, whose weights the backend quantizes as torch.qint8.
bool has_int8_weight(const std::string& type) {
  for (const char* t : {"torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.Conv3d", "torch.nn.Linear",
                        "torch.ao.nn.intrinsic.ConvReLU2d", "torch.ao.nn.intrinsic.LinearReLU",
                        "torch.nn.functional.conv1d", "torch.nn.functional.conv2d", "torch.nn.functional.conv3d",
                        "torch.nn.functional.linear"}) {
    if (type == t) return true;
  }
  return false;
}

class ObserverInserter {
 public:
  ObserverInserter(fx::GraphModule& gm, const QConfigMapping& mapping, const BackendConfig& backend_config)
      : gm_(gm), patterns_(sorted_patterns(backend_config)), matches_(find_matches(gm_, patterns_)) {
    for (const PatternMatch& m : matches_) {
      for (Node* n : m.nodes) match_of_[n] = &m;
    }
    const QConfigMapping fused = with_fused_types(mapping);
    for (Node* n : gm_.graph().nodes()) {
      if (n->op() == Opcode::CallModule) {
        qconfig_of_[n] = fused.qconfig_for(n->target(), object_type_of(gm_, *n));
      } else if (n->op() == Opcode::CallFunction || n->op() == Opcode::CallMethod) {
        // PyTorch also applies the qconfig of the module whose forward made the node (its scope); torchless's
        // tracer does not record scopes yet, so a function takes its object type's qconfig, else the global.
        qconfig_of_[n] = fused.object_type_qconfig(n->target());
      }
    }
  }

  /// Throws tl::Error naming the first quantized node whose qconfig the backend cannot run.
  void check_dtypes() const {
    for (const PatternMatch& m : matches_) {
      for (const Node* n : m.nodes) {
        const QConfigAny& q = qconfig_of_.at(n);
        if (!q) continue;
        const std::string type = object_type_of(gm_, *n);
        const QDType act = q->activation()->dtype();
        TL_CHECK(act == QDType::QUInt8, "prepare_fx: node '", n->name(), "' (", type, "): its qconfig observes ",
                 "activations as ", qdtype_name(act), "; the backend quantizes activations as torch.quint8");
        if (!has_int8_weight(type)) continue;
        const QDType weight = q->weight()->dtype();
        TL_CHECK(weight == QDType::QInt8, "prepare_fx: node '", n->name(), "' (", type, "): its qconfig observes ",
                 "weights as ", qdtype_name(weight), "; the backend quantizes weights as torch.qint8");
      }
    }
  }

  /// update_qconfig_for_fusion: a fused module's type takes the object-type qconfig of its first module's type.
  QConfigMapping with_fused_types(QConfigMapping mapping) const {
    for (Node* n : gm_.graph().nodes()) {
      if (n->op() != Opcode::CallModule) continue;
      const std::shared_ptr<tl::nn::Module> m = gm_.get_submodule(n->target());
      const std::string type = python_class_name(*m);
      if (type.rfind("torch.ao.nn.intrinsic.", 0) != 0) continue;
      const std::string first = python_class_name(*m->children().at(0));
      const auto& entries = mapping.object_type_qconfigs();
      const auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == first; });
      if (it != entries.end()) mapping.set_object_type(type, QConfigAny(it->second));
    }
    return mapping;
  }

  /// PyTorch's qconfig_map: each node's qconfig by name, placeholders' None included; observers are left out.
  std::unordered_map<std::string, QConfigAny> qconfig_map() const {
    std::unordered_map<std::string, QConfigAny> map;
    for (Node* n : gm_.graph().nodes()) {
      if (is_observer_node(gm_, n)) continue;
      const auto it = qconfig_of_.find(n);
      map[n->name()] = it == qconfig_of_.end() ? QConfigAny() : it->second;
    }
    return map;
  }

  void run() {
    for (Node* n : gm_.graph().node_list()) {
      if (n->op() == Opcode::Placeholder || n->op() == Opcode::GetAttr || n->op() == Opcode::Output) continue;
      const auto it = match_of_.find(n);
      if (it == match_of_.end() || !qconfig_of_.at(n) || n->target() == "operator.getitem") continue;
      const PatternMatch& m = *it->second;
      const QConfig& qconfig = *qconfig_of_.at(n);
      if (n == m.root()) insert_input_observers(n, qconfig, m);
      if (n != m.last()) continue;
      Node* obs = insert_observer(n, qconfig.activation);
      for (Node* user : std::vector<Node*>(n->users())) {
        if (user != obs) user->replace_input_with(n, obs);
      }
      const bool reuse_input = dynamic_cast<const ReuseInputObserver*>(qconfig.activation().get()) != nullptr;
      if ((shares_input_observer(m) && observer_in_same_graph(n)) || reuse_input) {
        if (!share_input_observer(n)) remove_output_observer(n);
      }
    }
  }

 private:
  // The node's output will be quint8 (a matched node with a qconfig); float otherwise.
  bool quantized(const Node* n) const {
    const auto q = qconfig_of_.find(n);
    return match_of_.count(n) != 0 && q != qconfig_of_.end() && q->second.has_value() &&
           n->target() != "operator.getitem";
  }

  // get_arg_target_dtype_as_output: an observer stands for the node it observes.
  bool quantized_as_output(const Node* arg) const {
    return quantized(is_observer_node(gm_, arg) ? arg->args()[0].node() : arg);
  }

  bool shares_input_observer(const PatternMatch& m) const {
    if (!m.config->binary) return m.config->observation_type == ObservationType::OutputShareObserverWithInput;
    int tensors = 0;
    for (const fx::Argument& a : m.root()->args()) tensors += a.is_node() ? 1 : 0;
    return tensors == 1;
  }

  // is_observer_in_same_graph: a quantized op reading a graph input directly assumes it observed elsewhere.
  bool observer_in_same_graph(const Node* n) const {
    return !(!n->args().empty() && n->args()[0].is_node() && n->args()[0].node()->op() == Opcode::Placeholder);
  }

  Node* insert_observer(Node* observed, const ObserverFactory& factory) {
    std::string name;
    for (int64_t i = 0;; ++i) {
      name = "activation_post_process_" + std::to_string(i);
      if (!gm_.has_child(name) && !gm_.has_parameter(name) && !gm_.has_buffer(name)) break;
    }
    gm_.register_module(name, factory());
    const auto guard = gm_.graph().inserting_after(observed);
    return gm_.graph().call_module(name, {fx::Argument(observed)});
  }

  // maybe_insert_input_observer_for_arg_or_kwarg, for one argument (lists element by element).
  // `index`: the argument's position (none for a keyword argument).
  fx::Argument observed_input(const fx::Argument& arg, std::optional<size_t> index, const QConfig& qconfig,
                              const PatternMatch& m) {
    if (arg.is_list()) {
      fx::ArgumentList list = arg.as_list();
      for (fx::Argument& item : list.items) item = observed_input(item, index, qconfig, m);
      return fx::Argument(list);
    }
    Node* a = arg.node();
    if (a == nullptr || (index && m.config->bias_index == index)) return arg;  // constants; a bias stays float
    const bool is_weight = index && m.config->weight_index == index;
    const bool reuse_input = dynamic_cast<const ReuseInputObserver*>(qconfig.activation().get()) != nullptr;
    // Weights are float as outputs; activations are observed unless already quint8.
    if (reuse_input || (!is_weight && quantized_as_output(a))) return arg;
    const ObserverFactory& factory = is_weight ? qconfig.weight : qconfig.activation;
    const std::shared_ptr<ObserverBase> probe = factory();
    if (probe->dtype() == QDType::Float32 || probe->dtype() == QDType::Float16) return arg;  // a float weight
    for (Node* user : a->users()) {
      if (user->op() != Opcode::CallModule) continue;
      const auto* existing = dynamic_cast<const ObserverBase*>(gm_.get_submodule(user->target()).get());
      if (existing != nullptr && existing->type_name() == probe->type_name() && existing->dtype() == probe->dtype())
        return fx::Argument(user);
    }
    return fx::Argument(insert_observer(a, [&probe] { return probe; }));
  }

  void insert_input_observers(Node* n, const QConfig& qconfig, const PatternMatch& m) {
    std::vector<fx::Argument> args = n->args();
    for (size_t i = 0; i < args.size(); ++i) args[i] = observed_input(args[i], i, qconfig, m);
    fx::Kwargs kwargs = n->kwargs();
    for (auto& [key, value] : kwargs) value = observed_input(value, std::nullopt, qconfig, m);
    n->set_args(std::move(args));
    n->set_kwargs(std::move(kwargs));
  }

  // maybe_make_input_output_share_observers: the output observer (and, for a list input, every input's
  // observer) becomes the first input's observer module. False, changing nothing, when none is found upstream.
  bool share_input_observer(Node* n) {
    const fx::Argument* first = nullptr;
    for (const fx::Argument& a : n->args()) {
      if (a.is_node() || a.is_list()) {
        first = &a;
        break;
      }
    }
    if (first == nullptr) return false;
    fx::Argument cursor = first->is_list() ? first->as_list().items.at(0) : *first;
    for (int guard = 0; !(cursor.is_node() && is_observer_node(gm_, cursor.node())); ++guard) {
      TL_INTERNAL_ASSERT(guard < 10000, "prepare_fx: unable to find observer of previous node");
      if (!cursor.is_node() || cursor.node()->op() == Opcode::Placeholder || cursor.node()->args().empty())
        return false;
      fx::Argument next = cursor.node()->args().back();
      for (const fx::Argument& a : cursor.node()->args()) {
        if (a.is_node()) {
          next = a;
          break;
        }
      }
      cursor = next;
    }
    const std::shared_ptr<tl::nn::Module> shared = gm_.get_submodule(cursor.node()->target());
    std::vector<std::string> targets;
    if (first->is_list()) {
      for (size_t i = 1; i < first->as_list().items.size(); ++i) {
        Node* input = first->as_list().items[i].node();
        while (input != nullptr && !is_observer_node(gm_, input)) {
          if (input->args().empty()) return false;
          input = input->args()[0].node();
        }
        if (input == nullptr) return false;
        targets.push_back(input->target());
      }
    }
    for (const Node* user : n->users()) targets.push_back(user->target());
    for (const std::string& target : targets) gm_.set_submodule(target, shared);
    return true;
  }

  void remove_output_observer(Node* n) {
    for (Node* obs : std::vector<Node*>(n->users())) {
      obs->replace_all_uses_with(n);
      gm_.graph().erase_node(obs);
    }
  }

  fx::GraphModule& gm_;
  std::vector<const BackendPatternConfig*> patterns_;
  std::vector<PatternMatch> matches_;
  std::unordered_map<const Node*, const PatternMatch*> match_of_;
  std::unordered_map<const Node*, QConfigAny> qconfig_of_;
};

}  // namespace

std::shared_ptr<fx::GraphModule> prepare_fx(const std::shared_ptr<tl::nn::Module>& model,
                                            const QConfigMapping& qconfig_mapping, const TensorList& example_inputs,
                                            const BackendConfig& backend_config) {
  TL_CHECK(model != nullptr, "prepare_fx: model is null");
  TL_CHECK(!model->is_training(), "prepare_fx: post-training quantization needs a model in eval mode, got ",
           model->type_name(), " in training mode (call model.eval() first; PyTorch fails with \"Fusion only for ",
           "eval!\")");
  model->check_inputs(example_inputs);
  std::shared_ptr<fx::GraphModule> gm = fuse_fx(model, backend_config);
  ObserverInserter inserter(*gm, qconfig_mapping, backend_config);
  inserter.check_dtypes();
  inserter.run();
  return std::make_shared<ObservedGraphModule>(*gm, gm->graph().copy(), inserter.qconfig_map());
}

ObservedGraphModule::ObservedGraphModule(const fx::GraphModule& root, std::unique_ptr<fx::Graph> graph,
                                         std::unordered_map<std::string, QConfigAny> qconfig_map)
    : fx::GraphModule(root, std::move(graph)), qconfig_map_(std::move(qconfig_map)) {}

const QConfigAny& ObservedGraphModule::qconfig_of(const std::string& node_name) const {
  static const QConfigAny kNone;
  const auto it = qconfig_map_.find(node_name);
  return it == qconfig_map_.end() ? kNone : it->second;
}

}  // namespace tl::ao::quantization
