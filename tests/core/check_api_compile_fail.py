#!/usr/bin/env python3
"""tests/core/check_api_compile_fail.py — misuses of the tensor API that must not compile, each next to a
twin that must: an accessor of a temporary tensor (its storage would die before the accessor). And calls
that must stay unambiguous: x.var(false) (LibTorch's var(bool unbiased), a template taking bool alone)
beside x.var(0L), a dim.

  check_api_compile_fail.py SOURCE_ROOT BUILD_ROOT -- COMPILER..."""
import sys

from compile_cases import from_argv

CASE = """#include "ops/ops.h"
float read(const tl::Tensor& x) { %s }
"""


def main():
    _, cases = from_argv(sys.argv)
    cases.expect("accessor_of_lvalue", CASE % "return x.accessor<float, 1>()[0];", True)
    cases.expect("accessor_of_temporary", CASE % "return tl::ones({2}).accessor<float, 1>()[0];", False, "accessor")
    # Only the bool template matches a bool exactly; a long, the int overload, stays a dim.
    cases.expect("var_of_bool", CASE % "return x.var(false).item<float>() + tl::std(x, true).item<float>();", True)
    cases.expect("var_of_long", CASE % "return x.var(0L).item<float>();", True)
    return cases.report()


if __name__ == "__main__":
    sys.exit(main())
