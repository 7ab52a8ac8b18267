// core/error.h — tl::Error and the checks that raise it.
// TL_CHECK is for user input (throws, testable); TL_INTERNAL_ASSERT is for our own invariants.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace tl {

/// The one exception type torchless throws for bad input and failed operations.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

namespace detail {

template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

[[noreturn]] void throw_error(const std::string& message);
[[noreturn]] void throw_internal(const char* file, int line, const char* cond,
                                 const std::string& message);

}  // namespace detail
}  // namespace tl

/// Throws tl::Error built from the remaining arguments when `cond` is false.
#define TL_CHECK(cond, ...)                                           \
  do {                                                                \
    if (!(cond)) [[unlikely]]                                         \
      ::tl::detail::throw_error(::tl::detail::str_cat(__VA_ARGS__));  \
  } while (false)

/// Checks one of torchless's own invariants; never compiled out. A failure is our bug.
#define TL_INTERNAL_ASSERT(cond, ...)                                                   \
  do {                                                                                  \
    if (!(cond)) [[unlikely]]                                                           \
      ::tl::detail::throw_internal(__FILE__, __LINE__, #cond,                           \
                                   ::tl::detail::str_cat("" __VA_OPT__(, ) __VA_ARGS__)); \
  } while (false)
