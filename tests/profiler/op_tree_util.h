// tests/profiler/op_tree_util.h — an event tree as text, ours and PyTorch's (tests/reference/op_tree_*.txt,
// from tests/reference/make_op_tree_references.py), and their line-for-line comparison; shared by
// test_op_tree.cpp and test_training_profile.cpp.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "profiler/event_list.h"
#include "tests/support/reference_files.h"

namespace tl::profiler::testing {

// One event of a tree as the reference files write it.
struct Line {
  int depth;
  std::string name;
  std::string shapes;  // PyTorch's Input Shapes, printed as Python prints the list
};

inline std::string text_of(const Line& line) { return std::string(2 * line.depth, ' ') + line.name + " " + line.shapes; }

// Events of the reference that torchless does not record, and why. Each drops the event and its subtree.
struct NotMirrored {
  const char* name;
  // "op": when its parent is an op; "scope": when its parent is a user scope; "scope start": when it is a
  // user scope's first child; "root before scope": at the top, the next top-level event a user scope
  const char* where;
  const char* why;
};
inline constexpr NotMirrored kNotMirrored[] = {
    {"aten::empty", "op", "a kernel's allocations: torchless's kernels allocate without dispatching an op"},
    {"aten::empty_like", "op", "a kernel's allocations (as above)"},
    {"aten::empty_strided", "op", "a kernel's allocations (as above)"},
    {"aten::as_strided_", "op", "mkldnn_convolution restrides the result it allocated (as above)"},
    {"aten::resize_", "op", "an out= kernel sizes the result it allocated (as above)"},
    {"aten::zeros", "root before scope", "Python's record_function allocates its handle before it opens the scope"},
    {"aten::empty", "scope start", "record_function's __enter__ allocates inside the scope it opens"},
    {"aten::detach", "scope", "host.numpy(): the NumPy bridge of Python's MyModule"},
    {"aten::to", "scope", "torch.from_numpy(): the NumPy bridge (as above)"},
    {"aten::resolve_conj", "scope", "the NumPy bridge (as above)"},
    {"aten::resolve_neg", "scope", "the NumPy bridge (as above)"},
    {"aten::lift_fresh", "scope", "the NumPy bridge (as above)"},
    {"aten::dropout_", "root",
     "nn.Dropout(inplace=True) in eval (mobilenet_v3's and efficientnet's classifiers): ATen calls dropout_, which "
     "returns its input; torchless's functional dropout skips the call, having no dropout_ op (#34)"},
};

inline bool is_op(const std::string& name) { return name.rfind("aten::", 0) == 0; }

// `first`: the line is its parent's first child; `next_root`: the name of the next top-level line.
inline bool not_mirrored(const Line& line, const Line* parent, bool first, const std::string& next_root) {
  const std::string where = parent == nullptr ? (next_root.empty() || is_op(next_root) ? "root" : "root before scope")
                            : is_op(parent->name) ? "op"
                                                  : "scope";
  for (const NotMirrored& n : kNotMirrored)
    if (line.name == n.name && (where == n.where || (first && where == "scope" && std::string(n.where) == "scope start")))
      return true;
  return false;
}

// The reference's lines from `begin` (a comment line, or "" for the first) to the next comment line,
// without kNotMirrored's events.
inline std::vector<std::string> reference_tree(const std::string& file, const std::string& begin) {
  std::istringstream in(tl::testing::read_reference(file));
  std::vector<std::string> section;
  bool inside = begin.empty();
  for (std::string text; std::getline(in, text);) {
    if (text.empty()) continue;
    if (text[0] == '#') {
      if (inside && !begin.empty()) break;
      inside = inside || text == begin;
      continue;
    }
    if (inside) section.push_back(text);
  }
  std::vector<std::string> out;
  std::vector<Line> ancestors;  // the kept path to the current line
  int skip_below = -1;  // depth of a dropped event whose subtree is being skipped
  int previous_depth = -1;
  for (size_t i = 0; i < section.size(); ++i) {
    const std::string& text = section[i];
    std::string next_root;
    for (size_t k = i + 1; k < section.size() && next_root.empty(); ++k)
      if (section[k][0] != ' ') next_root = section[k].substr(0, section[k].find(' '));
    Line line;
    line.depth = static_cast<int>(text.find_first_not_of(' ') / 2);
    const size_t name_end = text.find(' ', 2 * line.depth);
    line.name = text.substr(2 * line.depth, name_end - 2 * line.depth);
    line.shapes = text.substr(name_end + 1);
    if (skip_below >= 0 && line.depth > skip_below) continue;
    skip_below = -1;
    const bool first = line.depth > previous_depth;
    previous_depth = line.depth;
    ancestors.resize(static_cast<size_t>(line.depth));
    if (not_mirrored(line, ancestors.empty() ? nullptr : &ancestors.back(), first, next_root)) {
      skip_below = line.depth;
      continue;
    }
    ancestors.push_back(line);
    out.push_back(text_of(line));
  }
  return out;
}

inline std::string shapes_of(const FunctionEvent& e) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < e.input_shapes.size(); ++i) os << (i ? ", " : "") << e.input_shapes[i];
  os << ']';
  return os.str();
}

/// Our events as the reference writes them, from the top-level events `keep` accepts (all by default).
inline std::vector<std::string> our_tree(const EventList& events,
                                         const std::function<bool(const FunctionEvent&)>& keep = {}) {
  std::vector<int> depth(events.size(), 0);
  std::vector<bool> kept(events.size(), false);
  std::vector<std::string> out;
  for (size_t i = 0; i < events.size(); ++i) {
    const int64_t parent = events[i].parent;
    depth[i] = parent >= 0 ? depth[parent] + 1 : 0;
    kept[i] = parent >= 0 ? kept[parent] : !keep || keep(events[i]);
    if (kept[i]) out.push_back(text_of({depth[i], events[i].name, shapes_of(events[i])}));
  }
  return out;
}

inline void check_same_tree(const std::vector<std::string>& ours, const std::vector<std::string>& pytorch) {
  for (size_t i = 0; i < std::min(ours.size(), pytorch.size()); ++i) {
    if (ours[i] == pytorch[i]) continue;
    std::string context;
    for (size_t k = i >= 3 ? i - 3 : 0; k < std::min(i + 4, std::max(ours.size(), pytorch.size())); ++k)
      context += (k < pytorch.size() ? pytorch[k] : "") + "   |   " + (k < ours.size() ? ours[k] : "") + "\n";
    FAIL("line ", i, " differs (PyTorch 1.13   |   torchless):\n", context);
  }
  CHECK(ours.size() == pytorch.size());
}

}  // namespace tl::profiler::testing
