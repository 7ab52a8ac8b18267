// nn/module.cpp — Module's registry, path lookup, iteration, modes and deep copy.
// Iteration order and de-duplication follow torch.nn.Module (_named_members with a memo).
#include "nn/module.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>

#include "core/autograd_meta.h"
#include "core/grad_mode.h"
#include "nn/clone_memo.h"
#include "nn/module_hook.h"
#include "ops/ops.h"

namespace tl::nn {
namespace {

/// The (name, value) entry called `name` in a registry vector (const or not), or end().
template <class Entries>
auto find_entry(Entries& entries, const std::string& name) {
  return std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == name; });
}

template <class Entry>
std::string list_names(const std::vector<Entry>& entries) {
  std::string out;
  for (const Entry& e : entries) out += (out.empty() ? "" : ", ") + e.first;
  return out.empty() ? "none" : out;
}

std::string join_path(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

/// Splits "a.b.c" into its components (empty ones kept, so "a..b" fails lookup by name).
std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t dot = path.find('.', begin);
    parts.push_back(path.substr(begin, dot - begin));
    if (dot == std::string::npos) return parts;
    begin = dot + 1;
  }
}

/// Replaces the value of entry `name`, keeping its position, or appends a new entry.
template <class Entries, class Value>
void upsert(Entries& entries, const std::string& name, Value value) {
  auto it = find_entry(entries, name);
  if (it != entries.end())
    it->second = std::move(value);
  else
    entries.emplace_back(name, std::move(value));
}

/// The modules whose operator() runs on this thread, outermost first: a module knows no path of its
/// own, so an error names it by its path from the outermost one.
thread_local std::vector<const Module*> t_calls;

/// The message of the last tl::Error a nested module added its path to: the modules around it pass that
/// error on unchanged.
thread_local std::string t_error_with_module;

struct CallScope {
  explicit CallScope(const Module* module) { t_calls.push_back(module); }
  ~CallScope() { t_calls.pop_back(); }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;
};

/// "1.0.conv": the innermost running module's path from the outermost, each step found among the
/// caller's descendants (a GraphModule calls nested modules directly).
std::string call_path() {
  std::string path;
  for (size_t i = 1; i < t_calls.size(); ++i) {
    if (t_calls[i] == t_calls[i - 1]) continue;
    std::string step = "<unregistered " + t_calls[i]->type_name() + ">";
    for (const auto& [name, m] : t_calls[i - 1]->named_modules())
      if (m.get() == t_calls[i] && !name.empty()) {
        step = name;
        break;
      }
    path = join_path(path, step);
  }
  return path;
}

/// What the deep copy in progress has already copied, so shared tensors and modules stay shared.
thread_local CloneMemo* t_clone_memo = nullptr;

/// The module whose copy constructor ran last on this thread and its copy: the members copied next
/// (a derived class copies its members after its base) are the ModuleHandles that follow the copy.
struct ModuleCopy {
  const Module* source = nullptr;
  const Module* copy = nullptr;
};
thread_local ModuleCopy t_module_copy;

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

std::string class_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                                   std::free);
  std::string name = status == 0 ? demangled.get() : type.name();
  // The last "::" outside template arguments ends the namespaces (and enclosing classes).
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    if (name[i] == '<' || name[i] == '(') ++depth;
    if (name[i] == '>' || name[i] == ')') --depth;
    if (depth == 0 && name[i] == ':' && name[i + 1] == ':') start = i + 2;
  }
  return name.substr(start);
}

Module::Module(const Module& other)
    : std::enable_shared_from_this<Module>(),
      parameters_(other.parameters_),
      buffers_(other.buffers_),
      children_(other.children_),
      hooks_(other.hooks_),
      training_(other.training_) {
  t_module_copy = {&other, this};
}

Module::~Module() = default;

// ---- typed handles ----

std::weak_ptr<Module*> ModuleHandleBase::anchor(const Module& module) {
  if (!module.handle_anchor_) module.handle_anchor_ = std::make_shared<Module*>(const_cast<Module*>(&module));
  return module.handle_anchor_;
}

ModuleHandleBase::ModuleHandleBase(const Module& owner, std::string name) : owner_(anchor(owner)), name_(std::move(name)) {}

