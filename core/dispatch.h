// core/dispatch.h — the one dispatch point. Every tensor op runs through dispatch::call, which is
// where tracing, profiling and other hooks attach; with no hook installed it costs one branch.
// core declares the call and the hooks; ops/registry.cpp defines call() over the kernel table.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/hook_stack.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace tl {

/// One op row (core/native_functions.toml). Declared opaquely: its enumerators and kNumOps are in
/// core/op_kind.h, which only the code that names an op includes.
enum class OpKind : uint16_t;

/// A non-tensor argument of an op. monostate stands for Python's None.
using AttrValue = std::variant<std::monostate, bool, int64_t, double, Shape, DType, std::string>;

/// The named non-tensor arguments of one op call, in schema order.
class Attrs {
 public:
  struct Item {
    std::string_view name;  ///< always a string literal
    AttrValue value;
  };

  Attrs() = default;
  Attrs(std::initializer_list<Item> items) : items_(items) {}
  explicit Attrs(std::vector<Item> items) : items_(std::move(items)) {}

  bool has(std::string_view name) const { return find(name) != nullptr; }
  /// True when the attribute is absent or None.
  bool is_none(std::string_view name) const;
  /// The value of `name` as T; a missing name or another type is an internal error (the op's
  /// public wrapper builds the attrs, so a mismatch is our bug).
  template <typename T>
  const T& get(std::string_view name) const {
    const AttrValue* v = find(name);
    TL_CHECK(v && std::holds_alternative<T>(*v), "argument '", name, "' is ", v ? "not of the type the op expects" : "missing");
    return std::get<T>(*v);
  }
  /// A bool / int64 / double attribute as a Scalar.
  [[deprecated("kernels read their arguments struct (core/op_args.h); a boxed number is get<int64_t>, "
               "get<double> or get<bool>")]]
  Scalar scalar(std::string_view name) const;
  /// An `int[1]` attribute as a list: one int stands for a list of one.
  [[deprecated("kernels read their arguments struct (core/op_args.h); a boxed int list is get<Shape>")]]
  Shape int_list(std::string_view name) const;
  const std::vector<Item>& items() const { return items_; }
  /// The value of `name`, or nullptr when absent.
  const AttrValue* find(std::string_view name) const;

 private:
  std::vector<Item> items_;
};

using TensorList = std::vector<Tensor>;
/// A row's typed entry (generated, core/gen_ops.py): runs the op's kernel on its tensor inputs (an undefined
/// Tensor stands for None) and its arguments struct (core/op_args.h: ArgsOf<op>).
using RunFn = TensorList (*)(std::span<const Tensor> inputs, const void* args);
/// A composite op's decomposition, run on the boxed arguments.
using KernelFn = TensorList (*)(std::span<const Tensor> inputs, const Attrs& attrs);

class OpArgs;
class Generator;
struct NamedCall;

/// How the user spelled the call: `tl::add(a, b)`, `a.add(b)`, `a + b` or, with a number on the left,
/// `2 + a` (Python's reflected operator: the op's own operands, add(a, 2), rsub(a, 2.0) for `2.0 - a`).
/// The tracer records call_function[torch.add], call_method[add], call_function[operator.add](a, b) or
/// call_function[operator.add](2, a) accordingly.
enum class CallStyle : uint8_t { Function, Method, Operator, ReflectedOperator };

/// What autocast does to an op's floating inputs (PyTorch 1.13's CPU lists): cast them to the autocast
/// dtype (convolutions, matrix products), to float32 (losses), or nothing.
enum class AutocastPolicy : uint8_t { None, LowerPrecision, Float32 };

/// One op row as the registry holds it (ops/op_registry.cpp, generated from core/native_functions.toml).
struct OpInfo {
  const char* aten_name;   ///< "aten::add": what the profiler prints
  const char* schema;      ///< PyTorch-style signature with defaults
  const char* py_operator; ///< "add" for operator.add, "" when the op has no Python operator
  /// What FX's call_function names: "torch.flatten", or the row's python_target ("torch.ops.quantized.add_relu")
  const char* python_target;
  const char* tags;        ///< "pointwise", "nondeterministic_seeded" or "" (read through core/schema.h)
  RunFn run;               ///< the kernel, typed
  Attrs (*box)(const void* args);               ///< the arguments struct as Attrs (FX, the profiler)
  OpArgs (*unbox)(const Attrs& attrs);          ///< Attrs checked into an arguments struct
  OpArgs (*own)(const void* args);              ///< a copy of the arguments struct to keep
  /// The number a pointwise op got for its second operand (x + 2), or nullptr; null for other ops.
  const Scalar* (*number_operand)(const void* args);
  /// The generator a seeded op's call was given (generator=g), or nullptr when it draws from the default
  /// one; null for ops without a generator argument. Boxed arguments hold None for it (core/boxing.h).
  const Generator* (*generator)(const void* args);
  AutocastPolicy autocast;
};
/// The registry row for `op` (defined with the registry in ops/registry.cpp).
const OpInfo& op_info(OpKind op);
/// The op's Python name: the schema up to '(' ("flatten").
std::string_view op_name(OpKind op);

