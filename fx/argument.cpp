// fx/argument.cpp — traversal and the two Python-like spellings of arguments (graph print, code).
#include "fx/argument.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/py_repr.h"
#include "fx/node.h"

namespace tl::fx {
namespace {

template <typename Leaf>
std::string format_list(const ArgumentList& list, Leaf leaf) {
  std::string s = list.is_tuple ? "(" : "[";
  for (size_t i = 0; i < list.items.size(); ++i) s += (i ? ", " : "") + leaf(list.items[i]);
  if (list.is_tuple && list.items.size() == 1) s += ",";
  return s + (list.is_tuple ? ")" : "]");
}

std::string scalar_str(const Argument::Value& v, bool quote_strings) {
  if (std::holds_alternative<std::monostate>(v)) return "None";
  if (auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) return py_float(*d);
  if (auto* s = std::get_if<std::string>(&v)) return quote_strings ? "'" + *s + "'" : *s;
  if (auto* t = std::get_if<DType>(&v)) return dtype_name(*t);
  if (auto* s = std::get_if<indexing::Slice>(&v)) {
    auto bound = [](const std::optional<int64_t>& b) { return b ? std::to_string(*b) : std::string("None"); };
    return "slice(" + bound(s->start) + ", " + bound(s->stop) + ", " + bound(s->step) + ")";
  }
  if (std::holds_alternative<indexing::EllipsisIndexType>(v)) return "Ellipsis";
  return "?";
}

}  // namespace

Argument Argument::int_list(const Shape& values) {
  ArgumentList list;
  for (int64_t v : values) list.items.emplace_back(v);
  return Argument(std::move(list));
}

Argument Argument::list(std::vector<Argument> items, bool is_tuple) {
  return Argument(ArgumentList{std::move(items), is_tuple});
}

bool operator==(const ArgumentList& a, const ArgumentList& b) {
  return a.is_tuple == b.is_tuple && a.items == b.items;
}

bool operator==(const Argument& a, const Argument& b) { return a.v_ == b.v_; }

void for_each_node(const Argument& arg, const std::function<void(Node*)>& fn) {
  if (Node* n = arg.node()) fn(n);
  if (arg.is_list())
    for (const Argument& item : arg.as_list().items) for_each_node(item, fn);
}

Argument map_nodes(const Argument& arg, const std::function<Node*(Node*)>& fn) {
  if (Node* n = arg.node()) return Argument(fn(n));
  if (!arg.is_list()) return arg;
  ArgumentList out{{}, arg.as_list().is_tuple};
  for (const Argument& item : arg.as_list().items) out.items.push_back(map_nodes(item, fn));
  return Argument(std::move(out));
}

std::string format_arg(const Argument& arg) {
  if (Node* n = arg.node()) return "%" + n->name();
  if (arg.is_list()) return format_list(arg.as_list(), format_arg);
  return scalar_str(arg.value(), false);
}

std::string repr_arg(const Argument& arg) {
  if (Node* n = arg.node()) return n->name();
  if (arg.is_list()) return format_list(arg.as_list(), repr_arg);
  return scalar_str(arg.value(), true);
}

}  // namespace tl::fx
