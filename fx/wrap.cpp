// fx/wrap.cpp — torch.fx.wrap over the registry of named calls, and a named call's arguments as FX arguments
// and back. The tracing half of a named call is fx/tracer.cpp's intercept_call.
#include "fx/wrap.h"

#include <algorithm>
#include <deque>
#include <mutex>

#include "fx/getitem.h"

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

// The scalar values an FX argument and an AttrValue share, or nullopt.
std::optional<AttrValue> scalar_attr(const Argument& a) {
  const Argument::Value& v = a.value();
  if (std::holds_alternative<std::monostate>(v)) return AttrValue{};
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* t = std::get_if<DType>(&v)) return *t;
  return std::nullopt;
}

// A call's arguments bound to `f`'s parameters as Python binds them: positional ones first, then each keyword at
// its parameter's position. Throws tl::Error naming the parameter for an unknown, repeated or missing one.
std::vector<const ScopeArg*> bind(const WrappedFunction& f, const NamedCall& call) {
  std::vector<const ScopeArg*> bound;
  for (const ScopeArg& a : call.args) bound.push_back(&a);
  if (call.kwargs.empty()) return bound;
  TL_CHECK(!f.params.empty(), f.qualified_name, ": a wrapped function takes positional arguments only");
  TL_CHECK(bound.size() <= f.params.size(), f.qualified_name, ": takes ", f.params.size(), " arguments but ",
           bound.size(), " were given");
  bound.resize(f.params.size(), nullptr);
  size_t given = call.args.size();
  for (const KeywordArg& k : call.kwargs) {
    const size_t i = static_cast<size_t>(std::find(f.params.begin(), f.params.end(), k.name) - f.params.begin());
    TL_CHECK(i < f.params.size(), f.qualified_name, ": got an unexpected keyword argument '", k.name, "'");
    TL_CHECK(bound[i] == nullptr, f.qualified_name, ": got multiple values for argument '", k.name, "'");
    bound[i] = &k.value;
    given = std::max(given, i + 1);
  }
  bound.resize(given);
  for (size_t i = 0; i < bound.size(); ++i)
    TL_CHECK(bound[i] != nullptr, f.qualified_name, ": missing argument '", f.params[i], "'");
  return bound;
}

}  // namespace

const WrappedFunction& wrap(const std::string& qualified_name,
                            std::function<Tensor(const TensorList&, const std::vector<Argument>&)> fn,
                            std::vector<std::string> params) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const WrappedFunction& f : r.functions)
    TL_CHECK(f.qualified_name != qualified_name, "fx::wrap: '", qualified_name, "' is wrapped already");
  const WrappedFunction& f = r.functions.emplace_back(WrappedFunction{qualified_name, std::move(fn), std::move(params)});
  try {
    register_named_function(qualified_name, [&f](const NamedCall& call) {
      TensorList tensors;
      std::vector<Argument> args;
      for (const ScopeArg* a : bind(f, call)) {
        if (const Tensor* t = std::get_if<Tensor>(a)) tensors.push_back(*t);
        args.push_back(std::holds_alternative<Tensor>(*a) ? Argument() : named_call_argument(*a, {}));
      }
      return TensorList{f.fn(tensors, args)};
    });
  } catch (...) {
    r.functions.pop_back();
    throw;
  }
  return f;
}

const WrappedFunction* find_wrapped(const std::string& target) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const WrappedFunction& f : r.functions)
    if (f.qualified_name == target) return &f;
  return nullptr;
}

Tensor call_wrapped(const WrappedFunction& f, const std::vector<WrappedArg>& args, const std::vector<WrappedKwarg>& kwargs) {
  const auto boxed = [&](const WrappedArg& a) {
    return std::holds_alternative<Tensor>(a) ? ScopeArg(std::get<Tensor>(a))
                                             : boxed_argument(std::get<Argument>(a), {}, f.qualified_name);
  };
  const auto box = [&] {
    BoxedCall call;
    for (const WrappedArg& a : args) call.args.push_back(boxed(a));
    for (const auto& [name, a] : kwargs) call.kwargs.push_back({name, boxed(a)});
    return call;
  };
  if (std::optional<Tensor> traced = intercept_named_call(f.qualified_name, box)) return *traced;
  if (!kwargs.empty()) {  // bound to their positions by the registered function
    const BoxedCall call = box();
    return run_named_call(NamedCall{f.qualified_name, call.args, call.kwargs}).at(0);
  }
  TensorList tensors;
  std::vector<Argument> plain;
  for (const WrappedArg& a : args) {
    if (const Tensor* t = std::get_if<Tensor>(&a)) tensors.push_back(*t);
    plain.push_back(std::holds_alternative<Tensor>(a) ? Argument() : std::get<Argument>(a));
  }
  return f.fn(tensors, plain);
}

std::string wrapped_global_name(const std::string& qualified_name) {
  std::string name = qualified_name;
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

Argument named_call_argument(const ScopeArg& arg, const std::function<Argument(const Tensor&)>& tensor_argument) {
  if (const Tensor* t = std::get_if<Tensor>(&arg)) return tensor_argument(*t);
  if (const auto* key = std::get_if<std::vector<indexing::TensorIndex>>(&arg)) return getitem_key(*key, tensor_argument);
  const ListArg* list = std::get_if<ListArg>(&arg);
  TL_INTERNAL_ASSERT(list != nullptr || std::holds_alternative<AttrValue>(arg), "a named call's argument is a tensor type");
  const AttrValue& v = list != nullptr ? list->items : std::get<AttrValue>(arg);
  if (const Shape* s = std::get_if<Shape>(&v)) {
    std::vector<Argument> items(s->begin(), s->end());
    return Argument::list(std::move(items), /*is_tuple=*/list == nullptr);
  }
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* t = std::get_if<DType>(&v)) return *t;
  if (auto* str = std::get_if<std::string>(&v)) return *str;
  return Argument();
}

ScopeArg boxed_argument(const Argument& arg, const std::function<Tensor(Node*)>& resolve, const std::string& target) {
  if (Node* n = arg.node()) return resolve(n);
  if (std::optional<AttrValue> v = scalar_attr(arg)) return *v;
  const bool ints = arg.is_list() && std::all_of(arg.as_list().items.begin(), arg.as_list().items.end(), [](const Argument& a) {
                      return std::holds_alternative<int64_t>(a.value());
                    });
  TL_CHECK(ints, target, ": cannot take the argument ", format_arg(arg),
           "; a named call takes tensors, None, numbers, strings, dtypes and lists of ints");
  Shape values;
  for (const Argument& item : arg.as_list().items) values.push_back(std::get<int64_t>(item.value()));
  if (!arg.as_list().is_tuple) return ListArg{AttrValue(values)};
  return AttrValue(values);
}

}  // namespace tl::fx
