// fx/wrap.cpp — the registry of wrapped functions; call_wrapped's tracing half is in fx/tracer.cpp,
// which owns the tracing session.
#include "fx/wrap.h"

#include <algorithm>
#include <deque>
#include <mutex>

namespace tl::fx {
namespace {

struct Registry {
  std::mutex mutex;
  std::deque<WrappedFunction> functions;  // a deque: entries never move, so references stay valid
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const WrappedFunction& wrap(const std::string& qualified_name,
                            std::function<Tensor(const TensorList&, const std::vector<Argument>&)> fn) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const WrappedFunction& f : r.functions)
    TL_CHECK(f.qualified_name != qualified_name, "fx::wrap: '", qualified_name, "' is wrapped already");
  return r.functions.emplace_back(WrappedFunction{qualified_name, std::move(fn)});
}

const WrappedFunction* find_wrapped(const std::string& target) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const WrappedFunction& f : r.functions)
    if (f.qualified_name == target) return &f;
  return nullptr;
}

std::string wrapped_global_name(const std::string& qualified_name) {
  std::string name = qualified_name;
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

}  // namespace tl::fx
