// ops/onednn/errors.h — running oneDNN calls so that no oneDNN exception (or std::bad_alloc) escapes:
// each becomes a tl::Error naming the op and the shapes involved. tl::Error passes through untouched.
#pragma once

#include <new>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

namespace tl::onednn {

/// Throws tl::Error "<op>: oneDNN <status>: <what> (<context>)".
[[noreturn]] void rethrow_as_error(const char* op, const std::string& context, const dnnl::error& e);
/// Throws tl::Error "<op>: out of memory (<context>)".
[[noreturn]] void rethrow_out_of_memory(const char* op, const std::string& context);

/// Runs `body()` and returns its result. `context()` (a string such as "input [1, 3, 5, 5], weight
/// [...]") is built only when something fails.
template <typename Context, typename Body>
decltype(auto) guarded(const char* op, const Context& context, Body&& body) {
  try {
    return body();
  } catch (const dnnl::error& e) {
    rethrow_as_error(op, context(), e);
  } catch (const std::bad_alloc&) {
    rethrow_out_of_memory(op, context());
  }
}

}  // namespace tl::onednn
