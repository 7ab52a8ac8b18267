// fx/unique_names.h — unique Python-identifier names for a graph's values, by FX's rules (its _Namespace):
// illegal characters become '_', a leading digit gets '_', and a taken name (or a Python keyword
// or builtin) gets the next free numeric suffix: add, add_1, add_2; layer1.0.relu -> layer1_0_relu_1.
#pragma once

#include <set>
#include <string>

namespace tl::fx {

/// The names a graph has given out, and the next free one for a candidate (FX's _Namespace).
class UniqueNames {
 public:
  /// A fresh name derived from `candidate`, reserved from now on.
  std::string create_name(const std::string& candidate);
  bool contains(const std::string& name) const { return used_.count(name) > 0; }

 private:
  std::set<std::string> used_;
};

/// True for Python keywords and builtins, which FX never uses as value names.
bool is_python_reserved(const std::string& name);

}  // namespace tl::fx
