// fx/argument.h — the values a Node's args and kwargs hold: Node references, Python-like scalars,
// strings, dtypes, slices and Ellipsis (a getitem's key), lists/tuples of these, or None. Prints as FX
// prints arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor_index.h"

namespace tl::fx {

class Node;
class Argument;

/// A Python list (`[a, b]`) or tuple (`(a, b)`) of arguments.
struct ArgumentList {
  std::vector<Argument> items;
  bool is_tuple = false;
};

class Argument {
 public:
  /// What the argument holds, as FX records a Python value: None, a node, a number, a string, a dtype, a
  /// slice or Ellipsis (x[1:3, ...]'s key), or a list or tuple of arguments.
  using Value = std::variant<std::monostate, Node*, bool, int64_t, double, std::string, DType, indexing::Slice,
                             indexing::EllipsisIndexType, ArgumentList>;

  Argument() = default;  ///< None
  /// A null node is None.
  Argument(Node* node) {  // NOLINT: implicit, as Python values are
    if (node != nullptr) v_ = node;
  }
  Argument(bool b) : v_(b) {}  // NOLINT
  Argument(int64_t i) : v_(i) {}  // NOLINT
  Argument(int i) : v_(static_cast<int64_t>(i)) {}  // NOLINT
  Argument(double d) : v_(d) {}  // NOLINT
  Argument(std::string s) : v_(std::move(s)) {}  // NOLINT
  Argument(const char* s) : v_(std::string(s)) {}  // NOLINT
  Argument(DType d) : v_(d) {}  // NOLINT
  Argument(indexing::Slice s) : v_(s) {}  // NOLINT
  Argument(indexing::EllipsisIndexType e) : v_(e) {}  // NOLINT
  Argument(ArgumentList list) : v_(std::move(list)) {}  // NOLINT
  /// A list of ints, e.g. a size or stride.
  static Argument int_list(const Shape& values);
  static Argument list(std::vector<Argument> items, bool is_tuple = false);

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_node() const { return std::holds_alternative<Node*>(v_); }
  bool is_list() const { return std::holds_alternative<ArgumentList>(v_); }
  Node* node() const { return is_node() ? std::get<Node*>(v_) : nullptr; }
  const ArgumentList& as_list() const { return std::get<ArgumentList>(v_); }
  const Value& value() const { return v_; }

  friend bool operator==(const Argument& a, const Argument& b);

 private:
  Value v_;
};

bool operator==(const ArgumentList& a, const ArgumentList& b);

using Kwargs = std::vector<std::pair<std::string, Argument>>;

/// Calls `fn` on every Node referenced (recursively through lists), in order.
void for_each_node(const Argument& arg, const std::function<void(Node*)>& fn);
/// A copy of `arg` with every Node replaced by fn(node).
Argument map_nodes(const Argument& arg, const std::function<Node*(Node*)>& fn);

/// FX's `_format_arg`: %name for nodes, (a,) for 1-tuples, [a, b] for lists, str() for the rest.
std::string format_arg(const Argument& arg);
/// Python's repr() as FX's generated code writes it (names for nodes, 'strings', True, 1e-05).
std::string repr_arg(const Argument& arg);

}  // namespace tl::fx
