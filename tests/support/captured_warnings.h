// tests/support/captured_warnings.h — CapturedWarnings: the warnings tl::warn sends while it lives (the
// previous handler is put back after), for tests that check a warning's text.
#pragma once

#include <string>
#include <vector>

#include "core/warning.h"

namespace tl::testing {

/// Captures warnings while alive and puts the previous handler back afterwards.
class CapturedWarnings {
 public:
  CapturedWarnings() : previous_(set_warning_handler([this](const std::string& m) { messages.push_back(m); })) {}
  ~CapturedWarnings() { set_warning_handler(previous_); }
  CapturedWarnings(const CapturedWarnings&) = delete;
  CapturedWarnings& operator=(const CapturedWarnings&) = delete;
  std::vector<std::string> messages;

 private:
  WarningHandler previous_;
};

}  // namespace tl::testing
