// fx/node.cpp — use-def bookkeeping and FX's node formatting.
#include "fx/node.h"

#include <algorithm>

#include "fx/graph.h"
#include "fx/schema.h"

namespace tl::fx {

const char* opcode_name(Opcode op) {
  switch (op) {
    case Opcode::Placeholder: return "placeholder";
    case Opcode::GetAttr: return "get_attr";
    case Opcode::CallFunction: return "call_function";
    case Opcode::CallModule: return "call_module";
    case Opcode::CallMethod: return "call_method";
    case Opcode::Output: return "output";
  }
  return "?";
}

Node::Node(Graph* graph, std::string name, Opcode op, std::string target, std::optional<OpKind> op_kind)
    : graph_(graph), name_(std::move(name)), op_(op), target_(std::move(target)), op_kind_(op_kind) {}

Node::~Node() = default;

std::vector<Node*> Node::all_input_nodes() const {
  std::vector<Node*> inputs;
  auto add = [&](Node* n) {
    if (std::find(inputs.begin(), inputs.end(), n) == inputs.end()) inputs.push_back(n);
  };
  for (const Argument& a : args_) for_each_node(a, add);
  for (const auto& [k, v] : kwargs_) for_each_node(v, add);
  return inputs;
}

void Node::add_user(Node* user) {
  if (std::find(users_.begin(), users_.end(), user) == users_.end()) users_.push_back(user);
}

void Node::remove_user(Node* user) { users_.erase(std::remove(users_.begin(), users_.end(), user), users_.end()); }

void Node::link_inputs() {
  for (Node* in : all_input_nodes()) in->add_user(this);
}

void Node::unlink_inputs() {
  for (Node* in : all_input_nodes()) in->remove_user(this);
}

void Node::assign(std::vector<Argument> args, Kwargs kwargs) {
  TL_CHECK(!erased_, "fx: node '", name_, "' was erased; its arguments cannot change");
  graph_->check_inputs(name_, this, args, kwargs);
  if (op_kind_) check_keywords(*op_kind_, args.size(), kwargs);
  unlink_inputs();
  args_ = std::move(args);
  kwargs_ = std::move(kwargs);
  link_inputs();
  resolve();
}

void Node::resolve() {
  try {
    call_ = resolve_call(*this);
    call_error_.reset();
  } catch (const Error& e) {
    call_ = {};
    call_error_ = e;
  }
}

const ResolvedCall& Node::call() const {
  if (call_error_) throw *call_error_;
  return call_;
}

void Node::set_args(std::vector<Argument> args) { assign(std::move(args), kwargs_); }

void Node::set_kwargs(Kwargs kwargs) { assign(args_, std::move(kwargs)); }

void Node::update_arg(size_t i, Argument value) {
  TL_CHECK(i < args_.size(), "update_arg: index ", i, " out of range for node '", name_, "' with ",
           args_.size(), " args");
  std::vector<Argument> args = args_;
  args[i] = std::move(value);
  set_args(std::move(args));
}

void Node::update_kwarg(const std::string& key, Argument value) {
  Kwargs kwargs = kwargs_;
  auto it = std::find_if(kwargs.begin(), kwargs.end(), [&](const auto& kv) { return kv.first == key; });
  if (it != kwargs.end()) it->second = std::move(value);
  else kwargs.emplace_back(key, std::move(value));
  set_kwargs(std::move(kwargs));
}

std::pair<std::vector<Argument>, Kwargs> Node::replaced(Node* old_input, Node* new_input) const {
  auto swap = [&](Node* n) { return n == old_input ? new_input : n; };
  std::vector<Argument> args;
  for (const Argument& a : args_) args.push_back(map_nodes(a, swap));
  Kwargs kwargs;
  for (const auto& [k, v] : kwargs_) kwargs.emplace_back(k, map_nodes(v, swap));
  return {std::move(args), std::move(kwargs)};
}

void Node::replace_input_with(Node* old_input, Node* new_input) {
  TL_CHECK(new_input != nullptr, "replace_input_with: node '", name_, "' was given a null replacement");
  auto [args, kwargs] = replaced(old_input, new_input);
  assign(std::move(args), std::move(kwargs));
}

std::vector<Node*> Node::replace_all_uses_with(Node* replacement) {
  TL_CHECK(replacement != this, "replace_all_uses_with: node '", name_, "' cannot replace itself");
  TL_CHECK(replacement != nullptr, "replace_all_uses_with: node '", name_, "' was given a null replacement");
  std::vector<Node*> users;
  std::vector<std::pair<std::vector<Argument>, Kwargs>> edits;
  for (Node* user : users_) {
    if (user == replacement) continue;  // the replacement keeps reading this node
    edits.push_back(user->replaced(this, replacement));
    graph_->check_inputs(user->name_, user, edits.back().first, edits.back().second);
    users.push_back(user);
  }
  for (size_t i = 0; i < users.size(); ++i) users[i]->assign(std::move(edits[i].first), std::move(edits[i].second));
  return users;
}

const TensorMeta* Node::tensor_meta() const {
  auto it = meta_.find("tensor_meta");
  return it == meta_.end() ? nullptr : std::any_cast<TensorMeta>(&it->second);
}

Node* Node::prev() const {
  Node* p = prev_;
  while (p != graph_->root_.get() && p->erased_) p = p->prev_;
  return p == graph_->root_.get() ? nullptr : p;
}

Node* Node::next() const {
  Node* n = next_;
  while (n != graph_->root_.get() && n->erased_) n = n->next_;
  return n == graph_->root_.get() ? nullptr : n;
}

Error with_node_context(const Node& n, const Error& e) {
  const std::string what = e.what();
  if (what.rfind("while executing", 0) == 0) return e;
  return Error("while executing " + n.format() + ": " + what);
}

std::string Node::format() const {
  const std::string users = "[#users=" + std::to_string(users_.size()) + "]";
  const std::string type = type_expr_.empty() ? "" : type_expr_ + " ";
  switch (op_) {
    case Opcode::Placeholder:
      return "%" + name_ + " : " + type + users + " = placeholder[target=" + target_ + "]" +
             (args_.empty() ? "" : "(default=" + format_arg(args_[0]) + ")");
    case Opcode::GetAttr:
      return "%" + name_ + " : " + type + users + " = get_attr[target=" + target_ + "]";
    case Opcode::Output:
      return "return " + (args_.empty() ? std::string("None") : repr_arg(args_[0]));
    default: break;
  }
  std::string kwargs = "{";
  for (size_t i = 0; i < kwargs_.size(); ++i)
    kwargs += (i ? ", " : "") + kwargs_[i].first + ": " + format_arg(kwargs_[i].second);
  kwargs += "}";
  return "%" + name_ + " : " + type + users + " = " + opcode_name(op_) + "[target=" + target_ + "](args = " +
         format_arg(Argument::list(args_, /*is_tuple=*/true)) + ", kwargs = " + kwargs + ")";
}

}  // namespace tl::fx
