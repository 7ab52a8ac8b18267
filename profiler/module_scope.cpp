// profiler/module_scope.cpp — the module hook behind "nn.Module: X_k" scopes; it only names the
// module and forwards to the recorder's open/close.
#include "profiler/module_scope.h"

#include "nn/module.h"
#include "profiler/recorder.h"

namespace tl::profiler {

std::string module_scope_name(const std::string& type_name, int64_t index) {
  return "nn.Module: " + type_name + "_" + std::to_string(index);
}

namespace detail {

ModuleScopes::ModuleScopes(Recorder& recorder) : recorder_(recorder) { nn::push_module_hook(this); }

ModuleScopes::~ModuleScopes() { nn::pop_module_hook(this); }

const std::string& ModuleScopes::name_of(const nn::Module& module) {
  auto it = names_.find(&module);
  if (it != names_.end()) return it->second;
  const std::string type = module.type_name();
  const int64_t index = next_index_[type]++;
  return names_.emplace(&module, module_scope_name(type, index)).first->second;
}

void ModuleScopes::before(nn::Module& module, const TensorList&) {
  open_.push_back(recorder_.open_event(name_of(module), EventKind::Module));
}

void ModuleScopes::after(nn::Module&, const TensorList*) {
  if (open_.empty()) return;
  recorder_.close_scope(open_.back());
  open_.pop_back();
}

}  // namespace detail
}  // namespace tl::profiler