ModuleHandleBase::ModuleHandleBase(const ModuleHandleBase& other) : owner_(other.owner_), name_(other.name_) {
  // A member of the module being copied sits at the same offset in the copy as in the original (a
  // standalone copy does not): that copy then names the copy's child. Addresses are only compared.
  const ModuleCopy& last = t_module_copy;
  const auto owner = other.owner_.lock();
  if (owner && last.source != nullptr && *owner == last.source &&
      address(this) - address(last.copy) == address(&other) - address(last.source))
    owner_ = anchor(*last.copy);
}

const std::shared_ptr<Module>& ModuleHandleBase::resolve() const {
  TL_CHECK(!name_.empty(), "module handle: the handle is empty (assign it the result of register_module first)");
  const auto owner = owner_.lock();
  TL_CHECK(owner != nullptr, "module handle '", name_, "': the module that registered it no longer exists");
  auto it = find_entry((*owner)->children_, name_);
  TL_INTERNAL_ASSERT(it != (*owner)->children_.end(), "module handle: child '", name_, "' is gone");
  return it->second;
}

void ModuleHandleBase::throw_type_mismatch(const Module& child, const std::type_info& expected) const {
  const auto owner = owner_.lock();
  tl::detail::throw_error(tl::detail::str_cat(owner ? (*owner)->type_name() : std::string("module"), ".", name_,
                                              ": the handle expects a ", class_name(expected), ", but the child '",
                                              name_, "' is now a ", child.type_name(),
                                              " (set_submodule replaced it with another type)"));
}

// ---- calling ----

void Module::check_inputs(std::span<const Tensor> inputs) const {
  const ForwardSignature sig = forward_signature();
  if (inputs.size() != sig.arg_names.size()) [[unlikely]] {
    std::string names;
    for (const std::string& name : sig.arg_names) names += (names.empty() ? "" : ", ") + name;
    TL_CHECK(false, type_name(), ".forward takes ", sig.arg_names.size(), " input(s) (", names, "), got ",
             inputs.size(), "; a module taking other inputs declares them by overriding forward_signature()");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined()) [[likely]]
      continue;
    TL_CHECK(false, type_name(), ".forward: input ", i, " (", sig.arg_names[i], ") is undefined (None)");
  }
}

TensorList Module::operator()(const TensorList& inputs) {
  const CallScope scope(this);
  try {
    check_inputs(inputs);
    if (!has_module_hooks() && (!hooks_ || hooks_->empty())) [[likely]]
      return forward(Inputs(*this, inputs));
    return call_with_module_hooks(*this, inputs);
  } catch (const Error& e) {
    // The innermost nested module that failed names itself, as "(in module 'features.conv0' (Conv2d) of
    // DenseNet)"; the modules around it pass the error on unchanged.
    if (t_calls.size() < 2 || t_error_with_module == e.what()) throw;
    t_error_with_module = tl::detail::str_cat(e.what(), " (in module '", call_path(), "' (", type_name(), ") of ",
                                              t_calls.front()->type_name(), ")");
    throw Error(t_error_with_module);
  }
}

Tensor Module::operator()(const Tensor& input) {
  TensorList out = (*this)(TensorList{input});
  TL_CHECK(out.size() == 1, type_name(), ": forward returned ", out.size(),
           " outputs, but a single-tensor call expects one");
  return std::move(out[0]);
}

TensorList Module::forward(Inputs inputs) {
  TL_CHECK(inputs.size() == 1, type_name(), ": forward takes one input tensor, got ", inputs.size());
  return {forward(inputs[0])};
}

Tensor Module::forward(const Tensor&) {
  tl::detail::throw_error(
      tl::detail::str_cat("Module [", type_name(), "] is missing the required \"forward\" function"));
}

// ---- identity ----

std::string Module::type_name() const { return class_name(typeid(*this)); }
std::string Module::extra_repr() const { return ""; }
bool Module::is_leaf() const { return false; }

std::shared_ptr<Module> Module::clone() const {
  tl::detail::throw_error(tl::detail::str_cat(
      type_name(), ": clone() is not implemented; override it as `return clone_as<", type_name(), ">();`"));
}

std::shared_ptr<Module> clone(const Module& module, CloneMemo& memo) {
  struct Restore {
    CloneMemo* outer;
    ~Restore() { t_clone_memo = outer; }
  } restore{std::exchange(t_clone_memo, &memo)};
  return module.clone();
}

