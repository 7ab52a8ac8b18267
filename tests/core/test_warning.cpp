// tests/core/test_warning.cpp — tl::warn reaches the installed handler with TL_CHECK's formatting,
// set_warning_handler returns the previous handler, TL_WARN_ONCE fires once per call site, and the
// default handler prints "Warning: ..." to std::cerr.
#include <doctest/doctest.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/warning.h"
#include "tests/support/captured_warnings.h"

namespace tl {
namespace {

using testing::CapturedWarnings;

/// std::cerr's text while alive.
class CapturedCerr {
 public:
  CapturedCerr() : old_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~CapturedCerr() { std::cerr.rdbuf(old_); }
  std::string str() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* old_;
};

void warn_once_here(int i) { TL_WARN_ONCE("first call had i=", i); }

TEST_CASE("warn: the handler gets the message formatted as TL_CHECK formats it") {
  CapturedWarnings captured;
  warn("conv: input ", Shape{1, 3, 4, 4}, " runs the slow path");
  warn("second");
  CHECK(captured.messages == std::vector<std::string>{"conv: input [1, 3, 4, 4] runs the slow path", "second"});
}

TEST_CASE("set_warning_handler: returns the previous handler, which can be restored") {
  std::vector<std::string> outer;
  const WarningHandler original = set_warning_handler([&](const std::string& m) { outer.push_back(m); });
  {
    CapturedWarnings inner;
    warn("to the inner handler");
    CHECK(inner.messages == std::vector<std::string>{"to the inner handler"});
  }
  warn("to the outer handler again");
  CHECK(outer == std::vector<std::string>{"to the outer handler again"});
  set_warning_handler(original);
  CapturedCerr cerr;
  warn("back to the default");
  CHECK(cerr.str() == "Warning: back to the default\n");
}

TEST_CASE("set_warning_handler: an empty handler restores the default, a no-op one silences") {
  const WarningHandler original = set_warning_handler([](const std::string&) {});
  {
    CapturedCerr cerr;
    warn("silenced");
    CHECK(cerr.str().empty());
  }
  set_warning_handler(nullptr);
  {
    CapturedCerr cerr;
    warn("printed ", 2, " times");
    warn("printed ", 2, " times");  // the default prints every call, as c10's does
    CHECK(cerr.str() == "Warning: printed 2 times\nWarning: printed 2 times\n");
  }
  set_warning_handler(original);
}

TEST_CASE("TL_WARN_ONCE: once per call site") {
  CapturedWarnings captured;
  for (int i = 0; i < 3; ++i) warn_once_here(i);
  CHECK(captured.messages == std::vector<std::string>{"first call had i=0"});
}

}  // namespace
}  // namespace tl
