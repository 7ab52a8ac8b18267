// fx/schema.cpp — the translations between op calls and FX args/kwargs, built on the parsed schema
// (core/schema.h).
#include "fx/schema.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "core/op_kind.h"
#include "fx/node.h"

namespace tl::fx {
namespace {

// An FX argument back to an attribute; int lists accept a single int (PyTorch's int[2] sugar), which an
// int[1] keeps as it is (x.sum(0), core/boxing.h's IntList). A bool list (bool[3]) takes bools and becomes the
// Shape of 1 / 0 core/schema.h describes.
AttrValue argument_to_attr(const Argument& a, const SchemaArg& spec, OpKind op) {
  const Argument::Value& v = a.value();
  if (std::holds_alternative<std::monostate>(v)) return std::monostate{};
  if (spec.list_length() >= 0) {
    const bool bools = spec.base_type() == "bool";
    const char* kind = bools ? "bools" : "ints";
    if (auto* i = std::get_if<int64_t>(&v); i && !bools) {
      if (spec.list_length() == 1) return *i;
      return Shape(static_cast<size_t>(std::max(1, spec.list_length())), *i);
    }
    TL_CHECK(a.is_list(), op_info(op).aten_name, ": argument '", spec.name, "' expects a list of ", kind, ", got ",
             repr_arg(a));
    Shape values;
    for (const Argument& item : a.as_list().items) {
      auto* i = std::get_if<int64_t>(&item.value());
      auto* b = std::get_if<bool>(&item.value());
      TL_CHECK(bools ? b != nullptr : i != nullptr, op_info(op).aten_name, ": argument '", spec.name, "' expects ",
               kind, ", got ", repr_arg(item));
      values.push_back(bools ? int64_t{*b} : *i);
    }
    return values;
  }
  // What each schema type takes, as Python's argument parser does (a bool is an int).
  const std::string base = spec.base_type();
  const bool is_bool = std::holds_alternative<bool>(v), is_int = std::holds_alternative<int64_t>(v);
  const bool is_number = is_bool || is_int || std::holds_alternative<double>(v);
  const bool fits = base == "ScalarType" ? std::holds_alternative<DType>(v)
                    : base == "Generator" ? false  // a graph holds None only (core/boxing.h)
                    : base == "str"      ? std::holds_alternative<std::string>(v)
                    : base == "bool"     ? is_bool
                    : base == "int"      ? is_bool || is_int
                                         : is_number;  // float, Scalar, or a number standing for a Tensor
  TL_CHECK(fits, op_info(op).aten_name, ": argument '", spec.name, "' (", spec.type, ") cannot take ", repr_arg(a));
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<int64_t>(&v)) {
    if (base == "float") return static_cast<double>(*i);
    return *i;
  }
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* t = std::get_if<DType>(&v)) return *t;
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  TL_CHECK(false, op_info(op).aten_name, ": argument '", spec.name, "' cannot take ", repr_arg(a));
  return std::monostate{};
}

// A bool[N] attribute (a Shape of 1 / 0) as the list of bools Python would write.
std::optional<Argument> bool_list_argument(const SchemaArg& spec, const AttrValue& value) {
  const Shape* s = std::get_if<Shape>(&value);
  if (s == nullptr || spec.base_type() != "bool") return std::nullopt;
  std::vector<Argument> items;
  for (int64_t v : *s) items.emplace_back(v != 0);
  return Argument::list(std::move(items));
}

// Python's argument parser lets a method whose one positional argument besides self is an int list take it as
// varargs, and that is how Python code writes them (x.permute(0, 2, 3, 1), x.view(n, -1)): a call_method of such
// an op records its ints so, and reads them back so.
bool takes_int_varargs(const Schema& schema, CallStyle style) {
  if (style != CallStyle::Method) return false;
  std::vector<const SchemaArg*> positional;
  for (const SchemaArg& a : schema.args)
    if (!a.kwarg_only) positional.push_back(&a);
  return positional.size() == 2 && positional[0]->is_tensor() && positional[1]->list_length() >= 0 &&
         positional[1]->base_type() == "int";
}

// Python operators that commute: their reflected form is the op itself with the number second.
bool commutes(std::string_view py_operator) { return py_operator == "add" || py_operator == "mul"; }

