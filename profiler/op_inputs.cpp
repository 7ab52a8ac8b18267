// profiler/op_inputs.cpp — walks an OpCall's tensors and attributes in the order of the op's schema
// (core/schema.h).
#include "profiler/op_inputs.h"

#include <algorithm>

#include "core/op_kind.h"
#include "core/schema.h"

namespace tl::profiler {
namespace {

const char* dtype_type_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Int64: return "long int";
    case DType::Int32: return "int";
    case DType::Bool: return "bool";
    case DType::BFloat16: return "c10::BFloat16";
    case DType::UInt8: return "unsigned char";
    case DType::Int8: return "signed char";
    case DType::QUInt8: return "c10::quint8";
    case DType::QInt8: return "c10::qint8";
    case DType::QInt32: return "c10::qint32";
  }
  return "";
}

// `as_scalar`: the parameter is a Tensor or a Scalar (a number passed for it is a "Scalar").
const char* attr_type_name(const AttrValue* value, bool as_scalar) {
  if (value == nullptr || std::holds_alternative<std::monostate>(*value)) return "";
  if (as_scalar) return "Scalar";
  if (std::holds_alternative<bool>(*value)) return "Bool";
  if (std::holds_alternative<int64_t>(*value)) return "Int";
  if (std::holds_alternative<double>(*value)) return "Double";
  if (std::holds_alternative<Shape>(*value)) return "ScalarList";
  if (std::holds_alternative<DType>(*value)) return "Int";
  return "String";
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

// Where torchless's schema row and the overload PyTorch records differ (#20 item 3), turns the row's
// argument list into PyTorch's: arguments PyTorch has after the row's, of types the schema language lacks
// (MemoryFormat, Layout, Device), show as PyTorch shows their defaults (a value is a "Scalar", None is
// ""); the dimless sum, mean, max and min are PyTorch's overloads without dim and keepdim; nonzero's
// as_tuple is Python's, not an argument of aten::nonzero; einsum's row has no `path`; a factory given a
// generator is PyTorch's .generator overload (the generator before dtype), one without it has none.
void to_pytorch_arguments(const OpCall& call, const Attrs& attrs, std::vector<Shape>& shapes,
                          std::vector<std::string>& types) {
  const auto& args = schema_of(call.op).args;
  auto drop = [&](std::string_view name) {
    for (size_t i = 0; i < args.size() && i < shapes.size(); ++i)
      if (args[i].name == name) {
        shapes.erase(shapes.begin() + static_cast<std::ptrdiff_t>(i));
        types.erase(types.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
  };
  // rand.generator(size, *, generator, dtype, ...) where a generator was given; rand(size, *, dtype, ...) else.
  auto generator_overload = [&] {
    if (op_info(call.op).generator(call.args) == nullptr) return drop("generator");
    const auto at = [&](std::string_view name) {
      return std::find_if(args.begin(), args.end(), [&](const SchemaArg& a) { return a.name == name; }) - args.begin();
    };
    const std::ptrdiff_t generator = at("generator"), dtype = at("dtype");
    std::rotate(shapes.begin() + dtype, shapes.begin() + generator, shapes.begin() + generator + 1);
    std::rotate(types.begin() + dtype, types.begin() + generator, types.begin() + generator + 1);
  };
  std::vector<const char*> missing;  // the type names of PyTorch's further arguments
  switch (call.op) {
    case OpKind::Rsub: missing = {"Scalar"}; break;  // alpha, which the rsub row lacks
    case OpKind::Clone: case OpKind::Contiguous: case OpKind::To: missing = {""}; break;  // memory_format
    case OpKind::Empty: missing = {"Scalar", "", "", ""}; break;  // layout, device, pin_memory, memory_format
    case OpKind::Zeros: case OpKind::Ones: case OpKind::Full:
    case OpKind::Arange: missing = {"", "", ""}; break;  // layout, device, pin_memory
    case OpKind::Rand: case OpKind::Randn: case OpKind::Randint: case OpKind::Randperm:
      generator_overload();
      missing = {"", "", ""};  // layout, device, pin_memory
      break;
    case OpKind::Linspace: case OpKind::Logspace: missing = {"", "", ""}; break;  // layout, device, pin_memory
    case OpKind::Eye:
      if (attrs.is_none("m")) drop("m");  // eye(n) and eye.m(n, m) are two overloads
      missing = {"", "", ""};             // layout, device, pin_memory
      break;
    case OpKind::EmptyLike: case OpKind::ZerosLike: case OpKind::OnesLike: case OpKind::FullLike:
      missing = {"", "", "", ""};  // layout, device, pin_memory, memory_format
      break;
    case OpKind::Sum:
    case OpKind::Mean:
    case OpKind::Max:
    case OpKind::Min:
      if (attrs.is_none("dim")) {
        drop("keepdim");
        drop("dim");
      }
      break;
    case OpKind::Nonzero: drop("as_tuple"); break;
    case OpKind::Einsum: missing = {""}; break;  // path (opt_einsum's contraction order), None
    default: break;
  }
  for (const char* type : missing) {
    shapes.emplace_back();
    types.emplace_back(type);
  }
}

}  // namespace

void describe_inputs(const OpCall& call, std::vector<Shape>& shapes, std::vector<std::string>& types) {
  shapes.clear();
  types.clear();
  const Attrs attrs = call.attrs();
  size_t next_tensor = 0;
  const Schema& schema = schema_of(call.op);
  const auto slots = schema.tensor_slots(call.inputs.size());
  size_t slot = 0;
  for (const SchemaArg& arg : schema.args) {
    if (arg.is_tensor_list()) {
      next_tensor = slots[slot++].second;
      shapes.emplace_back();
      types.emplace_back("TensorList");
    } else if (arg.is_tensor() && next_tensor < call.inputs.size()) {
      ++slot;
      const Tensor& t = call.inputs[next_tensor++];
      shapes.push_back(known_shape(t));
      types.emplace_back(t.defined() ? dtype_type_name(t.dtype()) : "");
    } else {
      shapes.emplace_back();
      types.emplace_back(attr_type_name(attrs.find(arg.name), arg.is_tensor() || arg.base_type() == "Scalar"));
    }
  }
  to_pytorch_arguments(call, attrs, shapes, types);
}

void describe_inputs(const ScopeArgs& args, std::vector<Shape>& shapes, std::vector<std::string>& types) {
  shapes.clear();
  types.clear();
  for (const ScopeArg& arg : args) {
    if (const Tensor* t = std::get_if<Tensor>(&arg)) {
      shapes.push_back(known_shape(*t));
      types.emplace_back(t->defined() ? dtype_type_name(t->dtype()) : "");
    } else if (const TensorType* type = std::get_if<TensorType>(&arg)) {
      shapes.push_back(type->sizes);
      types.emplace_back(dtype_type_name(type->dtype));
    } else {
      shapes.emplace_back();
      const ListArg* list = std::get_if<ListArg>(&arg);
      const AttrValue* value = list != nullptr ? &list->items : std::get_if<AttrValue>(&arg);
      types.emplace_back(value ? attr_type_name(value, false) : "");
    }
  }
}

}  // namespace tl::profiler
