// core/boxing.h — the untyped boundary of the op rows' typed arguments. Each op has an arguments struct
// (core/op_args.h, generated from core/native_functions.toml) that its kernel and derivative read by
// field; here it is boxed into Attrs (FX arguments, profiler inputs) and unboxed from them, with the
// checks a user's graph needs: a wrong type or length is a tl::Error naming the op, the argument and
// the value.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/dispatch.h"
#include "core/generator.h"

namespace tl {

/// An `int[1]` argument (sum's dim): one int or a list of them, as ATen's IntArrayRef takes it.
/// `one_int` keeps how it was written, so a trace records x.sum(0) as sum(0) and x.sum({0}) as sum([0]).
struct IntList {
  Shape values;
  bool one_int = false;
};

/// The arguments struct of an op that has no argument besides its tensors.
struct NoArgs {};

/// An op's arguments struct, owned and type-erased: what an autograd node or an FX plan step keeps of
/// a call. Copies share the struct, which never changes.
class OpArgs {
 public:
  OpArgs() = default;
  template <typename Args>
  OpArgs(OpKind op, Args args) : op_(op), args_(std::make_shared<const Args>(std::move(args))) {}

  OpKind op() const { return op_; }
  /// The struct, for the registry's typed entry (dispatch::call_typed).
  const void* get() const { return args_.get(); }
  /// The struct as `Args`, which must be the op's (ArgsOf<op>): generated code and formulas ask.
  template <typename Args>
  const Args& as() const {
    return *static_cast<const Args*>(args_.get());
  }

 private:
  OpKind op_{};
  std::shared_ptr<const void> args_;
};

namespace detail {

/// A field as its Attrs value: a Scalar by its kind, an empty optional as None, an int[N] or bool[3] as
/// a Shape (1 / 0 for bools), an IntList as an int when it was written as one.
AttrValue box(int64_t v);
AttrValue box(double v);
AttrValue box(bool v);
AttrValue box(const Scalar& v);
AttrValue box(DType v);
AttrValue box(const std::string& v);
AttrValue box(const Shape& v);
AttrValue box(const IntList& v);
AttrValue box(const std::array<bool, 3>& v);
template <size_t N>
AttrValue box(const std::array<int64_t, N>& v) {
  Shape s;
  for (int64_t x : v) s.push_back(x);
  return s;
}
template <typename T>
AttrValue box(const std::optional<T>& v) {
  return v ? box(*v) : AttrValue{};
}
/// A `Generator? generator` boxes as None whether or not one was given: a graph cannot hold a torch.Generator
/// (torch.fx's create_arg refuses one), so the tracer refuses such a call (OpInfo::generator says which).
inline AttrValue box(const std::optional<Generator>&) { return AttrValue{}; }
/// An int[N] argument whose schema default is [] (max_pool2d's stride): none given is the empty list.
template <size_t N>
AttrValue box_list(const std::optional<std::array<int64_t, N>>& v) {
  return v ? box(*v) : AttrValue{Shape{}};
}

/// Reads an Attrs value into a field of the matching type, as Python would bind it (an int for a float,
/// one int for an int list, None for an optional); throws tl::Error naming `op`, the argument and what it
/// got otherwise.
void unbox(const AttrValue& v, int64_t& out, const char* op, std::string_view name);
void unbox(const AttrValue& v, double& out, const char* op, std::string_view name);
void unbox(const AttrValue& v, bool& out, const char* op, std::string_view name);
void unbox(const AttrValue& v, Scalar& out, const char* op, std::string_view name);
void unbox(const AttrValue& v, DType& out, const char* op, std::string_view name);
void unbox(const AttrValue& v, std::string& out, const char* op, std::string_view name);
void unbox(const AttrValue& v, Shape& out, const char* op, std::string_view name);
void unbox(const AttrValue& v, IntList& out, const char* op, std::string_view name);
void unbox(const AttrValue& v, std::array<bool, 3>& out, const char* op, std::string_view name);
/// An int[N] takes N values, or one standing for all N (stride=2), as PyTorch's.
void unbox_ints(const AttrValue& v, int64_t* out, size_t n, const char* op, std::string_view name);
template <size_t N>
void unbox(const AttrValue& v, std::array<int64_t, N>& out, const char* op, std::string_view name) {
  unbox_ints(v, out.data(), N, op, name);
}
template <typename T>
void unbox(const AttrValue& v, std::optional<T>& out, const char* op, std::string_view name) {
  if (std::holds_alternative<std::monostate>(v)) {
    out.reset();
    return;
  }
  T value{};
  unbox(v, value, op, name);
  out = std::move(value);
}
void unbox(const AttrValue& v, std::optional<Scalar>& out, const char* op, std::string_view name);
/// Boxed arguments carry no generator: None is the default generator, anything else a tl::Error.
void unbox(const AttrValue& v, std::optional<Generator>& out, const char* op, std::string_view name);
/// An int[N] argument whose default is [] (max_pool2d's stride): an empty list is none given.
template <size_t N>
void unbox(const AttrValue& v, std::optional<std::array<int64_t, N>>& out, const char* op, std::string_view name) {
  const Shape* s = std::get_if<Shape>(&v);
  if (std::holds_alternative<std::monostate>(v) || (s && s->empty())) {
    out.reset();
    return;
  }
  std::array<int64_t, N> value{};
  unbox(v, value, op, name);
  out = value;
}

/// The field `name` of an arguments struct from `attrs`: kept at its default when absent, unless
/// `required` (the schema gives no default), which is a tl::Error naming the op and the argument.
template <typename T>
void unbox_field(const Attrs& attrs, std::string_view name, T& out, const char* op, bool required) {
  const AttrValue* v = attrs.find(name);
  TL_CHECK(v != nullptr || !required, op, ": missing argument '", name, "'");
  if (v) unbox(*v, out, op, name);
}

/// Refuses an argument name the op does not take (a misspelt kwarg in a graph): tl::Error naming the op,
/// the name and the names it takes.
void check_names(const Attrs& attrs, std::initializer_list<std::string_view> names, const char* op);

/// A kernel's outputs as its typed return: one Tensor, a std::tuple of them, the list, or a bool (a 0-d
/// bool tensor's value).
template <typename R>
R unpack_outputs(TensorList&& outputs) {
  if constexpr (std::is_same_v<R, TensorList>) {
    return std::move(outputs);
  } else if constexpr (std::is_same_v<R, Tensor>) {
    TL_INTERNAL_ASSERT(outputs.size() == 1, "expected one output, got ", outputs.size());
    return std::move(outputs[0]);
  } else if constexpr (std::is_same_v<R, bool>) {
    TL_INTERNAL_ASSERT(outputs.size() == 1, "expected one output, got ", outputs.size());
    return outputs[0].template item<bool>();
  } else {
    constexpr size_t n = std::tuple_size_v<R>;
    TL_INTERNAL_ASSERT(outputs.size() == n, "expected ", n, " outputs, got ", outputs.size());
    return [&]<size_t... I>(std::index_sequence<I...>) { return R{std::move(outputs[I])...}; }(std::make_index_sequence<n>{});
  }
}

}  // namespace detail
}  // namespace tl
