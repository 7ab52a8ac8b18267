#!/usr/bin/env python3
"""tests/core/check_add_op.py — adding an op is one row, one typed kernel, one derivative line and one
sample (#31 must-show), tried with a throw-away op as docs/adding_an_op.md adds silu.

  check_add_op.py SOURCE_ROOT BUILD_ROOT -- COMPILER...

A copy of core/native_functions.toml gets one more row, throwaway_scale (self * factor, with its
derivative formula); core/gen_ops.py writes every generated file from the copy into a folder that shadows
the build's; then, against those headers and nothing else changed, the throw-away kernel and the generated
registry compile to objects and the registry's reference to the kernel is the symbol the kernel defines
(the link would succeed), and the generated derivatives, C++ API definitions, a caller of tl::throwaway_scale
/ Tensor::throwaway_scale / OpKind::ThrowawayScale and the op table's sample compile. The caller fails to
compile against the build's own headers, so the op really is new."""
import os
import subprocess
import sys
import tempfile

from compile_cases import Cases, generate, read_rows

ROW = """
[[op]]
func = "throwaway_scale(Tensor self, *, float factor=2.0) -> Tensor"
tags = ["pointwise"]
variants = ["function", "method"]
[op.derivative]
name = "ThrowawayScaleBackward0"
self = "grad * factor"
"""
# The typed kernel, on the activations' loop as ops/silu.cpp's.
KERNEL = """#include "core/op_args.h"
#include "ops/elementwise.h"

namespace tl::kernels {

Tensor throwaway_scale(const Tensor& self, const ThrowawayScaleArgs& args) {
  return detail::floating_map(self, "throwaway_scale", [factor = args.factor](auto v) {
    using A = detail::acc_type<decltype(v)>;
    return static_cast<decltype(v)>(static_cast<A>(v) * static_cast<A>(factor));
  });
}

}  // namespace tl::kernels
"""
CALLER = """#include "core/op_kind.h"
#include "ops/ops.h"
tl::Tensor twice(const tl::Tensor& x) { return tl::throwaway_scale(x) + x.throwaway_scale(3.0); }
tl::OpKind kind() { return tl::OpKind::ThrowawayScale; }
"""
SAMPLE = """#include "tests/ops/op_db.h"
#include "ops/ops.h"
namespace tl::testing {
Samples opinfo_throwaway_scale() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return TensorList{throwaway_scale(x, 0.5)}; }}.generic()};
}
}  // namespace tl::testing
"""
# Each generated file, at the path the build includes or compiles it from.
GENERATED = {"op_list": "core/op_list.h", "op_args": "core/op_args.h", "methods": "core/op_methods.h",
             "operators": "core/op_operators.h", "functions": "ops/op_functions.h", "sources": "ops/op_api.cpp",
             "registry": "ops/op_registry.cpp", "derivatives": "autograd/op_derivatives.cpp"}


def symbols(path, *flags):
    run = subprocess.run(["nm", *flags, path], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in run.stdout.splitlines() if "throwaway_scale" in line}


def main():
    sep = sys.argv.index("--")
    source_root, build_root = sys.argv[1:sep]
    compiler = sys.argv[sep + 1:]
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "generated")
        for folder in ("core", "ops", "autograd"):
            os.makedirs(os.path.join(gen, folder))
        rows = os.path.join(tmp, "native_functions.toml")
        with open(rows, "w", encoding="utf-8") as f:
            f.write(read_rows(source_root) + ROW)
        for what, path in GENERATED.items():
            generate(source_root, rows, what, os.path.join(gen, path))
        cases = Cases(compiler, [gen, source_root, build_root])

        def generated(path):
            with open(os.path.join(gen, path), encoding="utf-8") as f:
                return f.read()

        cases.expect("caller_before", CALLER, False, "throwaway_scale", include_dirs=[source_root, build_root])
        objects = ["-c", "-O0", "-w"]
        if cases.expect("kernel", KERNEL, True, flags=objects, out_dir=tmp) and \
                cases.expect("registry", generated(GENERATED["registry"]), True, flags=objects, out_dir=tmp):
            defined = symbols(os.path.join(tmp, "kernel.o"), "--defined-only")
            wanted = symbols(os.path.join(tmp, "registry.o"), "--undefined-only")
            if not wanted or not wanted <= defined:
                cases.fail("registry", f"the kernel object does not define what the registry calls: {sorted(wanted - defined)}")
        if "ThrowawayScaleBackward0" not in generated(GENERATED["derivatives"]):
            cases.fail("derivatives", "the generated entries do not name ThrowawayScaleBackward0")
        cases.expect("derivatives", generated(GENERATED["derivatives"]), True)
        cases.expect("api", generated(GENERATED["sources"]), True)
        cases.expect("caller", CALLER, True)
        cases.expect("sample", SAMPLE, True)
        return cases.report()


if __name__ == "__main__":
    sys.exit(main())
