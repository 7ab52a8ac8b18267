// tests/support/reference_files.cpp — reference file access for printing tests.
#include "tests/support/reference_files.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tl::testing {

std::string read_reference(const std::string& name) {
  const std::string path = "tests/reference/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("reference file not found: " + path + " (run the tests from the project root)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string between(const std::string& text, const std::string& begin, const std::string& end) {
  const size_t at = text.find(begin);
  if (at == std::string::npos) throw std::runtime_error("marker not found in reference: " + begin);
  const size_t start = at + begin.size();
  const size_t stop = text.find(end, start);
  return text.substr(start, stop == std::string::npos ? std::string::npos : stop - start);
}

std::string strip_trailing_newlines(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace tl::testing
