// nn/repr.h — PyTorch's printing of modules (repr(model), print(model)) and the Python spellings of
// the values inside it, byte for byte: 1e-05, 0.1, True (core/py_repr.h), (3, 3).
#pragma once

#include <cstdint>
#include <string>

#include "core/py_repr.h"
#include "core/shape.h"

namespace tl::nn {

class Module;

/// repr(module): "Conv2d(1, 1, kernel_size=(1, 1), stride=(1, 1))", children indented by two spaces
/// per level, no trailing newline. `operator<<(std::ostream&, const Module&)` adds the newline
/// print() adds.
std::string repr(const Module& module);

/// "(h, w)", Python's repr of a 2-tuple of ints.
std::string py_tuple(int64_t h, int64_t w);
/// Python's repr of a tuple of ints: "(1, 2, 3, 4)", "(3,)".
std::string py_tuple(const Shape& values);

}  // namespace tl::nn
