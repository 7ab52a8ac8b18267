// tests/support/reference_files.h — reading PyTorch's reference outputs from tests/reference/ (made by
// tests/reference/make_references.py; tests run from the project root). A missing file is a test failure, never a silent pass.
#pragma once

#include <string>

namespace tl::testing {

/// The whole file tests/reference/<name>; throws std::runtime_error naming the path if absent.
std::string read_reference(const std::string& name);
/// The text strictly between the first `begin` and the next `end` after it (or the end of text).
std::string between(const std::string& text, const std::string& begin, const std::string& end);
/// `text` without trailing newlines.
std::string strip_trailing_newlines(std::string text);

}  // namespace tl::testing
