// profiler/op_inputs.cpp — parses each op's schema once (argument names and kinds), then walks an
// OpCall's tensors and attributes in that order.
#include "profiler/op_inputs.h"

#include <array>
#include <mutex>

namespace tl::profiler {
namespace {

enum class ArgKind : uint8_t { Tensor, TensorList, Scalar, Other };

struct SchemaArg {
  std::string name;
  ArgKind kind;
};

std::string trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

// "conv2d(Tensor input, Tensor? bias=None, int[2] stride=1, *, ScalarType dtype=...)" -> arguments.
std::vector<SchemaArg> parse_schema(std::string_view schema) {
  std::vector<SchemaArg> args;
  const size_t open = schema.find('(');
  const size_t close = schema.find(") ->");
  if (open == std::string_view::npos || close == std::string_view::npos) return args;
  std::string_view list = schema.substr(open + 1, close - open - 1);
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c != ',' || depth != 0) continue;
    std::string arg = trim(list.substr(begin, i - begin));
    begin = i + 1;
    if (arg.empty() || arg == "*") continue;
    const size_t space = arg.find(' ');
    const std::string type = arg.substr(0, space);
    std::string name = space == std::string::npos ? "" : arg.substr(space + 1);
    name = name.substr(0, name.find('='));
    ArgKind kind = ArgKind::Other;
    if (type.rfind("Tensor[]", 0) == 0) kind = ArgKind::TensorList;
    else if (type.rfind("Tensor", 0) == 0) kind = ArgKind::Tensor;
    else if (type.rfind("Scalar", 0) == 0 && type.rfind("ScalarType", 0) != 0) kind = ArgKind::Scalar;
    args.push_back({trim(name), kind});
  }
  return args;
}

const std::vector<SchemaArg>& schema_args(OpKind op) {
  static std::array<std::vector<SchemaArg>, kNumOps> table;
  static std::once_flag once;
  std::call_once(once, [] {
    for (int i = 0; i < kNumOps; ++i) table[i] = parse_schema(op_info(static_cast<OpKind>(i)).schema);
  });
  return table[static_cast<size_t>(op)];
}

const char* dtype_type_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Int64: return "long int";
    case DType::Int32: return "int";
    case DType::Bool: return "bool";
    case DType::BFloat16: return "c10::BFloat16";
  }
  return "";
}

const char* attr_type_name(const AttrValue* value, ArgKind kind) {
  if (value == nullptr || std::holds_alternative<std::monostate>(*value)) return "";
  if (kind == ArgKind::Scalar || kind == ArgKind::Tensor) return "Scalar";
  if (std::holds_alternative<bool>(*value)) return "Bool";
  if (std::holds_alternative<int64_t>(*value)) return "Int";
  if (std::holds_alternative<double>(*value)) return "Double";
  if (std::holds_alternative<Shape>(*value)) return "ScalarList";
  if (std::holds_alternative<DType>(*value)) return "Int";
  return "String";
}

const AttrValue* find_attr(const Attrs& attrs, std::string_view name) {
  for (const Attrs::Item& item : attrs.items())
    if (item.name == name) return &item.value;
  return nullptr;
}

// A proxy traced without example inputs has no sizes: it shows as [].
Shape known_shape(const Tensor& t) {
  if (!t.defined()) return {};
  if (!t.is_proxy()) return t.shape();
  try {
    return t.shape();
  } catch (const Error&) {
    return {};
  }
}

}  // namespace

void describe_inputs(const OpCall& call, std::vector<Shape>& shapes, std::vector<std::string>& types) {
  shapes.clear();
  types.clear();
  size_t next_tensor = 0;
  for (const SchemaArg& arg : schema_args(call.op)) {
    if (arg.kind == ArgKind::TensorList) {
      next_tensor = call.inputs.size();
      shapes.emplace_back();
      types.emplace_back("TensorList");
    } else if (arg.kind == ArgKind::Tensor && next_tensor < call.inputs.size()) {
      const Tensor& t = call.inputs[next_tensor++];
      shapes.push_back(known_shape(t));
      types.emplace_back(t.defined() ? dtype_type_name(t.dtype()) : "");
    } else {
      shapes.emplace_back();
      types.emplace_back(attr_type_name(find_attr(call.attrs, arg.name), arg.kind));
    }
  }
}

}  // namespace tl::profiler
