#!/usr/bin/env python3
"""tests/core/check_typed_args.py — an op's arguments are checked by the compiler (#31): a kernel or a
derivative formula that misspells an argument, or gives it a wrong type, does not compile.

  check_typed_args.py SOURCE_ROOT BUILD_ROOT -- COMPILER...

Each case is compiled with -fsyntax-only against the build's generated headers; a misspelt case must fail
with the misspelt name in the compiler's message, and its correctly spelt twin must compile, so the failure
is the name's and nothing else's. The derivative case runs core/gen_ops.py on a copy of the op rows whose
div formula reads `othr`, and compiles the generated entries."""
import os
import sys
import tempfile

from compile_cases import from_argv, generate, read_rows

KERNEL = """#include "core/op_args.h"
namespace tl::kernels {
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dArgs& args) {
  (void)weight; (void)bias;
  return input.view({args.%s[0]});
}
}  // namespace tl::kernels
"""
STRUCT = """#include "core/op_args.h"
tl::Conv2dArgs make() { return tl::Conv2dArgs{.stride = {2, 2}, .groups = %s}; }
"""


def main():
    source_root, cases = from_argv(sys.argv)
    cases.expect("kernel_field", KERNEL % "stride", True)
    cases.expect("kernel_misspelt_field", KERNEL % "strid", False, "strid")
    cases.expect("struct_field", STRUCT % "2", True)
    cases.expect("struct_wrong_type", STRUCT % '"two"', False, "groups")

    rows = read_rows(source_root)
    formula = 'self = "grad / other"'
    if formula not in rows:
        cases.fail("formula_misspelt_input", f"the op rows no longer hold div's formula {formula!r}: update this test")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            toml = os.path.join(tmp, "native_functions.toml")
            with open(toml, "w", encoding="utf-8") as f:
                f.write(rows.replace(formula, 'self = "grad / othr"', 1))
            generated = os.path.join(tmp, "op_derivatives.cpp")
            generate(source_root, toml, "derivatives", generated)
            with open(generated, encoding="utf-8") as f:
                cases.expect("formula_misspelt_input", f.read(), False, "othr")
    return cases.report()


if __name__ == "__main__":
    sys.exit(main())
