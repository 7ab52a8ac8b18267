// core/boxing.cpp — typed argument fields to Attrs values and back, with Python's binding rules.
#include "core/boxing.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "core/py_repr.h"

namespace tl::detail {
namespace {

// The value as the error text shows it: "2.5", "[1, 2]", "None", "'none'", "torch.float32".
std::string shown(const AttrValue& v) {
  std::ostringstream os;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) os << "None";
        else if constexpr (std::is_same_v<T, bool>) os << (x ? "True" : "False");
        else if constexpr (std::is_same_v<T, double>) os << py_float(x);
        else if constexpr (std::is_same_v<T, std::string>) os << "'" << x << "'";
        else os << x;
      },
      v);
  return os.str();
}

[[noreturn]] void wrong_type(const AttrValue& v, const char* op, std::string_view name, const char* expected) {
  TL_CHECK(false, op, ": argument '", name, "' must be ", expected, ", got ", shown(v));
  std::abort();
}

// A value boxed as exactly T (an int is not a bool, nor the reverse).
template <typename T>
void unbox_exact(const AttrValue& v, T& out, const char* op, std::string_view name, const char* expected) {
  const T* p = std::get_if<T>(&v);
  if (!p) wrong_type(v, op, name, expected);
  out = *p;
}

}  // namespace

AttrValue box(int64_t v) { return v; }
AttrValue box(double v) { return v; }
AttrValue box(bool v) { return v; }
AttrValue box(const Scalar& v) {
  if (v.is_bool()) return v.to<bool>();
  if (v.is_integral()) return v.to<int64_t>();
  return v.to<double>();
}
AttrValue box(DType v) { return v; }
AttrValue box(const std::string& v) { return v; }
AttrValue box(const Shape& v) { return v; }
AttrValue box(const IntList& v) {
  if (v.one_int && v.values.size() == 1) return v.values[0];
  return v.values;
}
AttrValue box(const std::array<bool, 3>& v) { return Shape{v[0], v[1], v[2]}; }

void unbox(const AttrValue& v, std::optional<Generator>& out, const char* op, std::string_view name) {
  if (!std::holds_alternative<std::monostate>(v)) wrong_type(v, op, name, "None (boxed arguments carry no generator)");
  out.reset();
}

void unbox(const AttrValue& v, int64_t& out, const char* op, std::string_view name) {
  unbox_exact(v, out, op, name, "an int");
}

void unbox(const AttrValue& v, double& out, const char* op, std::string_view name) {
  if (const double* d = std::get_if<double>(&v)) out = *d;
  else if (const int64_t* i = std::get_if<int64_t>(&v)) out = static_cast<double>(*i);
  else wrong_type(v, op, name, "a float");
}

void unbox(const AttrValue& v, bool& out, const char* op, std::string_view name) {
  unbox_exact(v, out, op, name, "a bool");
}

void unbox(const AttrValue& v, Scalar& out, const char* op, std::string_view name) {
  if (const bool* b = std::get_if<bool>(&v)) out = *b;
  else if (const int64_t* i = std::get_if<int64_t>(&v)) out = *i;
  else if (const double* d = std::get_if<double>(&v)) out = *d;
  else wrong_type(v, op, name, "a number");
}

void unbox(const AttrValue& v, std::optional<Scalar>& out, const char* op, std::string_view name) {
  if (std::holds_alternative<std::monostate>(v)) {
    out.reset();
    return;
  }
  Scalar value = false;
  unbox(v, value, op, name);
  out = value;
}

void unbox(const AttrValue& v, DType& out, const char* op, std::string_view name) {
  const DType* t = std::get_if<DType>(&v);
  if (!t) wrong_type(v, op, name, "a dtype");
  out = *t;
}

void unbox(const AttrValue& v, std::string& out, const char* op, std::string_view name) {
  const std::string* s = std::get_if<std::string>(&v);
  if (!s) wrong_type(v, op, name, "a string");
  out = *s;
}

void unbox(const AttrValue& v, Shape& out, const char* op, std::string_view name) {
  if (const Shape* s = std::get_if<Shape>(&v)) out = *s;
  else if (const int64_t* i = std::get_if<int64_t>(&v)) out = Shape{*i};
  else wrong_type(v, op, name, "a list of ints");
}

void unbox(const AttrValue& v, IntList& out, const char* op, std::string_view name) {
  if (const Shape* s = std::get_if<Shape>(&v)) out = IntList{*s, false};
  else if (const int64_t* i = std::get_if<int64_t>(&v)) out = IntList{Shape{*i}, true};
  else wrong_type(v, op, name, "an int or a list of ints");
}

void unbox(const AttrValue& v, std::array<bool, 3>& out, const char* op, std::string_view name) {
  const Shape* s = std::get_if<Shape>(&v);
  if (!s) wrong_type(v, op, name, "3 bools");
  const bool ok = s->size() == 3 && std::all_of(s->begin(), s->end(), [](int64_t x) { return x == 0 || x == 1; });
  TL_CHECK(ok, op, ": expected ", name, " to have 3 values (0 or 1), got ", *s);
  out = {(*s)[0] != 0, (*s)[1] != 0, (*s)[2] != 0};
}

void unbox_ints(const AttrValue& v, int64_t* out, size_t n, const char* op, std::string_view name) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) {
    std::fill(out, out + n, *i);
    return;
  }
  const Shape* s = std::get_if<Shape>(&v);
  if (!s) wrong_type(v, op, name, "an int or a list of ints");
  TL_CHECK(s->size() == 1 || static_cast<size_t>(s->size()) == n, op, ": expected ", name, " to have 1 or ", n,
           " values, got ", *s);
  for (size_t k = 0; k < n; ++k) out[k] = (*s)[s->size() == 1 ? 0 : static_cast<int64_t>(k)];
}

void check_names(const Attrs& attrs, std::initializer_list<std::string_view> names, const char* op) {
  for (const Attrs::Item& item : attrs.items()) {
    if (std::find(names.begin(), names.end(), item.name) != names.end()) continue;
    std::ostringstream known;
    for (std::string_view n : names) known << (known.tellp() > 0 ? ", " : "") << n;
    TL_CHECK(false, op, "() got an unexpected keyword argument '", item.name, "' (it takes: ",
             names.size() ? known.str() : "no arguments besides its tensors", ")");
  }
}

}  // namespace tl::detail