/// One op call as hooks see it.
struct OpCall {
  OpKind op;
  CallStyle style;
  std::span<const Tensor> inputs;
  const void* args;  ///< the op's arguments struct (ArgsOf<op>)
  /// The sequence number of the backward node autograd recorded for this call, or -1 (the profiler
  /// links the op to the node's backward scopes by it).
  int64_t sequence_nr = -1;
  /// True when the op runs as its decomposition's ops (autograd's composite path) rather than its kernel.
  bool decomposed = false;

  /// The arguments boxed, by name, as FX and the profiler read them.
  Attrs attrs() const { return op_info(op).box(args); }
};

/// Installed per thread; called for every op that thread dispatches, nested ops included.
class DispatchHook {
 public:
  virtual ~DispatchHook() = default;
  virtual void before(const OpCall&) {}
  /// Return true and fill `outputs` to run instead of the kernel (symbolic tracing).
  virtual bool intercept(const OpCall&, TensorList& /*outputs*/) { return false; }
  /// `outputs` is null when the op threw.
  virtual void after(const OpCall&, const TensorList* /*outputs*/) {}
  /// Return true and fill `outputs` to stand for a named call (core/named_call.h: F.relu(x, inplace=True),
  /// x[...] as operator.getitem, a torch.fx.wrap'ped function) as one value instead of the ops it runs:
  /// symbolic tracing records one call_function node, as torch.fx does.
  virtual bool intercept_call(const NamedCall& /*call*/, TensorList& /*outputs*/) { return false; }
};

namespace dispatch {

/// Runs `op` on its arguments struct `args` (ArgsOf<op>): inside an autocast scope, casts the inputs of the
/// ops autocast lists; records it for backward when an input requires grad; then hooks' before, the
/// first intercepting hook or the kernel, hooks' after (reverse order). The generated C++ API calls
/// the typed form, dispatch::call<OpKind::Add>(inputs, args) (core/op_args.h).
TensorList call_typed(OpKind op, std::span<const Tensor> inputs, const void* args, CallStyle style);
/// Runs an op on arguments kept by an FX plan step or an autograd node.
TensorList call(const OpArgs& args, std::span<const Tensor> inputs, CallStyle style = CallStyle::Function);
/// Runs `op` on boxed arguments (the untyped boundary: FX's interpreter, tests), checked against the
/// op's schema first: an unknown name, a missing required argument or a wrong type is a tl::Error.
TensorList call(OpKind op, std::span<const Tensor> inputs, const Attrs& attrs,
                CallStyle style = CallStyle::Function);
/// call() on boxed arguments for an op that returns one tensor: that tensor (an internal error for an
/// op returning several).
Tensor call_single_output(OpKind op, std::span<const Tensor> inputs, const Attrs& attrs,
                          CallStyle style = CallStyle::Function);
Tensor call_single_output(OpKind op, std::initializer_list<Tensor> inputs, const Attrs& attrs = {},
                          CallStyle style = CallStyle::Function);
/// Deprecated in 0.2.0, removed in 0.3.0: call1 is call_single_output.
[[deprecated("dispatch::call1 is dispatch::call_single_output")]]
inline Tensor call1(OpKind op, std::span<const Tensor> inputs, const Attrs& attrs, CallStyle style = CallStyle::Function) {
  return call_single_output(op, inputs, attrs, style);
}
[[deprecated("dispatch::call1 is dispatch::call_single_output")]]
inline Tensor call1(OpKind op, std::initializer_list<Tensor> inputs, const Attrs& attrs = {},
                    CallStyle style = CallStyle::Function) {
  return call_single_output(op, inputs, attrs, style);
}

/// Runs `op` below autograd: the hooks and the kernel, recording nothing, then bumps the version of
/// each argument the op writes. dispatch::call comes here unless an input requires grad; autograd
/// comes here with the `sequence_nr` of the node it recorded for the call.
TensorList call_kernel(OpKind op, std::span<const Tensor> inputs, const void* args, CallStyle style,
                       int64_t sequence_nr = -1);

/// The autograd layer's entry point: runs an op some input of which requires grad (grad mode on) and
/// records it for backward. autograd/ installs it before any tensor can require grad.
using AutogradFn = TensorList (*)(OpKind op, std::span<const Tensor> inputs, const void* args, CallStyle style);
void set_autograd_fn(AutogradFn fn);
AutogradFn autograd_fn();

/// True when the calling thread has a hook installed.
bool has_hooks();
/// Runs `call` through the calling thread's hooks around `run`.
TensorList call_with_hooks(const OpCall& call, const std::function<TensorList()>& run);

/// Offers a named call to the calling thread's hooks, bottom to top: true with `outputs` set when one took it.
bool intercept_call(const NamedCall& call, TensorList& outputs);

/// Adds `hook` on top of the calling thread's hook stack.
void push_hook(DispatchHook* hook);
/// Removes `hook` (it must be on this thread's stack).
void pop_hook(DispatchHook* hook);

/// RAII: installs a hook for the current scope on the current thread.
using HookGuard = ScopedHook<DispatchHook, push_hook, pop_hook>;

}  // namespace dispatch

}  // namespace tl
