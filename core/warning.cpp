// core/warning.cpp — the warning handler slot; a handler is copied out under the lock and called
// outside it, so a handler may itself warn or install another handler.
#include "core/warning.h"

#include <iostream>
#include <mutex>
#include <utility>

namespace tl {
namespace {

void print_warning(const std::string& message) {
  std::cerr << ("Warning: " + message + "\n") << std::flush;  // one write: lines from threads stay whole
}

std::mutex& handler_mutex() {
  static std::mutex m;
  return m;
}

WarningHandler& handler_slot() {
  static WarningHandler handler = print_warning;
  return handler;
}

}  // namespace

WarningHandler set_warning_handler(WarningHandler handler) {
  if (!handler) handler = print_warning;
  std::lock_guard<std::mutex> lock(handler_mutex());
  return std::exchange(handler_slot(), std::move(handler));
}

namespace detail {

void emit_warning(const std::string& message) {
  WarningHandler handler;
  {
    std::lock_guard<std::mutex> lock(handler_mutex());
    handler = handler_slot();
  }
  handler(message);
}

}  // namespace detail
}  // namespace tl
