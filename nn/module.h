// nn/module.h — nn::Module, the tree every layer and model is built from. Parameters, buffers and
// children live only in the module's ordered registry (read by name, or through a ModuleHandle that
// looks its child up there), so clone(), set_submodule() and load_state_dict() see everything;
// operator() is the one call path hooks see.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"
#include "nn/inputs.h"
#include "nn/module_hook.h"
#include "nn/state_dict.h"

namespace tl::nn {

/// PyTorch's printed class name of a C++ type: the demangled name without its namespaces
/// ("tl::models::(anonymous namespace)::Net" -> "Net"; template arguments are kept).
std::string class_name(const std::type_info& type);

/// The Python signature of forward(), as symbolic tracing names its placeholders and annotates
/// the generated code: `def forward(self, x : torch.Tensor) -> torch.Tensor`.
struct ForwardSignature {
  std::vector<std::string> arg_names{"x"};
  std::vector<std::string> arg_types;  ///< per argument, "" (or missing) for none
  std::string return_type;             ///< "" for none
};

class Module;

/// What ModuleHandle<M> does without M: which module's child it names, looked up at each use.
class ModuleHandleBase {
 public:
  /// The child's name on the module that registered it; "" for an empty handle.
  const std::string& name() const { return name_; }
  /// True until assigned the result of register_module (LibTorch's `Linear fc{nullptr}`).
  bool is_empty() const { return name_.empty(); }

 protected:
  ModuleHandleBase() = default;
  ModuleHandleBase(const Module& owner, std::string name);
  /// A handle copied as a member of its owner (the copy constructor that clone_as runs) names the copy's
  /// child; any other copy names the same owner's.
  ModuleHandleBase(const ModuleHandleBase& other);
  ModuleHandleBase& operator=(const ModuleHandleBase& other) = default;
  ~ModuleHandleBase() = default;

  /// The child registered under name() now. Throws tl::Error for an empty handle or a gone owner.
  const std::shared_ptr<Module>& resolve() const;
  /// Throws tl::Error: the child is a `child`, not the `expected` type the handle was made for.
  [[noreturn]] void throw_type_mismatch(const Module& child, const std::type_info& expected) const;

 private:
  /// `module`'s anchor, made at its first handle.
  static std::weak_ptr<Module*> anchor(const Module& module);

  std::weak_ptr<Module*> owner_;  ///< the owner's anchor: expires with the owner
  std::string name_;
};

/// A typed handle to a registered child, LibTorch's `torch::nn::Linear fc{nullptr}` used as
/// `fc = register_module("fc", ...)`, `fc->weight`, `fc(x)`. It holds the owner and the child's name, not
/// the child: each use looks the child up in the owner's registry, so it follows set_submodule (a
/// replacement of another type is refused at the next use, naming both types) and, as a member of its
/// owner, clone() and copies. Calls go through Module::operator() (hooks, tracing).
template <class M>
class ModuleHandle : public ModuleHandleBase {
  static_assert(std::is_base_of_v<Module, M>, "ModuleHandle: M must derive from tl::nn::Module");

 public:
  ModuleHandle() = default;
  ModuleHandle(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): LibTorch's `Linear fc{nullptr}`
  /// A handle to a derived type is a handle to its base: ModuleHandle<Module> any = register_module(...).
  template <class N>
    requires(std::is_base_of_v<M, N> && !std::is_same_v<M, N>)
  ModuleHandle(const ModuleHandle<N>& other) : ModuleHandleBase(other) {}  // NOLINT(google-explicit-constructor)

  /// The child, typed; throws tl::Error when the handle is empty, its owner gone or the child not an M.
  M* get() const;
  M* operator->() const { return get(); }
  M& operator*() const { return *get(); }
  /// The child as a shared_ptr (for code that keeps it past its replacement).
  std::shared_ptr<M> ptr() const;
  operator std::shared_ptr<M>() const { return ptr(); }  // NOLINT(google-explicit-constructor)

  /// The child called through Module::operator(), as `submodule(name())(input)`.
  Tensor operator()(const Tensor& input) const;
  TensorList operator()(const TensorList& inputs) const;

 private:
  friend class Module;
  ModuleHandle(const Module& owner, std::string name) : ModuleHandleBase(owner, std::move(name)) {}
};

/// Base of every layer and model, like torch.nn.Module. Children are held by std::shared_ptr; a
/// root may live anywhere (get_submodule("") then returns a non-owning pointer to it).
/// Names follow PyTorch: a registration keeps its first position when re-registered; parameter,
/// buffer and child names share one namespace, are non-empty and contain no '.'.
class Module : public std::enable_shared_from_this<Module> {
 public:
  using NamedTensor = std::pair<std::string, Tensor>;
  using NamedModule = std::pair<std::string, std::shared_ptr<Module>>;

