// profiler/module_scope.h — module calls as profiler scopes named like PyTorch's
// ("nn.Module: Linear_0"), opened by a per-thread nn::ModuleHook, so forward() has no timers.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "nn/module_hook.h"

namespace tl::profiler {

/// "nn.Module: <type_name>_<index>", the name PyTorch's profiler gives a module call.
std::string module_scope_name(const std::string& type_name, int64_t index);

namespace detail {

class Recorder;

/// While alive, opens a Module scope on `recorder` around each module call of the thread that
/// created it. A module's index counts the distinct modules of its type in order of first call
/// (the same module keeps its index), so the names are stable across the steps of one profile.
class ModuleScopes final : public nn::ModuleHook {
 public:
  explicit ModuleScopes(Recorder& recorder);
  ~ModuleScopes() override;
  ModuleScopes(const ModuleScopes&) = delete;
  ModuleScopes& operator=(const ModuleScopes&) = delete;

  void before(nn::Module& module, const TensorList& inputs) override;
  void after(nn::Module& module, const TensorList* outputs) override;

 private:
  const std::string& name_of(const nn::Module& module);

  Recorder& recorder_;
  std::unordered_map<const nn::Module*, std::string> names_;
  std::unordered_map<std::string, int64_t> next_index_;
  std::vector<uint64_t> open_;
};

}  // namespace detail
}  // namespace tl::profiler
