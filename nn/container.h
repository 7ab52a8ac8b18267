// nn/container.h — Sequential and ModuleList (torch.nn's): children named "0", "1", ... in order,
// with Python-style indexing. Sequential.forward chains them; ModuleList only holds them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/module.h"

namespace tl::nn {

/// What Sequential and ModuleList share: an ordered list of children (repeats allowed).
class ModuleSequence : public Module {
 public:
  /// Python indexing: -1 is the last; throws tl::Error ("Sequential: index 5 is out of range
  /// (size 2)") otherwise.
  std::shared_ptr<Module> operator[](int64_t index) const;
  int64_t size() const { return static_cast<int64_t>(registered_children().size()); }
  bool empty() const { return registered_children().empty(); }
  /// Registers `module` under the name str(size()), like Python's append.
  ModuleSequence& append(std::shared_ptr<Module> module);
  /// Iterates the children (const std::shared_ptr<Module>&) in order. A hand-written iterator rather
  /// than std::views::values, which clang 14 cannot compile against libstdc++ 12.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::shared_ptr<Module>;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;

    Iterator() = default;
    explicit Iterator(std::vector<NamedModule>::const_iterator it) : it_(it) {}
    reference operator*() const { return it_->second; }
    pointer operator->() const { return &it_->second; }
    Iterator& operator++() {
      ++it_;
      return *this;
    }
    Iterator operator++(int) { return Iterator(it_++); }
    bool operator==(const Iterator&) const = default;

   private:
    std::vector<NamedModule>::const_iterator it_;
  };
  Iterator begin() const { return Iterator(registered_children().begin()); }
  Iterator end() const { return Iterator(registered_children().end()); }

 protected:
  // Called from the derived constructors' bodies: registration errors name the module through the
  // virtual type_name(), which is not available while this base is being constructed.
  void append_all(std::vector<std::shared_ptr<Module>> modules);
  void register_all(std::vector<NamedModule> named_modules);
};

/// torch.nn.Sequential. Build it from modules (named "0", "1", ...) or from (name, module) pairs
/// (Python's OrderedDict form): std::make_shared<Sequential>(conv, bn).
class Sequential : public ModuleSequence {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<std::shared_ptr<Module>> modules) { append_all(std::move(modules)); }
  explicit Sequential(std::vector<NamedModule> named_modules) { register_all(std::move(named_modules)); }
  template <class... Ms>
    requires(sizeof...(Ms) > 0 && (std::is_base_of_v<Module, Ms> && ...))
  explicit Sequential(std::shared_ptr<Ms>... modules) {
    append_all({std::move(modules)...});
  }

  /// Feeds the input through every child in order (each call through operator(), so hooks see it);
  /// an empty Sequential returns its input.
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Sequential"; }
  std::shared_ptr<Module> clone() const override { return clone_as<Sequential>(); }
};

/// torch.nn.ModuleList: holds children for a parent's forward(); calling it throws tl::Error.
class ModuleList : public ModuleSequence {
 public:
  ModuleList() = default;
  explicit ModuleList(std::vector<std::shared_ptr<Module>> modules) { append_all(std::move(modules)); }

  std::string type_name() const override { return "ModuleList"; }
  std::shared_ptr<Module> clone() const override { return clone_as<ModuleList>(); }
};

}  // namespace tl::nn