  Module() = default;
  virtual ~Module();
  Module& operator=(const Module&) = delete;

  // ---- calling ----
  /// The one call path: module hooks (tracing, profiling) see every call made here. Throws tl::Error
  /// (check_inputs) unless `inputs` has one defined tensor per argument of forward_signature().
  TensorList operator()(const TensorList& inputs);
  /// One tensor in, one out; throws tl::Error when forward() returns another count.
  Tensor operator()(const Tensor& input);
  /// `inputs[i]` throws tl::Error naming the module past the inputs it declares (nn/inputs.h).
  /// Default: exactly one input, passed to forward(const Tensor&); throws otherwise.
  virtual TensorList forward(Inputs inputs);
  /// Default: throws tl::Error naming the module (like PyTorch's missing "forward").
  virtual Tensor forward(const Tensor& input);

  // ---- identity ----
  /// The Python class name printed by repr: "Conv2d", "ResNet", "WrappedBatchNorm". Default: the C++
  /// class name without namespaces (class_name), as PyTorch prints type(module).__name__.
  virtual std::string type_name() const;
  /// The text inside the parentheses of repr: "1, 1, kernel_size=(1, 1), stride=(1, 1)".
  virtual std::string extra_repr() const;
  /// Python's str(module), which print() shows: repr(module) unless overridden (GraphModule adds its code).
  virtual std::string str() const;
  /// True for built-in layers (FX records them as call_module); containers and models are not.
  virtual bool is_leaf() const;
  /// forward()'s argument names and annotations; default: one unannotated argument `x`. The one
  /// declaration of how many inputs forward() takes: calls and symbolic tracing pass exactly that many.
  virtual ForwardSignature forward_signature() const { return {}; }
  /// What load_state_dict copies into this module's own tensor `name` when the dict lacks it (PyTorch's
  /// _load_from_state_dict): undefined, the default, makes it a missing key.
  virtual Tensor missing_state(const std::string& name) const;
  /// The entries state_dict() lists for this module after its registered tensors, names relative to it, for a
  /// module that keeps state in another form (PyTorch's _save_to_state_dict: a quantized layer's prepacked
  /// weight, scale and zero point, ao/nn/quantized.h). Fresh tensors, not aliases. Default: none.
  virtual StateDict packed_state() const;
  /// load_state_dict's half of packed_state() (PyTorch's _load_from_state_dict): `entries` holds every name
  /// packed_state() lists, each with the checkpoint's tensor of the shape packed_state() gives. Checks them and
  /// returns what installs them, which must not throw; throws tl::Error naming `prefix` + the entry it cannot
  /// take, changing nothing. The default, for a module without packed state, is never called.
  virtual std::function<void()> prepare_packed_state(const StateDict& entries, const std::string& prefix);
  /// Throws tl::Error naming the module unless `inputs` has one tensor per forward_signature() argument,
  /// and for an undefined one (None), naming also the input and, inside a call, the module's path from
  /// the module first called: "Conv2d.forward (module 'layer1.0.conv1' of ResNet): input 0 (x) is ...".
  void check_inputs(std::span<const Tensor> inputs) const;
  /// A deep copy: options copied, every tensor cloned, every child cloned (sharing inside the tree
  /// is kept: a tensor or module registered twice is copied once). Built-in layers, containers and
  /// the models implement it with clone_as<T>(); the default throws tl::Error.
  virtual std::shared_ptr<Module> clone() const;

  // ---- registration (throws tl::Error for a bad name or one used by another kind) ----
  /// An undefined `t` registers None (e.g. bias=False): kept by name, skipped by iteration. As in
  /// LibTorch, a floating parameter becomes a leaf that requires grad (unless `requires_grad` is false);
  /// a tensor with autograd history is registered as its detach()ed alias. Returns the registered tensor.
  Tensor register_parameter(const std::string& name, Tensor t, bool requires_grad = true);
  Tensor register_buffer(const std::string& name, Tensor t);
  /// Adds or replaces the child `name`; `module` must not be null. Returns a handle to the child
  /// (which converts to std::shared_ptr<M> for code that keeps the object itself).
  template <class M>
  ModuleHandle<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    static_assert(std::is_base_of_v<Module, M>, "register_module: M must derive from tl::nn::Module");
    register_child(name, std::move(module));
    return ModuleHandle<M>(*this, name);
  }

  // ---- direct (non-dotted) access; throws tl::Error naming the module when absent ----
  /// The reference stays valid until the next registration on this module.
  Tensor& parameter(const std::string& name);
  const Tensor& parameter(const std::string& name) const;
  Tensor& buffer(const std::string& name);
  const Tensor& buffer(const std::string& name) const;
  std::shared_ptr<Module> child(const std::string& name) const;
  /// True when registered, even as None.
  bool has_parameter(const std::string& name) const;
  bool has_buffer(const std::string& name) const;
  bool has_child(const std::string& name) const;