void Module::deep_copy_registry() {
  CloneMemo local;
  const bool outermost = t_clone_memo == nullptr;
  if (outermost) t_clone_memo = &local;
  struct Reset {
    bool active;
    ~Reset() {
      if (active) t_clone_memo = nullptr;
    }
  } reset{outermost};
  CloneMemo& memo = *t_clone_memo;

  auto copy_tensor = [&](Tensor& t) {
    if (!t.defined()) return;
    for (const auto& [original, copy] : memo.tensors)
      if (original.is_same(t)) {
        t = copy;
        return;
      }
    // A copy is a new leaf with the original's requires_grad (and a parameter's copy a parameter), as
    // copy.deepcopy gives in PyTorch.
    Tensor copy = t.detach().clone();
    if (t.requires_grad()) copy.requires_grad_();
    if (t.is_parameter()) TensorImplAccess::mark_parameter(copy);
    memo.tensors.emplace_back(t, copy);
    t = std::move(copy);
  };
  if (hooks_) hooks_ = std::make_shared<ModuleHooks>(*hooks_);  // PyTorch's deepcopy copies the hook dicts
  for (auto& entry : parameters_) copy_tensor(entry.second);
  for (auto& entry : buffers_) copy_tensor(entry.second);
  for (auto& entry : children_) {
    std::shared_ptr<Module>& child = entry.second;
    auto it = memo.modules.find(child.get());
    if (it == memo.modules.end()) it = memo.modules.emplace(child.get(), child->clone()).first;
    child = it->second;
  }
}

// ---- registration ----

void Module::check_name(const std::string& name, EntryKind kind) const {
  static constexpr const char* kKindNames[] = {"parameter", "buffer", "module"};
  const char* kind_name = kKindNames[static_cast<int>(kind)];
  TL_CHECK(!name.empty(), type_name(), ": ", kind_name, " name can't be empty string \"\"");
  TL_CHECK(name.find('.') == std::string::npos, type_name(), ": ", kind_name, " name can't contain \".\", got: \"",
           name, "\"");
  const bool taken[] = {has_parameter(name), has_buffer(name), has_child(name)};
  for (int other = 0; other < 3; ++other)
    TL_CHECK(other == static_cast<int>(kind) || !taken[other], type_name(), ": attribute '", name,
             "' already exists (as a ", kKindNames[other], ")");
}

Tensor Module::register_parameter(const std::string& name, Tensor t, bool requires_grad) {
  check_name(name, EntryKind::Parameter);
  if (t.defined() && !t.is_proxy()) {
    if (!t.is_leaf()) t = t.detach();
    if (is_floating_point(t.dtype())) t.requires_grad_(requires_grad);
    TensorImplAccess::mark_parameter(t);
  }
  upsert(parameters_, name, t);
  return t;
}

Tensor Module::register_buffer(const std::string& name, Tensor t) {
  check_name(name, EntryKind::Buffer);
  upsert(buffers_, name, t);
  return t;
}

void Module::register_child(const std::string& name, std::shared_ptr<Module> module) {
  check_name(name, EntryKind::Child);
  TL_CHECK(module != nullptr, type_name(), ": cannot register a null module as '", name, "'");
  TL_CHECK(module.get() != this, type_name(), ": cannot register a module as its own child '", name, "'");
  upsert(children_, name, std::move(module));
}

// ---- direct access ----

Tensor& Module::parameter(const std::string& name) {
  return const_cast<Tensor&>(static_cast<const Module&>(*this).parameter(name));
}

const Tensor& Module::parameter(const std::string& name) const {
  auto it = find_entry(parameters_, name);
  TL_CHECK(it != parameters_.end(), type_name(), " has no parameter '", name, "' (parameters: ",
           list_names(parameters_), ")");
  return it->second;
}

Tensor& Module::buffer(const std::string& name) {
  return const_cast<Tensor&>(static_cast<const Module&>(*this).buffer(name));
}

const Tensor& Module::buffer(const std::string& name) const {
  auto it = find_entry(buffers_, name);
  TL_CHECK(it != buffers_.end(), type_name(), " has no buffer '", name, "' (buffers: ", list_names(buffers_), ")");
  return it->second;
}

std::shared_ptr<Module> Module::child(const std::string& name) const {
  auto it = find_entry(children_, name);
  TL_CHECK(it != children_.end(), type_name(), " has no child '", name, "' (children: ", list_names(children_), ")");
  return it->second;
}

bool Module::has_parameter(const std::string& name) const { return find_entry(parameters_, name) != parameters_.end(); }
bool Module::has_buffer(const std::string& name) const { return find_entry(buffers_, name) != buffers_.end(); }
bool Module::has_child(const std::string& name) const { return find_entry(children_, name) != children_.end(); }

