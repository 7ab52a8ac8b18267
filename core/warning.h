// core/warning.h — library warnings (c10's TORCH_WARN and WarningHandler): tl::warn builds the message
// as TL_CHECK does and hands it to one replaceable handler; nothing in the library writes to std::cerr.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "core/error.h"

namespace tl {

/// Receives each warning's message (without the "Warning: " prefix). Called on the warning thread;
/// an exception it throws propagates out of the warning call.
using WarningHandler = std::function<void(const std::string& message)>;

/// Installs `handler` for every later warning, from any thread, and returns the previous one (to be
/// restored by the caller). An empty handler restores the default, which writes "Warning: <message>\n"
/// to std::cerr on every call, as c10's default handler does; silence warnings with a handler that
/// does nothing.
WarningHandler set_warning_handler(WarningHandler handler);

namespace detail {
void emit_warning(const std::string& message);
}  // namespace detail

/// Sends the concatenated arguments (formatted as TL_CHECK formats its message) to the current
/// handler, on every call (TORCH_WARN). Use TL_WARN_ONCE for once per call site.
template <typename... Args>
void warn(const Args&... args) {
  detail::emit_warning(detail::str_cat(args...));
}

}  // namespace tl

/// tl::warn(...) the first time this line runs in the process, never again (TORCH_WARN_ONCE).
#define TL_WARN_ONCE(...)                                       \
  do {                                                          \
    static std::atomic<bool> tl_warned_once_{false};            \
    if (!tl_warned_once_.exchange(true)) ::tl::warn(__VA_ARGS__); \
  } while (false)
