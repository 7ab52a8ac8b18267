// fx/node.h — one entry of a Graph. Six opcodes, as in torch.fx:
//   placeholder    a forward() input; target = the argument name
//   get_attr       fetches a parameter/buffer/constant; target = its dotted path in the module tree
//   call_function  a free op (torch.flatten, operator.add); target = its Python name, op_kind = the op
//   call_module    a leaf module's forward; target = the module's dotted path
//   call_method    a Tensor method (x.view(...)); target = the method name, args[0] = self
//   output         the return value; args[0] is it
// Invariants: users() always lists exactly the nodes whose args/kwargs reference this node, and a node
// only reads live nodes of its own graph that come before it. Every edit of args/kwargs checks the
// new arguments first and changes nothing when it throws.
#pragma once

#include <any>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "fx/argument.h"
#include "fx/resolved_call.h"

namespace tl::fx {

enum class Opcode : uint8_t { Placeholder, GetAttr, CallFunction, CallModule, CallMethod, Output };
/// "placeholder", "call_module", ...
const char* opcode_name(Opcode op);

class Graph;

/// torch.memory_format: the dimension order a tensor is dense in.
enum class MemoryFormat : uint8_t { Contiguous, ChannelsLast, ChannelsLast3d };

/// Shape and dtype of a node's (tensor) value, filled by ShapeProp or tracing with example inputs;
/// ShapeProp adds the strides and memory format (fx/shape_prop.h), tracing leaves `stride` empty.
struct TensorMeta {
  Shape shape;
  DType dtype = DType::Float32;
  Strides stride;
  /// The first format the tensor is dense in; none for a view such as a transpose.
  std::optional<MemoryFormat> memory_format;
};

class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node();

  const std::string& name() const { return name_; }
  Opcode op() const { return op_; }
  const std::string& target() const { return target_; }
  /// The op a call_function / call_method node runs.
  std::optional<OpKind> op_kind() const { return op_kind_; }
  /// What the node calls (fx/resolved_call.h), resolved when it was made and again whenever its
  /// arguments change. Throws the tl::Error resolving gave (a value of the wrong type, a constant
  /// result, ...): a graph may hold such a node, and compiling or running it reports the error.
  const ResolvedCall& call() const;
  /// The resolved call, or nullptr when the node's arguments do not resolve: for passes that ask what a
  /// node is ("a relu of one tensor?") and leave a node they cannot read to the executor's error.
  const ResolvedCall* call_if_resolved() const { return call_error_ ? nullptr : &call_; }
  Graph& graph() const { return *graph_; }

  const std::vector<Argument>& args() const { return args_; }
  const Kwargs& kwargs() const { return kwargs_; }
  /// Replaces all args (users bookkeeping updated). Throws tl::Error, changing nothing, if an argument
  /// is a node of another graph, an erased node, this node or one that comes after it, or (for a node
  /// calling an op) if a keyword is not one of the op's arguments or repeats one (fx/schema.h's
  /// check_keywords).
  void set_args(std::vector<Argument> args);
  /// Replaces all kwargs; checks as set_args does.
  void set_kwargs(Kwargs kwargs);
  /// Replaces args[i]; throws tl::Error if i is out of range.
  void update_arg(size_t i, Argument value);
  /// Sets (or adds) kwarg `key`.
  void update_kwarg(const std::string& key, Argument value);
  /// Replaces every reference to `old_input` in args/kwargs by `new_input`.
  void replace_input_with(Node* old_input, Node* new_input);
  /// Makes every user of this node use `replacement` instead; returns the users changed. The
  /// replacement itself keeps reading this node (so `relu(n)` inserted after `n` can take over n's
  /// users). Throws tl::Error, changing nothing, if a user comes before `replacement`.
  std::vector<Node*> replace_all_uses_with(Node* replacement);

  /// Users in the order they started using this node (like FX's dict).
  const std::vector<Node*>& users() const { return users_; }
  size_t num_users() const { return users_.size(); }
  /// Nodes this node reads, in first-use order, each once.
  std::vector<Node*> all_input_nodes() const;

  /// Python type annotation printed for placeholders/outputs ("torch.Tensor"); empty for none.
  const std::string& type_expr() const { return type_expr_; }
  void set_type_expr(std::string t) { type_expr_ = std::move(t); }

  /// Free-form metadata (FX's node.meta); "tensor_meta" holds a TensorMeta when known.
  std::map<std::string, std::any>& meta() { return meta_; }
  const std::map<std::string, std::any>& meta() const { return meta_; }
  const TensorMeta* tensor_meta() const;

  Node* prev() const;  ///< nullptr at the start of the graph
  Node* next() const;  ///< nullptr at the end of the graph
  bool erased() const { return erased_; }

  /// FX's format_node: "%conv1 : [#users=1] = call_module[target=conv1](args = (%x,), kwargs = {})".
  std::string format() const;

 private:
  friend class Graph;
  Node(Graph* graph, std::string name, Opcode op, std::string target, std::optional<OpKind> op_kind);
  void link_inputs();
  void unlink_inputs();
  /// The one place args/kwargs change: checks, then swaps the users bookkeeping and resolves the call.
  void assign(std::vector<Argument> args, Kwargs kwargs);
  /// Resolves call_ from the node as it is now, keeping the error instead when it cannot be called.
  void resolve();
  /// Args/kwargs with every reference to `old_input` replaced by `new_input`.
  std::pair<std::vector<Argument>, Kwargs> replaced(Node* old_input, Node* new_input) const;
  void add_user(Node* user);
  void remove_user(Node* user);

  Graph* graph_;
  std::string name_;
  Opcode op_;
  std::string target_;
  std::optional<OpKind> op_kind_;
  std::vector<Argument> args_;
  Kwargs kwargs_;
  std::vector<Node*> users_;
  ResolvedCall call_;
  std::optional<Error> call_error_;  ///< why call_ could not be resolved
  std::string type_expr_;
  std::map<std::string, std::any> meta_;
  Node* prev_ = nullptr;  // neighbours in the graph's list (the graph's sentinel at the ends)
  Node* next_ = nullptr;
  bool erased_ = false;
};

/// `e` as raised while running `n`: "while executing <n.format()>: <what>", unless it already names
/// the node it came from (an inner graph's).
Error with_node_context(const Node& n, const Error& e);

}  // namespace tl::fx
