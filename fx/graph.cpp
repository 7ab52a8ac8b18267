// fx/graph.cpp — node list management, naming, lint, dead-code elimination and printing.
#include "fx/graph.h"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <ostream>
#include <set>
#include <unordered_map>

#include "core/schema.h"
#include "core/text_table.h"
#include "fx/schema.h"
#include "fx/wrap.h"
#include "nn/module.h"

namespace tl::fx {
namespace {

// FX's _snake_case: "camelCase" -> "camel_case".
std::string snake_case(const std::string& s) {
  std::string out;
  bool prev_lower = false;
  for (char c : s) {
    if (prev_lower && std::isupper(static_cast<unsigned char>(c))) out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    prev_lower = std::islower(static_cast<unsigned char>(c));
  }
  return out;
}

// FX's default name for a node: the function's __name__, the method name or the module path.
std::string candidate_name(Opcode op, const std::string& target) {
  switch (op) {
    case Opcode::Output: return "output";
    case Opcode::CallFunction: return snake_case(target.substr(target.rfind('.') + 1));
    default: return snake_case(target);
  }
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// A node that writes one of its arguments (the schema's `Tensor(a!)`): its effect is not captured by users.
bool writes_an_argument(const Node& n) {
  if (!n.op_kind()) return false;
  const Schema& schema = schema_of(*n.op_kind());
  for (size_t i : schema.written_args) {
    const SchemaArg& a = schema.args[i];
    const bool passed = a.kwarg_only ? std::any_of(n.kwargs().begin(), n.kwargs().end(),
                                                   [&](const auto& kw) { return kw.first == a.name; })
                                     : i < n.args().size();
    if (!a.is_optional() || passed) return true;
  }
  return false;
}

bool is_impure(const Node& n) {
  return n.op() == Opcode::Placeholder || n.op() == Opcode::Output || writes_an_argument(n);
}

}  // namespace

Graph::Graph() : root_(new Node(this, "", Opcode::Output, "", std::nullopt)), insert_before_(root_.get()) {
  root_->prev_ = root_->next_ = root_.get();
}

Graph::~Graph() = default;

std::vector<Node*> Graph::node_list() const {
  std::vector<Node*> out;
  for (Node* n : nodes()) out.push_back(n);
  return out;
}

void Graph::link_before(Node* n, Node* before) {
  n->prev_ = before->prev_;
  n->next_ = before;
  before->prev_->next_ = n;
  before->prev_ = n;
}

void Graph::check_inputs(const std::string& user, const Node* position, const std::vector<Argument>& args,
                         const Kwargs& kwargs) const {
  std::vector<Node*> inputs;
  auto add = [&](Node* n) {
    if (std::find(inputs.begin(), inputs.end(), n) == inputs.end()) inputs.push_back(n);
  };
  for (const Argument& a : args) for_each_node(a, add);
  for (const auto& [k, v] : kwargs) for_each_node(v, add);
  for (Node* in : inputs) {
    TL_CHECK(&in->graph() == this, "fx: node '", user, "' cannot use '", in->name(), "', which belongs to another graph");
    TL_CHECK(!in->erased(), "fx: node '", user, "' cannot use the erased node '", in->name(), "'");
    TL_CHECK(in != position, "fx: node '", user, "' cannot use itself");
  }
  std::vector<Node*> missing = inputs;  // those not found yet walking back from `position`
  for (Node* n = position->prev_; n != root_.get() && !missing.empty(); n = n->prev_)
    missing.erase(std::remove(missing.begin(), missing.end(), n), missing.end());
  TL_CHECK(missing.empty(), "fx: node '", user, "' cannot use '", missing.empty() ? "" : missing[0]->name(),
           "', which comes after it (a graph stays in topological order)");
}

void Graph::check_placement(Opcode op, const std::string& name) const {
  const Node* output = output_node();
  if (op == Opcode::Output) {
    TL_CHECK(output == nullptr, "fx: the graph already has an output node '", output ? output->name() : "", "'");
    for (const Node* n = insert_before_; n != root_.get(); n = n->next_)
      TL_CHECK(n->erased_, "fx: the output node must be the last node, but '", n->name(), "' would follow it");
    return;
  }
  if (output == nullptr) return;
  const Node* n = insert_before_;
  while (n != root_.get() && n != output) n = n->next_;
  TL_CHECK(n == output, "fx: node '", name, "' cannot be inserted after the output node '", output->name(),
           "' (insert before it with inserting_before)");
}

Node* Graph::create_node(Opcode op, std::string target, std::vector<Argument> args, Kwargs kwargs,
                         std::optional<std::string> name, std::optional<OpKind> op_kind) {
  const std::string candidate = name ? *name : candidate_name(op, target);
  check_placement(op, candidate);
  check_inputs(candidate, insert_before_, args, kwargs);
  if (op_kind) check_keywords(*op_kind, args.size(), kwargs);
  const std::string unique = names_.create_name(candidate);
  owned_.push_back(std::unique_ptr<Node>(new Node(this, unique, op, std::move(target), op_kind)));
  Node* n = owned_.back().get();
  n->args_ = std::move(args);
  n->kwargs_ = std::move(kwargs);
  n->link_inputs();
  n->resolve();
  link_before(n, insert_before_);
  ++size_;
  return n;
}

Node* Graph::placeholder(const std::string& name, std::string type_expr) {
  TL_CHECK(is_identifier(name), "placeholder: '", name, "' is not a Python identifier");
  for (Node* p : find_nodes(Opcode::Placeholder))
    TL_CHECK(p->target() != name, "placeholder: the graph already has an input named '", name, "'");
  Node* n = create_node(Opcode::Placeholder, name, {}, {}, name);
  n->set_type_expr(std::move(type_expr));
  return n;
}

Node* Graph::get_attr(const std::string& qualified_name) { return create_node(Opcode::GetAttr, qualified_name); }

Node* Graph::call_module(const std::string& module_path, std::vector<Argument> args, Kwargs kwargs) {
  return create_node(Opcode::CallModule, module_path, std::move(args), std::move(kwargs));
}

Node* Graph::call_function(OpKind op, std::vector<Argument> args, Kwargs kwargs, CallStyle style) {
  // rsub with the number first (`2.0 - x`) is operator.sub(2.0, x); rsub called by name is torch.rsub.
  if (style == CallStyle::ReflectedOperator) op = unreflected_op(op);
  const OpInfo& info = op_info(op);
  const std::string_view py_operator = info.py_operator;
  const bool as_operator = (style == CallStyle::Operator || style == CallStyle::ReflectedOperator) &&
                           !py_operator.empty() && !py_operator.starts_with('r');
  std::string target = as_operator ? std::string("operator.") + info.py_operator : std::string(info.python_target);
  return create_node(Opcode::CallFunction, std::move(target), std::move(args), std::move(kwargs), std::nullopt, op);
}

Node* Graph::call_method(OpKind op, std::vector<Argument> args, Kwargs kwargs) {
  return create_node(Opcode::CallMethod, std::string(op_name(op)), std::move(args), std::move(kwargs),
                     std::nullopt, op);
}

Node* Graph::getitem(Node* node, Argument key) {
  return create_node(Opcode::CallFunction, "operator.getitem", {Argument(node), std::move(key)});
}

Node* Graph::output(Argument result, std::string type_expr) {
  Node* n = create_node(Opcode::Output, "output", {std::move(result)});
  n->set_type_expr(std::move(type_expr));
  return n;
}

Node* Graph::output_node() const {
  for (Node* n = root_->prev_; n != root_.get(); n = n->prev_)
    if (!n->erased_ && n->op() == Opcode::Output) return n;
  return nullptr;
}

Graph::InsertGuard Graph::inserting_before(Node* n) {
  TL_CHECK(n && &n->graph() == this && !n->erased(), "inserting_before: node is not a live node of this graph");
  return InsertGuard(*this, n);
}

Graph::InsertGuard Graph::inserting_after(Node* n) {
  TL_CHECK(n && &n->graph() == this && !n->erased(), "inserting_after: node is not a live node of this graph");
  return InsertGuard(*this, n->next_);
}

void Graph::erase_node(Node* n) {
  TL_CHECK(n && &n->graph() == this, "erase_node: node is not part of this graph");
  TL_CHECK(!n->erased(), "erase_node: node '", n->name(), "' was already erased");
  TL_CHECK(n->op() != Opcode::Output, "erase_node: '", n->name(), "' is the graph's output node; change what the ",
           "graph returns with update_arg(0, value) instead");
  if (!n->users().empty()) {
    std::string users;
    for (Node* u : n->users()) users += (users.empty() ? "" : ", ") + u->name();
    TL_CHECK(false, "erase_node: tried to erase node '", n->name(), "' but it still has ", n->num_users(),
             " user(s) in the graph: ", users);
  }
  n->unlink_inputs();
  n->erased_ = true;
  --size_;
}

void Graph::lint(const nn::Module* root) const {
  std::set<std::string> names;
  std::set<const Node*> seen;
  const Node* output = nullptr;
  for (Node* n : nodes()) {
    TL_CHECK(&n->graph() == this, "lint: node '", n->name(), "' belongs to another graph");
    TL_CHECK(names.insert(n->name()).second, "lint: node name '", n->name(), "' is used twice");
    TL_CHECK(output == nullptr, "lint: node '", n->name(), "' comes after the output node '", output->name(), "'");
    for (Node* in : n->all_input_nodes()) {
      TL_CHECK(seen.count(in), "lint: node '", n->name(), "' uses '", in->name(),
               "', which is not defined before it (the graph is not in topological order)");
      const auto& u = in->users();
      TL_CHECK(std::find(u.begin(), u.end(), n) != u.end(), "lint: '", in->name(), "' does not list '",
               n->name(), "' among its users");
    }
    for (Node* user : n->users())
      TL_CHECK(!user->erased(), "lint: node '", n->name(), "' lists the erased node '", user->name(), "' as a user");
    if ((n->op() == Opcode::CallFunction || n->op() == Opcode::CallMethod) && n->target() != "operator.getitem")
      TL_CHECK(n->op_kind().has_value() || (n->op() == Opcode::CallFunction && find_named_function(n->target())),
               "lint: ", opcode_name(n->op()), " node '", n->name(), "' calls '", n->target(),
               "', which is neither an op nor a registered named call");
    if (root && n->op() == Opcode::CallModule) {
      try {
        root->get_submodule(n->target());
      } catch (const Error& e) {
        TL_CHECK(false, "lint: node '", n->name(), "' calls module '", n->target(), "', which does not exist: ", e.what());
      }
    }
    if (root && n->op() == Opcode::GetAttr) {
      const auto [owner, leaf] = root->owner_and_name(n->target());
      TL_CHECK(owner->has_parameter(leaf) || owner->has_buffer(leaf), "lint: node '", n->name(),
               "' fetches '", n->target(), "', which is not a parameter or buffer of the module");
    }
    if (n->op() == Opcode::Output) output = n;
    seen.insert(n);
  }
  TL_CHECK(output != nullptr, "lint: the graph has no output node");
}

bool Graph::eliminate_dead_code() {
  bool changed = false;
  for (Node* n = root_->prev_; n != root_.get();) {
    Node* prev = n->prev_;
    if (!n->erased_ && n->users().empty() && !is_impure(*n)) {
      erase_node(n);
      changed = true;
    }
    n = prev;
  }
  return changed;
}

std::vector<Node*> Graph::find_nodes(Opcode op, const std::optional<std::string>& target) const {
  std::vector<Node*> out;
  for (Node* n : nodes())
    if (n->op() == op && (!target || n->target() == *target)) out.push_back(n);
  return out;
}

std::unique_ptr<Graph> Graph::copy() const {
  auto g = std::make_unique<Graph>();
  std::unordered_map<const Node*, Node*> remap;
  auto map = [&](Node* n) {
    auto it = remap.find(n);
    TL_INTERNAL_ASSERT(it != remap.end(), "graph copy: '", n->name(), "' is used before it is defined");
    return it->second;
  };
  for (Node* n : nodes()) {
    std::vector<Argument> args;
    for (const Argument& a : n->args()) args.push_back(map_nodes(a, map));
    Kwargs kwargs;
    for (const auto& [k, v] : n->kwargs()) kwargs.emplace_back(k, map_nodes(v, map));
    Node* c = g->create_node(n->op(), n->target(), std::move(args), std::move(kwargs), n->name(), n->op_kind());
    TL_INTERNAL_ASSERT(c->name() == n->name(), "graph copy renamed '", n->name(), "' to '", c->name(), "'");
    c->set_type_expr(n->type_expr());
    c->meta() = n->meta();
    remap[n] = c;
  }
  return g;
}

std::unordered_map<const Node*, std::vector<const Node*>> Graph::last_uses() const {
  std::unordered_map<const Node*, std::vector<const Node*>> frees;
  std::set<const Node*> seen;
  const std::vector<Node*> all = node_list();
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    for (Node* in : (*it)->all_input_nodes())
      if (seen.insert(in).second) frees[*it].push_back(in);
  return frees;
}

namespace {

// Python's str() of a node's target: a name for modules, attributes and methods; the builtin's repr
// for functions.
std::string target_str(const Node& n) {
  const std::string& t = n.target();
  if (n.op() != Opcode::CallFunction) return t;
  if (t.rfind("operator.", 0) == 0) return "<built-in function " + t.substr(9) + ">";
  if (t.rfind("torch.ops.", 0) == 0) return t.substr(10);  // an OpOverloadPacket: "quantized.add_relu"
  if (t.rfind("torch.", 0) == 0) return "<built-in method " + t.substr(6) + " of type object>";
  return t;
}

}  // namespace

std::string Graph::tabular() const {
  std::vector<std::vector<std::string>> rows;
  for (Node* n : nodes()) {
    std::string kwargs = "{";
    for (size_t i = 0; i < n->kwargs().size(); ++i)
      kwargs += (i ? ", '" : "'") + n->kwargs()[i].first + "': " + repr_arg(n->kwargs()[i].second);
    rows.push_back({opcode_name(n->op()), n->name(), target_str(*n),
                    repr_arg(Argument::list(n->args(), /*is_tuple=*/true)), kwargs + "}"});
  }
  return tl::tabulate({"opcode", "name", "target", "args", "kwargs"}, rows);
}

void Graph::print_tabular() const { std::cout << tabular() << '\n'; }

std::string Graph::str() const {
  std::string s = "graph():";
  for (Node* n : nodes()) s += "\n    " + n->format();
  return s;
}

std::ostream& operator<<(std::ostream& os, const Graph& g) { return os << g.str(); }

}  // namespace tl::fx
