// nn/container.cpp — Sequential / ModuleList: Python-style indexing, append, Sequential's chain.
#include "nn/container.h"

namespace tl::nn {

void ModuleSequence::append_all(std::vector<std::shared_ptr<Module>> modules) {
  for (auto& m : modules) append(std::move(m));
}

void ModuleSequence::register_all(std::vector<NamedModule> named_modules) {
  for (auto& [name, m] : named_modules) register_module(name, std::move(m));
}

std::shared_ptr<Module> ModuleSequence::operator[](int64_t index) const {
  const int64_t n = size();
  TL_CHECK(index >= -n && index < n, type_name(), ": index ", index, " is out of range (size ", n, ")");
  return registered_children()[static_cast<size_t>(index < 0 ? index + n : index)].second;
}

ModuleSequence& ModuleSequence::append(std::shared_ptr<Module> module) {
  register_module(std::to_string(size()), std::move(module));
  return *this;
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (const std::shared_ptr<Module>& m : *this) x = (*m)(x);
  return x;
}

}  // namespace tl::nn
