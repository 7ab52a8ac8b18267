// fx/argument.cpp — traversal and the two Python-like spellings of arguments (graph print, code).
#include "fx/argument.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "fx/node.h"

namespace tl::fx {
namespace {

// Python's repr of a float: the shortest digits that round-trip, positional notation for
// exponents in [-4, 16), scientific ("1e-05", "1e+16") outside it, ".0" on integral values.
std::string python_float(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  int precision = 1;
  for (; precision < 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", precision - 1, d);
  const std::string sci = buf;
  const size_t e = sci.find('e');
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string mantissa = sci.substr(0, e);
  if (exponent < -4 || exponent >= 16) {
    char exp_buf[16];
    std::snprintf(exp_buf, sizeof exp_buf, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return mantissa + exp_buf;
  }
  const int decimals = std::max(0, precision - 1 - exponent);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, d);
  std::string s = buf;
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

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
  if (auto* d = std::get_if<double>(&v)) return python_float(*d);
  if (auto* s = std::get_if<std::string>(&v)) return quote_strings ? "'" + *s + "'" : *s;
  if (auto* t = std::get_if<DType>(&v)) return dtype_name(*t);
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
