// core/error.cpp — out-of-line throw helpers keep the check macros small at every call site.
#include "core/error.h"

namespace tl::detail {

void throw_error(const std::string& message) { throw Error(message); }

void throw_internal(const char* file, int line, const char* cond, const std::string& message) {
  throw Error(str_cat("internal assert failed at ", file, ":", line, ": ", cond,
                      message.empty() ? "" : ": ", message,
                      " (this is a torchless bug, please report it)"));
}

}  // namespace tl::detail