// ---- dotted paths ----

std::shared_ptr<Module> Module::shared_self() const {
  if (auto owned = weak_from_this().lock()) return std::const_pointer_cast<Module>(owned);
  return std::shared_ptr<Module>(std::shared_ptr<Module>(), const_cast<Module*>(this));
}

std::shared_ptr<Module> Module::get_submodule(const std::string& path) const { return find_module_path(path, path); }

Module& Module::submodule(const std::string& path) {
  // forward() calls this for every child it runs: a direct child needs no path parsing.
  auto it = find_entry(children_, path);
  if (it != children_.end()) return *it->second;
  return *get_submodule(path);
}

std::shared_ptr<Module> Module::find_module_path(const std::string& module_path, const std::string& full_path) const {
  std::shared_ptr<Module> current = shared_self();
  if (module_path.empty()) return current;
  std::string walked;
  for (const std::string& part : split_path(module_path)) {
    walked = walked.empty() ? part : walked + "." + part;
    auto it = find_entry(current->children_, part);
    TL_CHECK(it != current->children_.end(), "unknown module path: '", walked, "' in '", full_path, "' (",
             current->type_name(), " has no child '", part, "')");
    current = it->second;
  }
  return current;
}

std::pair<std::shared_ptr<Module>, std::string> Module::owner_and_name(const std::string& path) const {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos) return {shared_self(), path};
  return {find_module_path(path.substr(0, dot), path), path.substr(dot + 1)};
}

void Module::set_submodule(const std::string& path, std::shared_ptr<Module> module) {
  TL_CHECK(!path.empty(), "set_submodule: the path is empty (the root module cannot be replaced)");
  const auto [parent, name] = owner_and_name(path);
  parent->register_child(name, std::move(module));
}

Tensor Module::get_parameter(const std::string& path) const {
  const auto [owner, name] = owner_and_name(path);
  TL_CHECK(owner->has_parameter(name), "unknown parameter: '", path, "' (", owner->type_name(),
           " has no parameter '", name, "')");
  return owner->parameter(name);
}

Tensor Module::get_buffer(const std::string& path) const {
  const auto [owner, name] = owner_and_name(path);
  TL_CHECK(owner->has_buffer(name), "unknown buffer: '", path, "' (", owner->type_name(), " has no buffer '", name,
           "')");
  return owner->buffer(name);
}

// ---- iteration ----

std::vector<Module::NamedModule> Module::named_modules(const std::string& prefix, bool remove_duplicate) const {
  std::vector<NamedModule> out;
  std::unordered_set<const Module*> memo;
  auto visit = [&](auto& self_ref, const std::shared_ptr<Module>& m, const std::string& path) -> void {
    if (memo.count(m.get())) return;
    if (remove_duplicate) memo.insert(m.get());
    out.emplace_back(path, m);
    for (const auto& [name, child] : m->children_) self_ref(self_ref, child, join_path(path, name));
  };
  visit(visit, shared_self(), prefix);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& entry : named_modules()) out.push_back(std::move(entry.second));
  return out;
}

std::vector<Module::NamedModule> Module::named_children() const {
  std::vector<NamedModule> out;
  std::unordered_set<const Module*> memo;
  for (const auto& entry : children_)
    if (memo.insert(entry.second.get()).second) out.push_back(entry);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& entry : named_children()) out.push_back(std::move(entry.second));
  return out;
}

std::vector<Module::NamedTensor> Module::named_members(std::vector<NamedTensor> Module::*field, bool recurse) const {
  std::vector<NamedTensor> out;
  auto add_own = [&](const Module& m, const std::string& prefix) {
    for (const NamedTensor& member : m.*field) {
      const Tensor& t = member.second;  // not a structured binding: clang 14 cannot capture one
      if (!t.defined()) continue;
      const bool seen = std::any_of(out.begin(), out.end(), [&](const NamedTensor& e) { return e.second.is_same(t); });
      if (!seen) out.emplace_back(join_path(prefix, member.first), t);
    }
  };
  if (!recurse) {
    add_own(*this, "");
    return out;
  }
  for (const auto& [prefix, m] : named_modules()) add_own(*m, prefix);
  return out;
}

std::vector<Module::NamedTensor> Module::named_parameters(bool recurse) const {
  return named_members(&Module::parameters_, recurse);
}

