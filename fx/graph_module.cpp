// fx/graph_module.cpp — copying the referenced module tree, the execution plan, and running it.
#include "fx/graph_module.h"

#include <unordered_map>

#include "fx/codegen.h"
#include "fx/schema.h"

namespace tl::fx {
namespace {

// An intermediate level of the copied tree, like FX's empty torch.nn.Module().
class PlainModule : public nn::Module {
 public:
  std::string type_name() const override { return "Module"; }
  bool is_leaf() const override { return false; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<PlainModule>(); }
};

std::pair<std::string, std::string> split_path(const std::string& path) {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos) return {"", path};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

}  // namespace

struct GraphModule::Step {
  const Node* node = nullptr;
  Opcode op = Opcode::Output;
  std::optional<OpKind> kind;             // call_function / call_method
  CallStyle style = CallStyle::Function;
  Attrs attrs;
  std::vector<int64_t> inputs;            // slots of the tensor inputs, -1 for None
  int64_t index = 0;                      // placeholder position or getitem index
  int64_t out = -1;                       // slot receiving the value
  std::vector<int64_t> frees;             // slots whose last use this step is
};

CallStyle call_style(const Node& n) {
  if (n.op() == Opcode::CallMethod) return CallStyle::Method;
  return n.target().rfind("operator.", 0) == 0 ? CallStyle::Operator : CallStyle::Function;
}

GraphModule::GraphModule(const nn::Module& root, std::unique_ptr<Graph> graph, std::string class_name,
                         const std::vector<std::pair<std::string, Tensor>>& constants, Targets targets)
    : graph_(std::move(graph)), class_name_(std::move(class_name)) {
  TL_CHECK(graph_ != nullptr, "GraphModule: graph is null");
  train(root.is_training());  // before any child exists: sets only this module's flag, as FX does
  for (const auto& [name, value] : constants) register_buffer(name, value);
  for (Node* n : graph_->nodes()) {
    if (n->op() == Opcode::CallModule) copy_target(root, n->target(), true, targets);
    if (n->op() == Opcode::GetAttr) copy_target(root, n->target(), false, targets);
  }
  recompile();
}

GraphModule::~GraphModule() = default;

void GraphModule::copy_target(const nn::Module& root, const std::string& target, bool is_module, Targets targets) {
  const bool share = targets == Targets::Share;
  const auto [owner_path, leaf] = split_path(target);
  // Walk (and create) the intermediate levels of the copy.
  nn::Module* owner = this;
  std::string walked;
  for (size_t start = 0; start < owner_path.size();) {
    const size_t dot = owner_path.find('.', start);
    const std::string part = owner_path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    walked += (walked.empty() ? "" : ".") + part;
    if (!owner->has_child(part)) {
      root.get_submodule(walked);  // throws a clear error if the path does not exist
      owner->register_module(part, std::make_shared<PlainModule>());
    }
    owner = owner->child(part).get();
    start = dot == std::string::npos ? owner_path.size() : dot + 1;
  }
  if (is_module) {
    if (owner->has_child(leaf) && owner->child(leaf)->type_name() != "Module") return;  // copied already
    const std::shared_ptr<nn::Module> module = root.get_submodule(target);
    owner->register_module(leaf, share ? module : module->clone());
    return;
  }
  if (owner->has_parameter(leaf) || owner->has_buffer(leaf)) return;
  const std::shared_ptr<nn::Module> source = root.get_submodule(owner_path);
  if (source->has_parameter(leaf)) owner->register_parameter(leaf, share ? source->parameter(leaf) : source->parameter(leaf).clone());
  else if (source->has_buffer(leaf)) owner->register_buffer(leaf, share ? source->buffer(leaf) : source->buffer(leaf).clone());
  else TL_CHECK(false, "GraphModule: '", target, "' is not a parameter or buffer of ", source->type_name());
}

Tensor GraphModule::fetch_attr(const std::string& qualified_name) const {
  const auto [owner_path, leaf] = split_path(qualified_name);
  const std::shared_ptr<nn::Module> owner = get_submodule(owner_path);
  if (owner->has_parameter(leaf)) return owner->parameter(leaf);
  TL_CHECK(owner->has_buffer(leaf), "get_attr: '", qualified_name, "' is not a parameter or buffer of the GraphModule");
  return owner->buffer(leaf);
}

void GraphModule::recompile() {
  graph_->lint(this);
  std::unordered_map<const Node*, int64_t> slot_of;
  std::vector<Step> plan;  // swapped in only when complete: a failed recompile keeps the working plan
  int64_t placeholders = 0;
  for (Node* n : graph_->nodes()) {
    Step s;
    s.node = n;
    s.op = n->op();
    s.kind = n->op_kind();
    s.style = call_style(*n);
    if (n->op() == Opcode::Placeholder) s.index = placeholders++;
    if (n->op() == Opcode::CallModule) {
      TL_CHECK(get_submodule(n->target()).get() != this, "GraphModule: call_module '", n->name(), "' would call the GraphModule itself");
      TL_CHECK(n->kwargs().empty(), "GraphModule: call_module '", n->target(), "' takes no keyword arguments, got ",
               n->kwargs().size());
      for (const Argument& a : n->args()) {
        TL_CHECK(a.is_node(), "GraphModule: call_module '", n->target(), "' has a non-tensor argument ", repr_arg(a));
        s.inputs.push_back(slot_of.at(a.node()));
      }
    } else if (n->target() == "operator.getitem") {
      const auto* index = n->args().size() == 2 ? std::get_if<int64_t>(&n->args()[1].value()) : nullptr;
      TL_CHECK(index != nullptr && n->args()[0].is_node() && n->kwargs().empty(), "GraphModule: getitem '",
               n->name(), "' needs (node, integer index), got ", format_arg(Argument::list(n->args(), true)));
      s.inputs.push_back(slot_of.at(n->args()[0].node()));
      s.index = *index;
    } else if (s.kind) {
      OpArguments a = from_fx_args(*s.kind, n->args(), n->kwargs(), [](Node*) { return Tensor(); });
      s.attrs = std::move(a.attrs);
      for (Node* in : a.input_nodes) s.inputs.push_back(in ? slot_of.at(in) : -1);
    } else if (n->op() == Opcode::Output) {
      TL_CHECK(n->args().size() == 1, "GraphModule: the output node needs one argument, got ", n->args().size());
      for_each_node(n->args()[0], [&](Node* in) { s.inputs.push_back(slot_of.at(in)); });
    }
    s.out = static_cast<int64_t>(plan.size());
    slot_of[n] = s.out;
    plan.push_back(std::move(s));
  }
  // Free each value right after its last use.
  const auto last_uses = graph_->last_uses();
  for (Step& s : plan)
    if (auto it = last_uses.find(s.node); it != last_uses.end())
      for (const Node* dead : it->second) s.frees.push_back(slot_of.at(dead));
  nn::ForwardSignature signature;
  signature.arg_names.clear();
  for (Node* n : graph_->find_nodes(Opcode::Placeholder)) {
    signature.arg_names.push_back(n->target());
    signature.arg_types.push_back(n->type_expr());
  }
  if (const Node* out = graph_->output_node()) signature.return_type = out->type_expr();
  num_slots_ = plan.size();
  plan_ = std::move(plan);
  signature_ = std::move(signature);
}

TensorList GraphModule::forward(const TensorList& inputs) {
  std::vector<Value> slots(num_slots_);
  auto tensor_at = [&](int64_t slot) { return slot < 0 ? Tensor() : slots[static_cast<size_t>(slot)].tensor(); };
  check_inputs(inputs);
  for (const Step& s : plan_) {
    Value v;
    try {
      switch (s.op) {
        case Opcode::Placeholder: v = inputs[static_cast<size_t>(s.index)]; break;
        case Opcode::GetAttr: v = fetch_attr(s.node->target()); break;
        case Opcode::CallModule: {
          TensorList args;
          for (int64_t in : s.inputs) args.push_back(tensor_at(in));
          // Looked up at each call, as FX does: set_submodule() takes effect without a recompile.
          TensorList out = (*get_submodule(s.node->target()))(args);
          v = out.size() == 1 ? Value(std::move(out[0])) : Value(std::move(out));
          break;
        }
        case Opcode::CallFunction:
        case Opcode::CallMethod: {
          if (!s.kind) {  // operator.getitem
            const TensorList& items = slots[static_cast<size_t>(s.inputs[0])].list("getitem");
            const int64_t n = static_cast<int64_t>(items.size());
            TL_CHECK(s.index >= -n && s.index < n, "getitem: index ", s.index, " out of range for ", n, " values");
            v = items[static_cast<size_t>(s.index < 0 ? s.index + n : s.index)];
            break;
          }
          TensorList args;
          for (int64_t in : s.inputs) args.push_back(tensor_at(in));
          TensorList out = dispatch::call(*s.kind, args, s.attrs, s.style);
          v = out.size() == 1 ? Value(std::move(out[0])) : Value(std::move(out));
          break;
        }
        case Opcode::Output: {
          TensorList out;
          for (int64_t in : s.inputs)
            for (const Tensor& t : slots[static_cast<size_t>(in)].tensors()) out.push_back(t);
          return out;
        }
      }
    } catch (const Error& e) {
      throw with_node_context(*s.node, e);
    }
    slots[static_cast<size_t>(s.out)] = std::move(v);
    for (int64_t dead : s.frees) slots[static_cast<size_t>(dead)] = Value();
  }
  TL_INTERNAL_ASSERT(false, "graph has no output node");
  return {};
}

nn::ForwardSignature GraphModule::forward_signature() const { return signature_; }

GraphModule::GraphModule(const GraphModule& other)
    : nn::Module(other), graph_(other.graph_->copy()), class_name_(other.class_name_), signature_(other.signature_) {}

std::shared_ptr<nn::Module> GraphModule::clone() const {
  std::shared_ptr<nn::Module> copy = clone_as<GraphModule>();
  static_cast<GraphModule&>(*copy).recompile();  // its plan must call the copied submodules
  return copy;
}

std::string GraphModule::code() const { return python_code(*graph_); }

}  // namespace tl::fx
