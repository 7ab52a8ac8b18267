// fx/schema.cpp — a small parser for the schema strings in core/op_list.h and the argument
// translations built on it.
#include "fx/schema.h"

#include <array>
#include <cstdlib>
#include <functional>
#include <map>

#include "fx/node.h"

namespace tl::fx {
namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "int[2]" -> 2, "int[]" -> 0 (any length), other types -> -1.
int list_length(const std::string& type) {
  const size_t open = type.find('[');
  if (open == std::string::npos) return -1;
  return std::atoi(type.c_str() + open + 1);
}

std::string base_type(const std::string& type) {
  std::string t = type.substr(0, type.find_first_of("[?("));
  return t;
}

AttrValue parse_default(const std::string& type, const std::string& text) {
  if (text == "None") return std::monostate{};
  const std::string base = base_type(type);
  if (base == "bool") return text == "True";
  if (base == "ScalarType") {
    for (DType d : {DType::Float32, DType::Float64, DType::Int64, DType::Int32, DType::Bool, DType::BFloat16})
      if (text == dtype_name(d)) return d;
    TL_INTERNAL_ASSERT(false, "unknown dtype default '", text, "'");
  }
  if (list_length(type) >= 0) {  // int[] / int[2]
    Shape values;
    if (text.front() == '[') {
      std::string body = text.substr(1, text.size() - 2);
      size_t pos = 0;
      while (!trim(body).empty() && pos != std::string::npos) {
        const size_t comma = body.find(',', pos);
        values.push_back(std::stoll(body.substr(pos, comma - pos)));
        pos = comma == std::string::npos ? comma : comma + 1;
      }
    } else {
      for (int i = 0; i < list_length(type); ++i) values.push_back(std::stoll(text));
    }
    return values;
  }
  if (base == "float") return std::stod(text);
  if (base == "int") return static_cast<int64_t>(std::stoll(text));
  if (text.find_first_of(".e") != std::string::npos) return std::stod(text);  // Scalar
  return static_cast<int64_t>(std::stoll(text));
}

Schema parse(const std::string& schema) {
  Schema s;
  const size_t open = schema.find('('), close = schema.rfind(") ->");
  TL_INTERNAL_ASSERT(open != std::string::npos && close != std::string::npos, "bad schema '", schema, "'");
  s.name = schema.substr(0, open);
  const std::string body = schema.substr(open + 1, close - open - 1);
  bool kwarg_only = false;
  int depth = 0;
  std::string piece;
  auto flush = [&] {
    const std::string p = trim(piece);
    piece.clear();
    if (p.empty()) return;
    if (p == "*") {
      kwarg_only = true;
      return;
    }
    SchemaArg arg;
    const size_t eq = p.find('=');
    const std::string decl = trim(p.substr(0, eq));
    const size_t space = decl.rfind(' ');
    arg.type = decl.substr(0, space);
    arg.name = decl.substr(space + 1);
    if (eq != std::string::npos) arg.default_ = parse_default(arg.type, trim(p.substr(eq + 1)));
    arg.kwarg_only = kwarg_only;
    s.args.push_back(std::move(arg));
  };
  for (char c : body) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) flush();
    else piece += c;
  }
  flush();
  return s;
}

const std::array<Schema, kNumOps>& all_schemas() {
  static const std::array<Schema, kNumOps> schemas = [] {
    std::array<Schema, kNumOps> out;
    for (int i = 0; i < kNumOps; ++i) out[i] = parse(op_info(static_cast<OpKind>(i)).schema);
    return out;
  }();
  return schemas;
}

// An FX argument back to an attribute; int lists accept a single int (PyTorch's int[2] sugar).
AttrValue argument_to_attr(const Argument& a, const SchemaArg& spec, OpKind op) {
  const Argument::Value& v = a.value();
  if (std::holds_alternative<std::monostate>(v)) return std::monostate{};
  if (list_length(spec.type) >= 0) {
    if (auto* i = std::get_if<int64_t>(&v)) return Shape(static_cast<size_t>(std::max(1, list_length(spec.type))), *i);
    TL_CHECK(a.is_list(), op_info(op).aten_name, ": argument '", spec.name, "' expects a list of ints, got ", repr_arg(a));
    Shape values;
    for (const Argument& item : a.as_list().items) {
      auto* i = std::get_if<int64_t>(&item.value());
      TL_CHECK(i != nullptr, op_info(op).aten_name, ": argument '", spec.name, "' expects ints, got ", repr_arg(item));
      values.push_back(*i);
    }
    return values;
  }
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<int64_t>(&v)) {
    if (base_type(spec.type) == "float") return static_cast<double>(*i);
    return *i;
  }
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* t = std::get_if<DType>(&v)) return *t;
  if (auto* str = std::get_if<std::string>(&v)) return *str;
  TL_CHECK(false, op_info(op).aten_name, ": argument '", spec.name, "' cannot take ", repr_arg(a));
  return std::monostate{};
}

}  // namespace

const Schema& schema_of(OpKind op) { return all_schemas()[static_cast<size_t>(op)]; }

std::optional<OpKind> op_by_name(const std::string& name) {
  static const std::map<std::string, OpKind> by_name = [] {
    std::map<std::string, OpKind> m;
    for (int i = 0; i < kNumOps; ++i) m.emplace(all_schemas()[i].name, static_cast<OpKind>(i));
    return m;
  }();
  auto it = by_name.find(name);
  return it == by_name.end() ? std::nullopt : std::optional<OpKind>(it->second);
}

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
                Kwargs& kwargs) {
  const Schema& schema = schema_of(op);
  size_t next_input = 0;
  struct Recorded {
    const SchemaArg* spec;
    Argument value;
    bool is_default;
  };
  std::vector<Recorded> recorded;
  for (const SchemaArg& spec : schema.args) {
    if (spec.is_tensor_list()) {
      std::vector<Argument> items(inputs.begin() + static_cast<std::ptrdiff_t>(next_input), inputs.end());
      next_input = inputs.size();
      recorded.push_back({&spec, Argument::list(std::move(items)), false});
    } else if (spec.is_tensor() && next_input < inputs.size()) {
      const Argument& input = inputs[next_input++];
      // An absent optional tensor is its default when the schema's default is None.
      const bool is_default = input.is_none() && spec.default_ && std::holds_alternative<std::monostate>(*spec.default_);
      recorded.push_back({&spec, input, is_default});
    } else {
      // A non-tensor argument, or a tensor argument given as a number (x + 2).
      const AttrValue* given = attrs.find(spec.name);
      const AttrValue value = given ? *given : (spec.default_ ? *spec.default_ : AttrValue{});
      const bool is_default = spec.default_ && value == *spec.default_;
      recorded.push_back({&spec, attr_to_argument(value), is_default});
    }
  }
  // Positional arguments up to the last one that differs from its default; keyword-only ones
  // only when they differ.
  size_t last = 0;
  for (size_t i = 0; i < recorded.size(); ++i)
    if (!recorded[i].spec->kwarg_only && !recorded[i].is_default) last = i + 1;
  for (size_t i = 0; i < recorded.size(); ++i) {
    if (recorded[i].spec->kwarg_only) {
      if (!recorded[i].is_default) kwargs.emplace_back(recorded[i].spec->name, recorded[i].value);
    } else if (i < last) {
      args.push_back(recorded[i].value);
    }
  }
}

OpArguments from_fx_args(OpKind op, const std::vector<Argument>& args, const Kwargs& kwargs,
                         const std::function<Tensor(Node*)>& resolve) {
  const Schema& schema = schema_of(op);
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

}  // namespace tl::fx
