// fx/graph.h — an ordered list of Nodes with FX's verbs for building and rewriting it.
// Nodes may be inserted and erased while iterating nodes(): an erased node keeps its links until
// the Graph is destroyed, so an iterator standing on it still finds the next one.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fx/node.h"
#include "fx/unique_names.h"

namespace tl::nn {
class Module;
}

namespace tl::fx {

class Graph {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// A deep copy: same names, targets, args (remapped to the new nodes), meta.
  std::unique_ptr<Graph> copy() const;

  class Iterator {
   public:
    Iterator(Node* n, const Node* end) : n_(n), end_(end) { skip(); }
    Node* operator*() const { return n_; }
    Iterator& operator++() {
      n_ = n_->next_;
      skip();
      return *this;
    }
    bool operator!=(const Iterator& o) const { return n_ != o.n_; }

   private:
    void skip() {
      while (n_ != end_ && n_->erased_) n_ = n_->next_;
    }
    Node* n_;
    const Node* end_;
  };
  struct NodeRange {
    Node* first;
    const Node* sentinel;
    Iterator begin() const { return {first, sentinel}; }
    Iterator end() const { return {const_cast<Node*>(sentinel), sentinel}; }
  };
  /// Live nodes in order; safe to erase the current node or insert around it while iterating.
  NodeRange nodes() const { return {root_->next_, root_.get()}; }
  /// The live nodes as a vector (a snapshot).
  std::vector<Node*> node_list() const;
  size_t size() const { return size_; }

  /// Creates a node at the insertion point (the end by default). `name` defaults to FX's
  /// candidate for the target; it is made unique. Throws tl::Error, creating nothing, if an argument
  /// is not a live node of this graph before the insertion point, if a keyword is not one of `op_kind`'s
  /// arguments or repeats one, or if the node would follow the output node (or be a second output).
  Node* create_node(Opcode op, std::string target, std::vector<Argument> args = {}, Kwargs kwargs = {},
                    std::optional<std::string> name = std::nullopt, std::optional<OpKind> op_kind = std::nullopt);
  /// A forward() input; throws tl::Error unless `name` is a Python identifier no other input has.
  Node* placeholder(const std::string& name, std::string type_expr = "");
  Node* get_attr(const std::string& qualified_name);
  Node* call_module(const std::string& module_path, std::vector<Argument> args, Kwargs kwargs = {});
  /// target "torch.<name>" (or "operator.<op>" for CallStyle::Operator; for ReflectedOperator, args in
  /// Python's order, the operator `op` is the reflection of: rsub's (2.0, x) is operator.sub).
  Node* call_function(OpKind op, std::vector<Argument> args, Kwargs kwargs = {},
                      CallStyle style = CallStyle::Function);
  /// target = the op's method name; args[0] is self.
  Node* call_method(OpKind op, std::vector<Argument> args, Kwargs kwargs = {});
  /// operator.getitem(node, key): one element of a multi-output node (an int key), or Python's
  /// `tensor[key]` (fx/getitem.h: an int, slice, None, Ellipsis, bool, node, list of ints, or a tuple of these).
  Node* getitem(Node* node, Argument key);
  Node* output(Argument result, std::string type_expr = "");
  /// The output node, or nullptr while the graph has none.
  Node* output_node() const;

  /// Where create_node inserts; restored when the guard goes out of scope.
  class InsertGuard {
   public:
    InsertGuard(Graph& g, Node* before) : g_(g), saved_(g.insert_before_) { g.insert_before_ = before; }
    ~InsertGuard() { g_.insert_before_ = saved_; }
    InsertGuard(const InsertGuard&) = delete;
    InsertGuard& operator=(const InsertGuard&) = delete;

   private:
    Graph& g_;
    Node* saved_;
  };
  /// New nodes go right before `n` while the returned guard lives.
  [[nodiscard]] InsertGuard inserting_before(Node* n);
  /// New nodes go right after `n` (each new one after the previous) while the guard lives.
  [[nodiscard]] InsertGuard inserting_after(Node* n);

  /// Removes `n`; throws tl::Error if it still has users or is the output node (change what the graph
  /// returns with output_node()->update_arg(0, value) instead).
  void erase_node(Node* n);
  /// Every edit keeps the graph in topological order with the output last; lint checks that again, plus
  /// unique names, back-references, one output at the end, and (with
  /// `root`) that call_module / get_attr targets exist. Throws tl::Error naming the node.
  void lint(const nn::Module* root = nullptr) const;
  /// Erases nodes without users whose op has no side effects (not placeholders/outputs/in-place
  /// ops); returns whether anything changed.
  bool eliminate_dead_code();
  /// Live nodes with opcode `op` (and target `target` when given).
  std::vector<Node*> find_nodes(Opcode op, const std::optional<std::string>& target = std::nullopt) const;

  /// For each node, the values whose last use it is, in argument order (FX's user_to_last_uses: what
  /// generated code sets to None, and what an interpreter may drop, after that node).
  std::unordered_map<const Node*, std::vector<const Node*>> last_uses() const;

  /// FX's print(graph): "graph():\n    %x : ... = placeholder[target=x]\n    ...\n    return fc".
  std::string str() const;
  /// FX's print_tabular() text: tabulate's table of opcode, name, target, args and kwargs as Python's
  /// str() shows them, e.g. "call_function  add  <built-in function add>  (conv, x)  {}". A torch.*
  /// target prints as "<built-in method relu of type object>", without the address Python adds.
  std::string tabular() const;
  /// Graph.print_tabular(): tabular() and a newline to std::cout.
  void print_tabular() const;

 private:
  friend class Node;
  void link_before(Node* n, Node* before);
  /// Throws tl::Error unless every node in args/kwargs is a live node of this graph, other than
  /// `position`, that comes before `position`; `user` names the reader in the message.
  void check_inputs(const std::string& user, const Node* position, const std::vector<Argument>& args,
                    const Kwargs& kwargs) const;
  /// Throws tl::Error unless a node of opcode `op` may be created at the insertion point.
  void check_placement(Opcode op, const std::string& name) const;
  std::unique_ptr<Node> root_;                 // sentinel: root_->next_ is the first node
  std::vector<std::unique_ptr<Node>> owned_;   // every node ever created (erased ones too)
  Node* insert_before_;                        // nullptr-free: root_ means "append"
  size_t size_ = 0;
  UniqueNames names_;
};

std::ostream& operator<<(std::ostream& os, const Graph& g);

}  // namespace tl::fx
