#!/usr/bin/env python3
"""tests/check_layers.py on small made-up trees: it refuses an upward include and a kernel or derivative
that reads an op argument by name, and accepts typed reads and the boxed entry's Attrs."""
import pathlib
import subprocess
import sys
import tempfile

CHECK = pathlib.Path(__file__).with_name("check_layers.py")


def run(files):
    """check_layers.py's exit code and output on a tree holding `files` (path -> text)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        base = {"core/dispatch.h": "#pragma once\n", "core/tensor_base.h": "#pragma once\n"}
        for name, text in {**base, **files}.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        done = subprocess.run([sys.executable, str(CHECK), str(root)], capture_output=True, text=True)
        return done.returncode, done.stdout


failures = []


def expect(files, code, needle=""):
    got, out = run(files)
    if got != code or needle not in out:
        failures.append(f"{sorted(files)}: expected exit {code} with {needle!r}, got {got}: {out.strip()}")


expect({"ops/conv.cpp": "Tensor conv(const Conv2dArgs& args) { return f(args.groups); }\n"}, 0)
expect({"ops/registry.cpp": "TensorList call(OpKind op, const Attrs& attrs);\n"}, 0)
expect({"ops/conv.cpp": 'int64_t g = attrs.get<int64_t>("groups");\n'}, 1, "ops/conv.cpp:1: reads an op argument by name")
expect({"autograd/formulas.cpp": 'Scalar a = attrs.scalar("alpha");\n'}, 1, "autograd/formulas.cpp:1: reads an op")
expect({"ops/pool.cpp": "Tensor pool(const Attrs& attrs);\n"}, 1, "ops/pool.cpp:1: reads an op argument by name")
expect({"core/shape.h": '#include "nn/module.h"\n'}, 1, "core/ includes nn/, a higher layer")
expect({"fx/graph.h": '#include "ao/quantization/observer.h"\n'}, 1, "fx/ includes ao/, a higher layer")
expect({"ao/quantization/prepare.cpp": '#include "fx/graph.h"\n'}, 0)
expect({"ao/quantization/prepare.cpp": '#include "profiler/profile.h"\n'}, 1, "ao/ includes profiler/, a higher layer")
print("\n".join(failures) or "check_layers: 9 cases as expected")
sys.exit(1 if failures else 0)