std::optional<OpKind> op_by_py_operator(std::string_view py_operator) {
  for (int i = 0; i < kNumOps; ++i)
    if (op_info(static_cast<OpKind>(i)).py_operator == py_operator) return static_cast<OpKind>(i);
  return std::nullopt;
}

}  // namespace

Argument attr_to_argument(const AttrValue& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* s = std::get_if<Shape>(&v)) return Argument::int_list(*s);
  if (auto* t = std::get_if<DType>(&v)) return *t;
  if (auto* str = std::get_if<std::string>(&v)) return *str;
  return Argument();
}

void to_fx_args(OpKind op, const std::vector<Argument>& inputs, const Attrs& attrs, std::vector<Argument>& args,
                Kwargs& kwargs, CallStyle style, const std::vector<std::string>& keywords) {
  const Schema& schema = schema_of(op);
  size_t next_input = 0;
  struct Recorded {
    const SchemaArg* spec;
    Argument value;
    bool is_default;
  };
  std::vector<Recorded> recorded;
  const auto slots = schema.tensor_slots(inputs.size());
  size_t slot = 0;
  for (const SchemaArg& spec : schema.args) {
    if (spec.is_tensor_list()) {
      const auto [begin, end] = slots[slot++];
      std::vector<Argument> items(inputs.begin() + static_cast<std::ptrdiff_t>(begin),
                                  inputs.begin() + static_cast<std::ptrdiff_t>(end));
      next_input = end;
      recorded.push_back({&spec, Argument::list(std::move(items)), false});
    } else if (spec.is_tensor() && next_input < inputs.size()) {
      ++slot;
      const Argument& input = inputs[next_input++];
      // An absent optional tensor is its default when the schema's default is None.
      const bool is_default = input.is_none() && spec.default_ && std::holds_alternative<std::monostate>(*spec.default_);
      recorded.push_back({&spec, input, is_default});
    } else {
      // A non-tensor argument, or a tensor argument given as a number (x + 2).
      const AttrValue* given = attrs.find(spec.name);
      const AttrValue value = given ? *given : (spec.default_ ? *spec.default_ : AttrValue{});
      const bool is_default = spec.default_ && value == *spec.default_;
      recorded.push_back({&spec, bool_list_argument(spec, value).value_or(attr_to_argument(value)), is_default});
    }
  }
  // Positional arguments up to the last one that differs from its default; keyword-only ones
  // only when they differ; the ones named in `keywords` as keywords.
  const auto named = [&](const SchemaArg* spec) {
    return std::find(keywords.begin(), keywords.end(), spec->name) != keywords.end();
  };
  for (const std::string& name : keywords)
    TL_CHECK(std::any_of(schema.args.begin(), schema.args.end(), [&](const SchemaArg& a) { return a.name == name; }),
             op_info(op).aten_name, ": no argument '", name, "' to record as a keyword");
  size_t last = 0;
  bool after_keyword = false;
  for (size_t i = 0; i < recorded.size(); ++i) {
    const SchemaArg* spec = recorded[i].spec;
    if (spec->kwarg_only) continue;
    if (named(spec)) {
      after_keyword = true;
    } else if (!recorded[i].is_default) {
      TL_CHECK(!after_keyword, op_info(op).aten_name, ": argument '", spec->name,
               "' follows a keyword argument but is not one");
      last = i + 1;
    }
  }
  for (size_t i = 0; i < recorded.size(); ++i) {
    const SchemaArg* spec = recorded[i].spec;
    if (named(spec) || (spec->kwarg_only && !recorded[i].is_default)) {
      kwargs.emplace_back(spec->name, recorded[i].value);
    } else if (!spec->kwarg_only && i < last) {
      args.push_back(recorded[i].value);
    }
  }
  if (style == CallStyle::ReflectedOperator) {
    TL_INTERNAL_ASSERT(args.size() == 2 && kwargs.empty(), op_info(op).aten_name, ": a reflected operator records 2 operands");
    std::swap(args[0], args[1]);
  }
  if (takes_int_varargs(schema, style) && args.size() == 2 && args[1].is_list() && !args[1].as_list().items.empty()) {
    const std::vector<Argument> ints = args[1].as_list().items;
    args.pop_back();
    args.insert(args.end(), ints.begin(), ints.end());
  }
}

