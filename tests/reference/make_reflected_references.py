#!/usr/bin/env python3
"""Regenerates tests/reference/reflected_operators.json: what PyTorch 1.13 gives for a number on the left of
an operator (`2.0 - x`, `2 * x`, `1.0 / x`, `2 + x`, `2 < x`, `2 == x`, ...) and for a reduction over one
int dim (`x.sum(0)`, `x.mean(0)`): each form's dtype, shape and values for a float32 and an int64 x, the
gradient of its sum and the grad_fn name for the float32 x, and the graph, code and print_tabular text of a
module using them all, traced by torch.fx.symbolic_trace. Compared by tests/ops/test_binary.cpp,
tests/autograd/test_autograd.cpp and tests/fx/test_tracer.cpp. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_reflected_references.py"""
import contextlib
import io
import json
import pathlib

import torch
import torch.fx

HERE = pathlib.Path(__file__).resolve().parent

# The C++ tests spell each form the same way (tests/ops/test_binary.cpp's kReflectedForms).
FORMS = {
    "2.0 - x": lambda x: 2.0 - x,
    "2 - x": lambda x: 2 - x,
    "2 * x": lambda x: 2 * x,
    "0.5 * x": lambda x: 0.5 * x,
    "1.0 / x": lambda x: 1.0 / x,
    "2 / x": lambda x: 2 / x,
    "2 + x": lambda x: 2 + x,
    "2.5 + x": lambda x: 2.5 + x,
    "2 < x": lambda x: 2 < x,
    "2 > x": lambda x: 2 > x,
    "2 <= x": lambda x: 2 <= x,
    "2 >= x": lambda x: 2 >= x,
    "2 == x": lambda x: 2 == x,
    "2 != x": lambda x: 2 != x,
    "x == 2": lambda x: x == 2,
    "x != 2": lambda x: x != 2,
    "x.sum(0)": lambda x: x.sum(0),
    "x.sum(1, keepdim=True)": lambda x: x.sum(1, keepdim=True),
    "x.mean(0)": lambda x: x.mean(0),
    "x.mean(-1)": lambda x: x.mean(-1),
    "torch.sum(x, 1)": lambda x: torch.sum(x, 1),
    "x.sum([0])": lambda x: x.sum([0]),
    "x.sum([])": lambda x: x.sum([]),
    "x.mean([])": lambda x: x.mean([]),
    "torch.rsub(x, 2.0)": lambda x: torch.rsub(x, 2.0),
    "torch.rsub(x, x * x)": lambda x: torch.rsub(x, x * x),
    "x.reciprocal()": lambda x: x.reciprocal(),
}

X = [[1.5, -2.0, 0.25, 3.0], [-0.5, 2.0, 4.0, -1.25], [0.0, 1.0, -3.5, 2.5]]
XI = [[1, -2, 0, 3], [-5, 2, 4, -1], [0, 1, -3, 2]]


def encode(t):
    values = t.flatten().tolist()
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "values": [repr(float(v)) if t.is_floating_point() else int(v) for v in values]}


def eager():
    out = {}
    for name, f in FORMS.items():
        x = torch.tensor(X, requires_grad=True)
        y = f(x)
        entry = {"float32": encode(y.detach())}
        if y.requires_grad:
            entry["grad_fn"] = type(y.grad_fn).__name__
            y.sum().backward()
            entry["grad"] = encode(x.grad)
        if not name.startswith("x.mean"):  # mean refuses an integer tensor
            try:
                entry["int64"] = encode(f(torch.tensor(XI)))
            except RuntimeError as e:
                entry["int64_error"] = str(e).splitlines()[0]
        out[name] = entry
    return out


class Reflected(torch.nn.Module):
    def forward(self, x):
        a = 2.0 - x
        b = 2 * x
        c = 1.0 / x
        d = 2 + x
        lt = 2 < x
        eq = 2 == x
        return a * b + (c - d) + lt.to(torch.float32) * x.sum(0) + eq.to(torch.float32) * x.mean(0)


def traced():
    gm = torch.fx.symbolic_trace(Reflected())
    table = io.StringIO()
    with contextlib.redirect_stdout(table):
        gm.graph.print_tabular()
    x = torch.tensor(X)
    return {"graph": str(gm.graph), "code": gm.code, "tabular": table.getvalue(), "output": encode(gm(x))}


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    data = {"generator": "tests/reference/make_reflected_references.py", "torch": torch.__version__, "x": X,
            "x_int64": XI, "forms": eager(), "traced": traced()}
    (HERE / "reflected_operators.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
