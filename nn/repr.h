// nn/repr.h — PyTorch's printing of modules (repr(model), print(model)) and the Python spellings of
// the values inside it, byte for byte: 1e-05, 0.1, True, (3, 3).
#pragma once

#include <cstdint>
#include <string>

namespace tl::nn {

class Module;

/// repr(module): "Conv2d(1, 1, kernel_size=(1, 1), stride=(1, 1))", children indented by two spaces
/// per level, no trailing newline. `operator<<(std::ostream&, const Module&)` adds the newline
/// print() adds.
std::string repr(const Module& module);

/// Python's repr of a float: shortest round-trip digits, fixed notation for exponents in [-4, 16),
/// otherwise d.ddde±XX: 0.1, 1.0, 1e-05, 1e+16, nan, inf, -0.0.
std::string py_float(double value);
/// "True" / "False".
std::string py_bool(bool value);
/// "(h, w)", Python's repr of a 2-tuple of ints.
std::string py_tuple(int64_t h, int64_t w);

}  // namespace tl::nn
