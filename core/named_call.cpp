// core/named_call.cpp — the registry of named functions (entries never move) and the binding of a call's
// arguments to a function's parameters.
#include "core/named_call.h"

#include <deque>
#include <mutex>
#include <utility>

namespace tl {
namespace {

struct Entry {
  std::string target;
  NamedFunction fn;
};

struct Registry {
  std::mutex mutex;
  std::deque<Entry> entries;  // a deque: entries never move, so find_named_function's pointers stay valid
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_named_function(const std::string& target, NamedFunction fn) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const Entry& e : r.entries)
    TL_CHECK(e.target != target, "register_named_function: '", target, "' is registered already");
  r.entries.push_back(Entry{target, std::move(fn)});
}

const NamedFunction* find_named_function(std::string_view target) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const Entry& e : r.entries)
    if (e.target == target) return &e.fn;
  return nullptr;
}

TensorList run_named_call(const NamedCall& call) {
  const NamedFunction* fn = find_named_function(call.target);
  TL_CHECK(fn != nullptr, "named call: no function is registered under '", call.target, "'");
  return run_named_call(*fn, call);
}

TensorList run_named_call(const NamedFunction& fn, const NamedCall& call) {
  if (TensorList out; dispatch::has_hooks() && dispatch::intercept_call(call, out)) return out;
  return fn(call);
}

namespace detail {

std::optional<Tensor> intercept_boxed(std::string_view target, const BoxedCall& boxed) {
  TL_CHECK(find_named_function(target) != nullptr, "named call: no function is registered under '", target, "'");
  TensorList out;
  if (!dispatch::intercept_call(NamedCall{target, boxed.args, boxed.kwargs}, out)) return std::nullopt;
  TL_INTERNAL_ASSERT(out.size() == 1, "a hook made ", out.size(), " values for ", target);
  return out[0];
}

}  // namespace detail

BoundArgs::BoundArgs(const NamedCall& call, std::initializer_list<std::string_view> params)
    : target_(call.target), params_(params), bound_(params.size(), nullptr) {
  TL_CHECK(call.args.size() <= params_.size(), target_, ": takes ", params_.size(), " arguments but ",
           call.args.size(), " were given");
  for (size_t i = 0; i < call.args.size(); ++i) bound_[i] = &call.args[i];
  for (const KeywordArg& k : call.kwargs) {
    size_t i = 0;
    while (i < params_.size() && params_[i] != k.name) ++i;
    TL_CHECK(i < params_.size(), target_, ": got an unexpected keyword argument '", k.name, "'");
    TL_CHECK(bound_[i] == nullptr, target_, ": got multiple values for argument '", k.name, "'");
    bound_[i] = &k.value;
  }
}

Tensor BoundArgs::tensor(size_t i) const {
  const ScopeArg* a = find(i);
  if (a == nullptr) return {};
  if (const Tensor* t = std::get_if<Tensor>(a)) return *t;
  const AttrValue* v = std::get_if<AttrValue>(a);
  TL_CHECK(v != nullptr && std::holds_alternative<std::monostate>(*v), target_, ": argument '", params_.at(i),
           "' must be a tensor or None");
  return {};
}

const AttrValue* BoundArgs::value(size_t i) const {
  const ScopeArg* a = find(i);
  if (a == nullptr) return nullptr;
  if (const ListArg* list = std::get_if<ListArg>(a)) return &list->items;
  const AttrValue* v = std::get_if<AttrValue>(a);
  TL_CHECK(v != nullptr, target_, ": argument '", params_.at(i), "' must not be a tensor");
  return v;
}

}  // namespace tl
