// nn/repr.cpp — Module repr exactly as torch.nn.Module.__repr__ builds it (extra_repr lines, then
// "(name): child" lines indented by _addindent), and Python's float repr.
#include "nn/repr.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <vector>

#include "nn/module.h"

namespace tl::nn {
namespace {

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  size_t begin = 0;
  while (true) {
    const size_t nl = s.find('\n', begin);
    lines.push_back(s.substr(begin, nl - begin));
    if (nl == std::string::npos) return lines;
    begin = nl + 1;
  }
}

/// torch.nn.modules.module._addindent: every line but the first gets `spaces` more spaces.
std::string add_indent(const std::string& s, int spaces) {
  const std::vector<std::string> lines = split_lines(s);
  std::string out = lines[0];
  for (size_t i = 1; i < lines.size(); ++i) {
    out += '\n';
    out.append(static_cast<size_t>(spaces), ' ');
    out += lines[i];
  }
  return out;
}

}  // namespace

std::string repr(const Module& module) {
  const std::string extra = module.extra_repr();
  const std::vector<std::string> extra_lines = extra.empty() ? std::vector<std::string>{} : split_lines(extra);
  std::vector<std::string> child_lines;
  // Every registry entry, repeats included, as Python iterates self._modules.
  for (const auto& [name, child] : module.children_) {
    std::string line = "(";
    line.append(name).append("): ").append(add_indent(repr(*child), 2));
    child_lines.push_back(std::move(line));
  }

  std::string out = module.type_name() + "(";
  if (extra_lines.size() == 1 && child_lines.empty()) {
    out += extra_lines[0];
  } else if (!extra_lines.empty() || !child_lines.empty()) {
    out += "\n";
    for (const std::string& line : extra_lines) out += "  " + line + "\n";
    for (const std::string& line : child_lines) out += "  " + line + "\n";
  }
  return out + ")";
}

std::string Module::str() const { return repr(*this); }

std::ostream& operator<<(std::ostream& os, const Module& module) { return os << module.str() << '\n'; }


std::string py_tuple(int64_t h, int64_t w) { return py_int_tuple({h, w}); }

std::string py_tuple(const Shape& values) { return py_int_tuple(values.vec()); }

}  // namespace tl::nn
