// fx/unique_names.cpp — FX's _Namespace.create_name, including its reserved-word list.
#include "fx/unique_names.h"

#include <cctype>
#include <set>

namespace tl::fx {
namespace {

const std::set<std::string>& reserved_words() {
  static const std::set<std::string> words = {
      // keywords
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
      "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
      "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
      // builtins
      "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes",
      "callable", "chr", "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir",
      "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset", "getattr",
      "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter",
      "len", "license", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open",
      "ord", "pow", "print", "property", "quit", "range", "repr", "reversed", "round", "set", "setattr",
      "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip",
      // names FX's generated code itself relies on
      "inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree"};
  return words;
}

}  // namespace

bool is_python_reserved(const std::string& name) { return reserved_words().count(name) > 0; }

std::string UniqueNames::create_name(const std::string& candidate_in) {
  std::string candidate;
  bool in_illegal_run = false;
  for (char c : candidate_in) {
    const bool legal = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (legal) candidate += c;
    else if (!in_illegal_run) candidate += '_';  // a run of illegal characters becomes one '_'
    in_illegal_run = !legal;
  }
  if (candidate.empty()) candidate.push_back('_');
  if (std::isdigit(static_cast<unsigned char>(candidate[0]))) candidate.insert(0, 1, '_');

  // Split a trailing "_<digits>" suffix: "add_7" -> base "add", number 7.
  std::string base = candidate;
  int num = 0;
  const size_t us = candidate.rfind('_');
  if (us != std::string::npos && us > 0 && us + 1 < candidate.size()) {
    const std::string digits = candidate.substr(us + 1);
    bool all_digits = digits.size() < 9;
    for (char c : digits) all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
    if (all_digits) {
      base = candidate.substr(0, us);
      num = std::stoi(digits);
      candidate = base + "_" + std::to_string(num);
    }
  }
  while (used_.count(candidate) || is_python_reserved(candidate)) {
    ++num;
    candidate = base + "_" + std::to_string(num);
  }
  used_.insert(candidate);
  return candidate;
}

}  // namespace tl::fx