  // ---- dotted paths ("layer1.0.conv1") ----
  /// "" is this module. Throws tl::Error naming the first missing component:
  /// unknown module path: 'layer9' in 'layer9.0.conv1' (ResNet has no child 'layer9').
  std::shared_ptr<Module> get_submodule(const std::string& path) const;
  /// Replaces (or adds) the module at `path`; every component but the last must exist.
  void set_submodule(const std::string& path, std::shared_ptr<Module> module);
  /// "layer1.0.conv1.weight"; a parameter registered as None gives an undefined Tensor.
  Tensor get_parameter(const std::string& path) const;
  Tensor get_buffer(const std::string& path) const;
  /// The module that owns the entry at dotted `path` and the entry's own name: "layer1.0.conv1.weight"
  /// -> (layer1.0.conv1, "weight"); a name without a dot is this module's. Throws as get_submodule()
  /// (quoting the whole path) when an owner level is missing; the entry itself is not looked up.
  std::pair<std::shared_ptr<Module>, std::string> owner_and_name(const std::string& path) const;

  // ---- iteration, in PyTorch's order and with its de-duplication ----
  /// Pre-order over modules, own entries in registration order; None skipped; each tensor once.
  std::vector<NamedTensor> named_parameters(bool recurse = true) const;
  std::vector<NamedTensor> named_buffers(bool recurse = true) const;
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  /// Direct children, each module once.
  std::vector<NamedModule> named_children() const;
  std::vector<std::shared_ptr<Module>> children() const;
  /// This module first (name `prefix`), then every descendant by dotted path after `prefix`, pre-order;
  /// each module once unless remove_duplicate is false (then once per path), as PyTorch's named_modules.
  std::vector<NamedModule> named_modules(const std::string& prefix = "", bool remove_duplicate = true) const;
  std::vector<std::shared_ptr<Module>> modules() const;

  // ---- mode ----
  /// Sets training mode on this module and every descendant.
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  /// Calls fn on every descendant (children first, recursively), then on this module. When fn
  /// throws, the modules it already ran on keep its changes: only fn could undo them. Returns *this.
  Module& apply(const std::function<void(Module&)>& fn);

  // ---- gradients ----
  /// PyTorch 1.13's Module.zero_grad: every parameter's .grad zeroed in place (detached first when it
  /// has autograd history, else its requires_grad cleared), or cleared with set_to_none.
  void zero_grad(bool set_to_none = false);
  /// Sets requires_grad of every parameter (this module's and its descendants'); returns *this.
  /// Throws tl::Error, changing nothing, when a parameter cannot require grad (not floating point).
  Module& requires_grad_(bool requires_grad = true);

  // ---- hooks (nn/module_hook.h) ----
  /// Registers hook(module, input) to run before each forward() of this module, after the earlier
  /// ones; it returns void / std::nullopt, or a Tensor or TensorList that replaces the input.
  template <class F>
  RemovableHandle register_forward_pre_hook(F hook) {
    return add_forward_pre_hook(
        [hook = std::move(hook)](Module& m, const TensorList& input) { return invoke_hook(hook, m, input); });
  }
  /// Registers hook(module, input, output) to run after each forward() of this module; it returns
  /// void / std::nullopt, or a Tensor or TensorList that replaces the output.
  template <class F>
  RemovableHandle register_forward_hook(F hook) {
    return add_forward_hook([hook = std::move(hook)](Module& m, const TensorList& input, const TensorList& output) {
      return invoke_hook(hook, m, input, output);
    });
  }
  /// Registers hook(module, grad_input, grad_output), called when the gradients of this module's inputs
  /// are computed (or, when no input requires grad, of its outputs), after the earlier ones; it returns
  /// void / std::nullopt, or a TensorList of one gradient per input that replaces grad_input.
  template <class F>
  RemovableHandle register_full_backward_hook(F hook) {
    return add_full_backward_hook(
        [hook = std::move(hook)](Module& m, const TensorList& grad_input, const TensorList& grad_output) {
          return invoke_hook(hook, m, grad_input, grad_output);
        });
  }
  /// This module's own hooks; null until the first registration.
  const std::shared_ptr<ModuleHooks>& own_hooks() const { return hooks_; }

  // ---- dtype ----
  /// PyTorch's module.to(dtype) / .double() / .float() (Module._apply): every floating-point parameter
  /// of this module and its descendants, and its .grad, takes a `dtype` copy of its data in place
  /// (Tensor::set_data, PyTorch's `param.data = ...`): the same tensor objects, so an optimizer or a
  /// traced module holding them trains on. Every floating-point buffer is replaced in the registry by a
  /// copy, as PyTorch replaces buffers (integer buffers such as num_batches_tracked keep theirs; a
  /// buffer registered at several places stays shared). Throws tl::Error unless `dtype` is floating
  /// point. All or nothing: every copy is made before the first is used, so a failure (e.g. the
  /// allocation limit) leaves every tensor as it was. Returns *this.
  Module& to(DType dtype);

