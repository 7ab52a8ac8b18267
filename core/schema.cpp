// core/schema.cpp — the one parser of the schema strings of the op rows (core/native_functions.toml), run once per op.
#include "core/schema.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>

#include "core/op_kind.h"

namespace tl {
namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "int[2]" -> 2, "int[]" -> 0 (any length), other types -> -1.
int list_length_of(const std::string& type) {
  const size_t open = type.find('[');
  if (open == std::string::npos) return -1;
  return std::atoi(type.c_str() + open + 1);
}

std::string base_type_of(const std::string& type) { return type.substr(0, type.find_first_of("[?(")); }

// "Tensor(a!)?" -> alias set "a", written.
void parse_alias(SchemaArg& arg) {
  const size_t open = arg.type.find('(');
  if (open == std::string::npos) return;
  const size_t close = arg.type.find(')', open);
  TL_INTERNAL_ASSERT(close != std::string::npos, "bad alias mark in '", arg.type, "'");
  std::string mark = arg.type.substr(open + 1, close - open - 1);
  arg.is_write = !mark.empty() && mark.back() == '!';
  if (arg.is_write) mark.pop_back();
  arg.alias_set = mark;
}

SchemaArg parse_decl(const std::string& decl) {
  SchemaArg arg;
  const size_t space = decl.rfind(' ');
  arg.type = space == std::string::npos ? decl : decl.substr(0, space);
  arg.name = space == std::string::npos ? "" : decl.substr(space + 1);
  parse_alias(arg);
  return arg;
}

// "Tensor(a!)" / "(Tensor values, Tensor indices)" / "Tensor[]" / "bool" -> the returns.
std::vector<SchemaArg> parse_returns(const std::string& text) {
  std::vector<SchemaArg> out;
  if (text.front() != '(') {
    out.push_back(parse_decl(text));
    return out;
  }
  size_t pos = 1;
  while (pos < text.size() - 1) {
    const size_t comma = std::min(text.find(',', pos), text.size() - 1);
    out.push_back(parse_decl(trim(text.substr(pos, comma - pos))));
    pos = comma + 1;
  }
  return out;
}

// "pointwise, nondeterministic_seeded" -> the tag bits; an unknown tag is a typo in the op list.
uint8_t parse_tags(const std::string& text) {
  uint8_t tags = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string tag = trim(text.substr(pos, comma - pos));
    pos = comma + 1;
    if (tag == "pointwise") tags |= static_cast<uint8_t>(OpTag::Pointwise);
    else if (tag == "nondeterministic_seeded") tags |= static_cast<uint8_t>(OpTag::NondeterministicSeeded);
    else if (tag == "no_overlap") tags |= static_cast<uint8_t>(OpTag::NoOverlap);
    else if (tag == "expanded_write_warns") tags |= static_cast<uint8_t>(OpTag::ExpandedWriteWarns);
    else if (tag == "quantized") tags |= static_cast<uint8_t>(OpTag::Quantized);
    else TL_INTERNAL_ASSERT(tag.empty(), "unknown op tag '", tag, "'");
  }
  return tags;
}

// One list element: an int, or True / False as 1 / 0 in a bool list.
int64_t parse_list_item(const std::string& base, const std::string& text) {
  if (base == "bool") return text == "True" ? 1 : 0;
  return std::stoll(text);
}

