// fx/graph_module.cpp — registering the root's referenced modules and tensors, the execution plan, and
// running it.
#include "fx/graph_module.h"

#include "fx/codegen.h"
#include "nn/repr.h"

namespace tl::fx {
namespace {

// An intermediate level of the tree, like FX's empty torch.nn.Module().
class PlainModule : public nn::Module {
 public:
  std::string type_name() const override { return "Module"; }
  bool is_leaf() const override { return false; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<PlainModule>(); }
};

}  // namespace

GraphModule::GraphModule(const nn::Module& root, std::unique_ptr<Graph> graph, std::string class_name,
                         const std::vector<std::pair<std::string, Tensor>>& constants)
    : graph_(std::move(graph)), class_name_(std::move(class_name)) {
  TL_CHECK(graph_ != nullptr, "GraphModule: graph is null");
  train(root.is_training());  // before any child exists: sets only this module's flag, as FX does
  for (const auto& [name, value] : constants) register_buffer(name, value);
  for (Node* n : graph_->nodes()) {
    if (n->op() == Opcode::CallModule) register_target(root, n->target(), true);
    if (n->op() == Opcode::GetAttr) register_target(root, n->target(), false);
  }
  recompile();
}

GraphModule::~GraphModule() = default;

// FX's _copy_attr: the target itself is root's; the levels above it are made here.
void GraphModule::register_target(const nn::Module& root, const std::string& target, bool is_module) {
  const auto [source, leaf] = root.owner_and_name(target);  // throws if a level does not exist in root
  const std::string owner_path = leaf.size() < target.size() ? target.substr(0, target.size() - leaf.size() - 1) : "";
  // Walk (and create) the intermediate levels.
  nn::Module* owner = this;
  for (size_t start = 0; start < owner_path.size();) {
    const size_t dot = owner_path.find('.', start);
    const std::string part = owner_path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!owner->has_child(part)) owner->register_module(part, std::make_shared<PlainModule>());
    owner = owner->child(part).get();
    start = dot == std::string::npos ? owner_path.size() : dot + 1;
  }
  if (is_module) {
    if (owner->has_child(leaf) && owner->child(leaf)->type_name() != "Module") return;  // registered already
    owner->register_module(leaf, root.get_submodule(target));
    return;
  }
  if (owner->has_parameter(leaf) || owner->has_buffer(leaf)) return;
  if (source->has_parameter(leaf)) {
    const Tensor& p = source->parameter(leaf);
    owner->register_parameter(leaf, p, p.defined() && p.requires_grad());  // a frozen parameter stays frozen
  } else if (source->has_buffer(leaf)) {
    owner->register_buffer(leaf, source->buffer(leaf));
  } else {
    TL_CHECK(false, "GraphModule: '", target, "' is not a parameter or buffer of ", source->type_name());
  }
}

Tensor GraphModule::fetch_attr(const std::string& qualified_name) const {
  const auto [owner, leaf] = owner_and_name(qualified_name);
  if (owner->has_parameter(leaf)) return owner->parameter(leaf);
  TL_CHECK(owner->has_buffer(leaf), "get_attr: '", qualified_name, "' is not a parameter or buffer of the GraphModule");
  return owner->buffer(leaf);
}

void GraphModule::recompile() {
  // Compiled aside and swapped in only when complete: a failed recompile keeps the working plan.
  plan_ = std::make_shared<const ExecutionPlan>(*this);
}

TensorList GraphModule::forward(nn::Inputs inputs) {
  check_inputs(inputs.tensors());
  return plan_->run(*this, inputs.tensors());
}

nn::ForwardSignature GraphModule::forward_signature() const { return plan_->signature(); }

// The plan owns the graph it was compiled from, so the copy shares it: it runs what the original runs
// even when the original's graph was edited since (and failed to recompile), and its own recompile()
// compiles the same edited graph, with the same result.
GraphModule::GraphModule(const GraphModule& other)
    : nn::Module(other), graph_(other.graph_->copy()), class_name_(other.class_name_), plan_(other.plan_) {}

std::shared_ptr<nn::Module> GraphModule::clone() const { return clone_compiled<GraphModule>(); }

std::string GraphModule::code() const { return python_code(plan_->graph()); }

std::string GraphModule::str() const {
  return nn::repr(*this) + "\n" + code() + "\n# To see more debug info, please use `graph_module.print_readable()`";
}

}  // namespace tl::fx