  // ---- state dict (nn/state_dict.cpp) ----
  /// Every parameter and buffer by dotted name, in PyTorch's order (see StateDict); aliases them.
  StateDict state_dict() const;
  /// Copies `dict` into this module's tensors (converting dtype, keeping tensor identity). Missing
  /// and unexpected keys (when `strict`) and shape mismatches (always) are reported together in one
  /// tl::Error worded like PyTorch's; everything is checked and converted to the model's dtypes before
  /// the first copy, so on error (a bad key, the allocation limit) nothing changes. With strict=false
  /// the unmatched keys are returned. Packed state goes through prepare_packed_state, whose errors join
  /// the others; with strict=false a module missing some of its packed entries keeps its own.
  IncompatibleKeys load_state_dict(const StateDict& dict, bool strict = true);

 protected:
  /// Copies options and registry entries (clone_as() then makes the copy deep); the ModuleHandle
  /// members copied with it then name the copy's children.
  Module(const Module& other);

  /// Every registered child in registration order, repeats included (Python's self._modules).
  const std::vector<NamedModule>& registered_children() const { return children_; }

  /// The module at `path` (direct child name or dotted), for forward(): submodule("conv1")(x).
  /// Throws like get_submodule().
  Module& submodule(const std::string& path);

  /// clone() for a copy-constructible module type M (this must be an M).
  template <class M>
  std::shared_ptr<Module> clone_as() const {
    static_assert(std::is_base_of_v<Module, M>, "clone_as: M must derive from tl::nn::Module");
    auto copy = std::make_shared<M>(static_cast<const M&>(*this));
    static_cast<Module&>(*copy).deep_copy_registry();
    return copy;
  }

 private:
  void register_child(const std::string& name, std::shared_ptr<Module> module);
  RemovableHandle add_forward_pre_hook(ForwardPreHook hook);
  RemovableHandle add_forward_hook(ForwardHook hook);
  RemovableHandle add_full_backward_hook(FullBackwardHook hook);
  enum class EntryKind { Parameter, Buffer, Child };
  /// Throws unless `name` is a valid name that no entry of another kind uses.
  void check_name(const std::string& name, EntryKind kind) const;
  /// This module as a shared_ptr (non-owning when it is not owned by one).
  std::shared_ptr<Module> shared_self() const;
  /// The module at `module_path`; errors quote `full_path` (the path the user asked for).
  std::shared_ptr<Module> find_module_path(const std::string& module_path, const std::string& full_path) const;
  std::vector<NamedTensor> named_members(std::vector<NamedTensor> Module::*field, bool recurse) const;
  void deep_copy_registry();
  /// Where a state_dict entry lives: the module, the entry's own name there, and whether it is packed_state().
  struct StateOwner {
    const Module* module;
    std::string name;
    bool packed;
  };
  /// Appends this module's state under `prefix`; `owners`, when given, gets each entry's owner.
  void append_state(const std::string& prefix, StateDict& out, std::vector<StateOwner>* owners = nullptr) const;

  friend std::string repr(const Module& module);
  friend class ModuleHandleBase;

  std::vector<NamedTensor> parameters_;
  std::vector<NamedTensor> buffers_;
  std::vector<NamedModule> children_;
  std::shared_ptr<ModuleHooks> hooks_;  ///< shared with the RemovableHandles (weakly); a clone copies them
  bool training_ = true;
  /// What ModuleHandles hold weakly: this module's address while it lives (made at the first handle).
  mutable std::shared_ptr<Module*> handle_anchor_;
};

template <class M>
M* ModuleHandle<M>::get() const {
  Module* child = resolve().get();
  if (M* typed = dynamic_cast<M*>(child)) return typed;
  throw_type_mismatch(*child, typeid(M));
}

template <class M>
std::shared_ptr<M> ModuleHandle<M>::ptr() const {
  get();  // the type check
  return std::static_pointer_cast<M>(resolve());
}

template <class M>
Tensor ModuleHandle<M>::operator()(const Tensor& input) const {
  return static_cast<Module&>(*get())(input);
}

template <class M>
TensorList ModuleHandle<M>::operator()(const TensorList& inputs) const {
  return static_cast<Module&>(*get())(inputs);
}

/// print(module): str(module) (PyTorch's repr, for most modules) and a newline (nn/repr.cpp).
std::ostream& operator<<(std::ostream& os, const Module& module);

}  // namespace tl::nn
