// core/py_repr.h — Python's repr of a float, a bool, a tuple of ints and a torch.Size, which PyTorch's
// printed texts (module reprs, FX code, torch.testing and nn error messages) are made of.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tl {

/// Python's repr of a float: shortest round-trip digits, fixed notation for exponents in [-4, 16),
/// otherwise d.ddde±XX: 0.1, 1.0, 1e-05, 1e+16, nan, inf, -0.0.
std::string py_float(double value);
/// "True" / "False".
std::string py_bool(bool value);
/// Python's repr of a tuple of ints: "()", "(3,)", "(2, 3)".
std::string py_int_tuple(const std::vector<int64_t>& values);
/// repr(torch.Size): "torch.Size([2, 3])".
std::string py_size(const std::vector<int64_t>& sizes);

}  // namespace tl