std::vector<Module::NamedTensor> Module::named_buffers(bool recurse) const {
  return named_members(&Module::buffers_, recurse);
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& entry : named_parameters(recurse)) out.push_back(std::move(entry.second));
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& entry : named_buffers(recurse)) out.push_back(std::move(entry.second));
  return out;
}

// ---- mode ----

void Module::train(bool on) {
  training_ = on;
  for (const auto& entry : children_) entry.second->train(on);
}

// ---- dtype ----

Module& Module::to(DType dtype) {
  TL_CHECK(is_floating_point(dtype), "nn.Module.to only accepts floating point dtypes, but got desired dtype=", dtype);
  const auto converts = [&](const Tensor& t) {
    return t.defined() && is_floating_point(t.dtype()) && t.dtype() != dtype;
  };
  // (tensor, converted copy), each tensor once: a tensor registered at several places is converted once.
  using Conversions = std::vector<std::pair<Tensor, Tensor>>;
  const auto add = [&](Conversions& list, const Tensor& t) {
    if (!converts(t)) return;
    for (const auto& entry : list)
      if (entry.first.is_same(t)) return;
    list.emplace_back(t, t.detach().to(dtype));
  };
  // Every copy is made before the first is used, so a failed allocation changes nothing.
  Conversions data, buffers;  // parameters and their .grad take the new data in place; buffers are replaced
  std::vector<Tensor*> buffer_slots;
  for (const std::shared_ptr<Module>& m : modules()) {
    for (const auto& entry : m->parameters_) {
      add(data, entry.second);
      if (entry.second.defined()) add(data, entry.second.grad());
    }
    for (auto& entry : m->buffers_) {
      if (converts(entry.second)) buffer_slots.push_back(&entry.second);
      add(buffers, entry.second);
    }
  }
  // As PyTorch's Module._apply: `param.data = converted` (and the same for param.grad), so every holder
  // of a parameter (an optimizer, a traced module) sees the change; `module._buffers[name] = converted`.
  for (const auto& [tensor, converted] : data) tensor.set_data(converted);
  for (Tensor* slot : buffer_slots)
    for (const auto& [original, converted] : buffers)
      if (original.is_same(*slot)) {
        *slot = converted;
        break;
      }
  return *this;
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (const auto& c : children()) c->apply(fn);
  fn(*this);
  return *this;
}

// ---- gradients ----

void Module::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (const Tensor& param : parameters()) {
    Tensor& grad = Tensor(param).mutable_grad();
    if (!grad.defined()) continue;
    if (set_to_none) {
      grad = Tensor();
      continue;
    }
    if (!grad.is_leaf())
      grad = grad.detach();  // PyTorch's p.grad.detach_()
    else if (grad.requires_grad())
      grad.requires_grad_(false);
    grad.copy_(scalar_tensor(0, grad.dtype()));  // zero_(), which NaN * 0 would not be
  }
}

Module& Module::requires_grad_(bool requires_grad) {
  const std::vector<Tensor> params = parameters();
  for (const Tensor& param : params)
    TL_CHECK(!requires_grad || is_floating_point(param.dtype()), type_name(),
             ".requires_grad_: only Tensors of floating point dtype can require gradients, got a parameter of dtype ",
             param.dtype());
  for (const Tensor& param : params) Tensor(param).requires_grad_(requires_grad);
  return *this;
}

// ---- hooks ----

RemovableHandle Module::add_forward_pre_hook(ForwardPreHook hook) {
  if (!hooks_) hooks_ = std::make_shared<ModuleHooks>();
  const uint64_t id = ModuleHooks::next_id();
  hooks_->forward_pre.emplace_back(id, std::move(hook));
  return RemovableHandle(hooks_, id);
}

RemovableHandle Module::add_forward_hook(ForwardHook hook) {
  if (!hooks_) hooks_ = std::make_shared<ModuleHooks>();
  const uint64_t id = ModuleHooks::next_id();
  hooks_->forward.emplace_back(id, std::move(hook));
  return RemovableHandle(hooks_, id);
}

RemovableHandle Module::add_full_backward_hook(FullBackwardHook hook) {
  if (!hooks_) hooks_ = std::make_shared<ModuleHooks>();
  const uint64_t id = ModuleHooks::next_id();
  hooks_->backward.emplace_back(id, std::move(hook));
  return RemovableHandle(hooks_, id);
}

}  // namespace tl::nn
