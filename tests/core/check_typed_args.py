#!/usr/bin/env python3
"""tests/core/check_typed_args.py — an op's arguments are checked by the compiler (#31): a kernel or a
derivative formula that misspells an argument, or gives it a wrong type, does not compile.

  check_typed_args.py SOURCE_ROOT BUILD_ROOT -- COMPILER...

Each case is compiled with -fsyntax-only against the build's generated headers; a misspelt case must fail
with the misspelt name in the compiler's message, and its correctly spelt twin must compile, so the failure
is the name's and nothing else's. The derivative case runs core/gen_ops.py on a copy of the op rows whose
div formula reads `othr`, and compiles the generated entries."""
import os
import re
import subprocess
import sys
import tempfile

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


def compile_ok(compiler, includes, source, name):
    """Compiles `source` (written to a temporary NAME.cpp); returns (ok, compiler output)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name + ".cpp")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        run = subprocess.run(compiler + ["-std=c++20", "-fsyntax-only"] + includes + [path],
                             capture_output=True, text=True)
        return run.returncode == 0, run.stderr


def main():
    sep = sys.argv.index("--")
    source_root, build_root = sys.argv[1:sep]
    compiler = sys.argv[sep + 1:]
    includes = ["-I" + source_root, "-I" + build_root]
    failures, cases = [], []

    def expect(case, source, good, bad_name):
        cases.append(case)
        ok, out = compile_ok(compiler, includes, source, case)
        if good and not ok:
            failures.append(f"{case}: the correctly spelt control does not compile:\n{out}")
        if not good and (ok or not re.search(re.escape(bad_name), out)):
            failures.append(f"{case}: expected a compile error naming '{bad_name}', got "
                            f"{'success' if ok else out[:2000]}")

    expect("kernel_field", KERNEL % "stride", True, "")
    expect("kernel_misspelt_field", KERNEL % "strid", False, "strid")
    expect("struct_field", STRUCT % "2", True, "")
    expect("struct_wrong_type", STRUCT % '"two"', False, "groups")

    with open(os.path.join(source_root, "core", "native_functions.toml"), encoding="utf-8") as f:
        rows = f.read()
    formula = 'self = "grad / other"'
    if formula not in rows:
        failures.append(f"the op rows no longer hold div's formula {formula!r}: update this test")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            toml = os.path.join(tmp, "native_functions.toml")
            with open(toml, "w", encoding="utf-8") as f:
                f.write(rows.replace(formula, 'self = "grad / othr"', 1))
            generated = os.path.join(tmp, "op_derivatives.cpp")
            subprocess.run([sys.executable, os.path.join(source_root, "core", "gen_ops.py"), toml, "derivatives",
                            generated], check=True)
            with open(generated, encoding="utf-8") as f:
                expect("formula_misspelt_input", f.read(), False, "othr")

    for f in failures:
        print(f, file=sys.stderr)
    failed = {f.split(":")[0] for f in failures}
    print(f"{len([c for c in cases if c not in failed])} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