void check_keywords(OpKind op, size_t positional, const Kwargs& kwargs) {
  const std::vector<SchemaArg>& specs = schema_of(op).args;
  for (auto kw = kwargs.begin(); kw != kwargs.end(); ++kw) {
    const std::string& key = kw->first;
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const SchemaArg& a) { return a.name == key; });
    if (spec == specs.end()) {
      std::string names;
      for (const SchemaArg& a : specs) names += (names.empty() ? "" : ", ") + a.name;
      TL_CHECK(false, op_info(op).aten_name, ": got an unexpected keyword argument '", key, "' (arguments: ", names, ")");
    }
    // Positional arguments fill the schema's arguments before its '*' in order.
    TL_CHECK(spec->kwarg_only || static_cast<size_t>(spec - specs.begin()) >= positional, op_info(op).aten_name,
             ": got multiple values for argument '", key, "'");
    TL_CHECK(std::none_of(kwargs.begin(), kw, [&](const auto& earlier) { return earlier.first == key; }),
             op_info(op).aten_name, ": got multiple values for keyword argument '", key, "'");
  }
}

OpArguments from_fx_args(OpKind op, const std::vector<Argument>& python_args, const Kwargs& kwargs,
                         const std::function<Tensor(Node*)>& resolve, CallStyle style) {
  const Schema& schema = schema_of(op);
  std::vector<Argument> args = python_args;
  if (style == CallStyle::ReflectedOperator) {
    TL_CHECK(args.size() == 2, op_info(op).aten_name, ": a reflected operator takes 2 operands, got ", args.size());
    std::swap(args[0], args[1]);
  }
  if (takes_int_varargs(schema, style) && args.size() > 2) {
    std::vector<Argument> ints(args.begin() + 1, args.end());
    args.resize(1);
    args.push_back(Argument::list(std::move(ints), /*is_tuple=*/false));
  }
  check_keywords(op, args.size(), kwargs);
  OpArguments out;
  std::vector<Attrs::Item> items;
  size_t positional = 0;
  for (const SchemaArg& spec : schema.args) {
    const Argument* given = nullptr;
    if (!spec.kwarg_only && positional < args.size()) given = &args[positional++];
    for (const auto& [k, v] : kwargs)
      if (k == spec.name) given = &v;
    if (spec.is_tensor_list()) {
      TL_CHECK(given && given->is_list(), op_info(op).aten_name, ": argument '", spec.name, "' expects a list of tensors");
      for (const Argument& item : given->as_list().items) {
        if (item.is_none() && spec.has_optional_entries()) {
          out.inputs.emplace_back();
          out.input_nodes.push_back(nullptr);
          continue;
        }
        TL_CHECK(item.is_node(), op_info(op).aten_name, ": '", spec.name, "' holds a non-tensor ", repr_arg(item));
        out.inputs.push_back(resolve(item.node()));
        out.input_nodes.push_back(item.node());
      }
    } else if (spec.is_tensor() && given && given->is_node()) {
      out.inputs.push_back(resolve(given->node()));
      out.input_nodes.push_back(given->node());
    } else if (spec.is_tensor() && (!given || given->is_none())) {
      TL_CHECK(spec.type.back() == '?', op_info(op).aten_name, ": missing tensor argument '", spec.name, "'");
      out.inputs.emplace_back();
      out.input_nodes.push_back(nullptr);
    } else {
      TL_CHECK(given || spec.default_, op_info(op).aten_name, ": missing argument '", spec.name, "'");
      items.push_back({spec.name, given ? argument_to_attr(*given, spec, op) : *spec.default_});
    }
  }
  TL_CHECK(positional == args.size(), op_info(op).aten_name, ": got ", args.size(), " positional arguments, expected at most ",
           positional);
  // The items' names point into the schema table, which lives as long as the program.
  out.attrs = Attrs(std::move(items));
  return out;
}

std::optional<OpKind> reflected_op(OpKind op) {
  const std::string_view py_operator = op_info(op).py_operator;
  if (py_operator.empty()) return std::nullopt;
  if (commutes(py_operator)) return op;
  std::string reflected = "r";
  reflected += py_operator;
  return op_by_py_operator(reflected);
}

OpKind unreflected_op(OpKind op) {
  const std::string_view py_operator = op_info(op).py_operator;
  if (!py_operator.starts_with('r')) return op;
  const std::optional<OpKind> plain = op_by_py_operator(py_operator.substr(1));
  TL_INTERNAL_ASSERT(plain.has_value(), op_info(op).schema, ": no op has the Python operator ", py_operator.substr(1));
  return *plain;
}

}  // namespace tl::fx
