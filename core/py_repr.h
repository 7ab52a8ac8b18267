// core/py_repr.h — Python's repr of a float and a bool, which PyTorch's printed texts (module reprs,
// FX code, torch.testing messages) are made of.
#pragma once

#include <string>

namespace tl {

/// Python's repr of a float: shortest round-trip digits, fixed notation for exponents in [-4, 16),
/// otherwise d.ddde±XX: 0.1, 1.0, 1e-05, 1e+16, nan, inf, -0.0.
std::string py_float(double value);
/// "True" / "False".
std::string py_bool(bool value);

}  // namespace tl