AttrValue parse_default(const std::string& type, const std::string& text) {
  if (text == "None") return std::monostate{};
  const std::string base = base_type_of(type);
  if (base == "bool" && list_length_of(type) < 0) return text == "True";
  if (base == "str") return text.substr(1, text.size() - 2);  // 'none' -> none
  if (base == "ScalarType") {
    for (DType d : {DType::Float32, DType::Float64, DType::Int64, DType::Int32, DType::Bool, DType::BFloat16,
                    DType::UInt8, DType::Int8, DType::QUInt8, DType::QInt8, DType::QInt32})
      if (text == dtype_name(d)) return d;
    TL_INTERNAL_ASSERT(false, "unknown dtype default '", text, "'");
  }
  if (list_length_of(type) >= 0) {  // int[] / int[2] / bool[3]
    Shape values;
    if (text.front() == '[') {
      std::string body = text.substr(1, text.size() - 2);
      size_t pos = 0;
      while (!trim(body).empty() && pos != std::string::npos) {
        const size_t comma = body.find(',', pos);
        values.push_back(parse_list_item(base, trim(body.substr(pos, comma - pos))));
        pos = comma == std::string::npos ? comma : comma + 1;
      }
    } else {
      for (int i = 0; i < list_length_of(type); ++i) values.push_back(parse_list_item(base, text));
    }
    return values;
  }
  if (base == "float") return std::stod(text);
  if (base == "int") return static_cast<int64_t>(std::stoll(text));
  if (text.find_first_of(".e") != std::string::npos) return std::stod(text);  // Scalar
  return static_cast<int64_t>(std::stoll(text));
}

}  // namespace

Schema parse_schema(const std::string& schema, const std::string& tags) {
  Schema s;
  const size_t open = schema.find('('), close = schema.rfind(") ->");
  TL_INTERNAL_ASSERT(open != std::string::npos && close != std::string::npos, "bad schema '", schema, "'");
  s.name = schema.substr(0, open);
  if (const size_t dot = s.name.find('.'); dot != std::string::npos) {
    s.overload_name = s.name.substr(dot + 1);
    s.name.resize(dot);
  }
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
    const size_t eq = p.find('=');
    SchemaArg arg = parse_decl(trim(p.substr(0, eq)));
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
  s.returns = parse_returns(trim(schema.substr(close + 4)));
  s.tags = parse_tags(tags);
  for (size_t i = 0; i < s.args.size(); ++i)
    if (s.args[i].is_write) s.written_args.push_back(i);
  const auto self = std::find_if(s.args.begin(), s.args.end(), [](const SchemaArg& a) { return a.is_tensor(); });
  s.returns_view_of_self = self != s.args.end() && !self->is_write && !self->alias_set.empty() && !s.returns.empty() &&
                           s.returns[0].alias_set == self->alias_set;
  return s;
}

namespace {

const std::array<Schema, kNumOps>& all_schemas() {
  static const std::array<Schema, kNumOps> schemas = [] {
    std::array<Schema, kNumOps> out;
    for (int i = 0; i < kNumOps; ++i) {
      const OpInfo& info = op_info(static_cast<OpKind>(i));
      out[i] = parse_schema(info.schema, info.tags);
    }
    return out;
  }();
  return schemas;
}

}  // namespace

int SchemaArg::list_length() const { return list_length_of(type); }

std::string SchemaArg::base_type() const { return base_type_of(type); }

int Schema::out_index() const {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].is_write && args[i].kwarg_only && args[i].name == "out") return static_cast<int>(i);
  return -1;
}

std::vector<std::pair<size_t, size_t>> Schema::tensor_slots(size_t num_inputs) const {
  std::vector<const SchemaArg*> tensors;
  for (const SchemaArg& a : args)
    if (a.is_tensor() || a.is_tensor_list()) tensors.push_back(&a);
  const auto list = std::find_if(tensors.begin(), tensors.end(), [](const SchemaArg* a) { return a->is_tensor_list(); });
  const size_t after = list == tensors.end() ? 0 : static_cast<size_t>(tensors.end() - list - 1);
  std::vector<std::pair<size_t, size_t>> slots;
  size_t next = 0;
  for (const SchemaArg* a : tensors) {
    const size_t end = a->is_tensor_list() ? std::max(next, num_inputs > after ? num_inputs - after : 0)
                                           : std::min(next + 1, num_inputs);
    slots.emplace_back(next, end);
    next = end;
  }
  return slots;
}

std::vector<size_t> Schema::written_inputs(size_t num_inputs) const {
  std::vector<size_t> out;
  if (written_args.empty()) return out;
  const auto slots = tensor_slots(num_inputs);
  size_t slot = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_tensor() && !args[i].is_tensor_list()) continue;
    const auto [begin, end] = slots[slot++];
    if (args[i].is_write)
      for (size_t k = begin; k < end; ++k) out.push_back(k);
  }
  return out;
}

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

}  // namespace tl
