#!/usr/bin/python3
"""tests/ops/gen_index_cases.py — PyTorch 1.13's values for the indexing and creation ops.

Writes tests/ops/data/index_cases.json, read by tests/ops/test_scatter_gather.cpp and test_creation.cpp:
each case names an op, its tensor inputs (dtype, shape, values as Python float reprs), its other
arguments, what PyTorch returns and, for floating inputs, their gradients of (result * weight).sum()
by torch.autograd (weight is the input "weight"). Inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/ops/gen_index_cases.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from torch_cases import DTYPES, enc, write_cases  # noqa: E402

CASES = []


def case(name, op, inputs, args, fn):
    """fn(**inputs) gives the result; floating inputs get their gradients of (result * weight).sum()."""
    leaves = {k: (v.clone().requires_grad_() if v.is_floating_point() else v) for k, v in inputs.items()}
    out = fn(**leaves)
    entry = {"name": name, "op": op, "inputs": {k: enc(v) for k, v in inputs.items()}, "args": args,
             "outputs": [enc(out.detach())]}
    if out.is_floating_point() and any(v.requires_grad for v in leaves.values()):
        weight = torch.linspace(-1.0, 2.0, out.numel(), dtype=torch.float64).to(out.dtype).view(out.shape)
        (out * weight).sum().backward()
        entry["inputs"]["weight"] = enc(weight)
        entry["grads"] = {k: enc(v.grad) for k, v in leaves.items() if v.requires_grad and v.grad is not None}
    CASES.append(entry)


def randn(*shape, dtype=torch.float32):
    return torch.randn(shape, dtype=torch.float64).to(dtype)


def index_cases():
    for dtype in (torch.float32, torch.float64):
        d = DTYPES[dtype]
        x = randn(3, 5, dtype=dtype)
        for dim in (0, 1, -1):
            size = x.shape[dim]
            idx = torch.randint(0, size, (2, 4) if dim == 0 else (3, 7))
            case(f"gather {d} dim {dim}", "gather", {"self": x, "index": idx}, {"dim": dim},
                 lambda self, index, dim=dim: torch.gather(self, dim, index))
        y = randn(4, 3, 5, dtype=dtype)
        idx = torch.randint(0, 5, (2, 3, 3))
        case(f"gather {d} 3-d smaller index", "gather", {"self": y, "index": idx}, {"dim": 2},
             lambda self, index: torch.gather(self, 2, index))
        # scatter: indices distinct along dim within each slice (a permutation's first entries)
        idx = torch.stack([torch.randperm(5)[:3] for _ in range(3)])  # (3, 3) along dim 1
        src = randn(3, 3, dtype=dtype)  # PyTorch 1.13's src gradient fails for a src larger than index
        case(f"scatter {d}", "scatter", {"self": x, "index": idx, "src": src}, {"dim": 1},
             lambda self, index, src: torch.scatter(self, 1, index, src))
        idx0 = torch.stack([torch.randperm(3)[:2] for _ in range(5)], 1)  # (2, 5) along dim 0
        case(f"scatter {d} dim 0", "scatter", {"self": x, "index": idx0, "src": randn(2, 5, dtype=dtype)}, {"dim": 0},
             lambda self, index, src: torch.scatter(self, 0, index, src))
        case(f"scatter {d} larger src", "scatter", {"self": x, "index": idx0, "src": randn(3, 6, dtype=dtype)},
             {"dim": 0}, lambda self, index, src: torch.scatter(self, 0, index, src.detach()))
        rep = torch.randint(0, 5, (3, 6))
        src = torch.randint(-8, 8, (3, 6)).to(dtype) / 4  # exact sums whatever the order
        case(f"scatter_add {d} repeats", "scatter_add", {"self": x, "index": rep, "src": src}, {"dim": 1},
             lambda self, index, src: torch.scatter_add(self, 1, index, src))
        for idtype in (torch.int64, torch.int32):
            index = torch.tensor([4, 0, 4, 2], dtype=idtype)
            source = torch.randint(-8, 8, (3, 4)).to(dtype) / 4
            case(f"index_add {d} {DTYPES[idtype]} index alpha", "index_add",
                 {"self": x, "index": index, "source": source}, {"dim": 1, "alpha": 2.0},
                 lambda self, index, source: torch.index_add(self, 1, index, source, alpha=2.0))
        case(f"index_add {d} dim 0", "index_add",
             {"self": x, "index": torch.tensor([2, 2]), "source": randn(2, 5, dtype=dtype)}, {"dim": 0, "alpha": 1.0},
             lambda self, index, source: torch.index_add(self, 0, index, source))
        mask = torch.rand(3, 5) > 0.5
        case(f"masked_fill {d}", "masked_fill", {"self": x, "mask": mask}, {"value": -2.5},
             lambda self, mask: torch.masked_fill(self, mask, -2.5))
        case(f"masked_fill {d} broadcast mask", "masked_fill", {"self": x, "mask": torch.tensor([True, False, True, True, False])},
             {"value": 7.0}, lambda self, mask: torch.masked_fill(self, mask, 7.0))
        case(f"masked_fill {d} broadcast self", "masked_fill", {"self": randn(5, dtype=dtype), "mask": mask},
             {"value": 0.5}, lambda self, mask: torch.masked_fill(self, mask, 0.5))
        case(f"take_along_dim {d} broadcast", "take_along_dim", {"self": y, "indices": torch.randint(0, 5, (4, 1, 2))},
             {"dim": 2}, lambda self, indices: torch.take_along_dim(self, indices, 2))
        case(f"take_along_dim {d} flat", "take_along_dim", {"self": x, "indices": torch.tensor([[14, 0], [3, 3]])}, {},
             lambda self, indices: torch.take_along_dim(self, indices))
    ints = torch.randint(-50, 50, (3, 5))
    case("gather int64", "gather", {"self": ints, "index": torch.randint(0, 3, (3, 5))}, {"dim": 0},
         lambda self, index: torch.gather(self, 0, index))
    case("scatter_add int64", "scatter_add", {"self": ints, "index": torch.randint(0, 5, (3, 9)),
                                              "src": torch.randint(-9, 9, (3, 9))}, {"dim": 1},
         lambda self, index, src: torch.scatter_add(self, 1, index, src))
    case("masked_fill int64", "masked_fill", {"self": ints, "mask": torch.rand(3, 5) > 0.5}, {"value": 9},
         lambda self, mask: torch.masked_fill(self, mask, 9))
    case("masked_fill bool", "masked_fill", {"self": torch.rand(3, 5) > 0.5, "mask": torch.rand(3, 5) > 0.5},
         {"value": True}, lambda self, mask: torch.masked_fill(self, mask, True))


def creation_cases():
    for dtype in (torch.float32, torch.float64, torch.int64):
        d = DTYPES[dtype]
        for start, end, steps in ((0, 1, 5), (-3.5, 7, 11), (5, -5, 17), (2, 2, 4), (1, 3, 1), (0, 1, 0), (-1, 1, 100),
                                  (0.1, 7.3, 1000), (-3, 1000, 333)):
            case(f"linspace {d} {start} {end} {steps}", "linspace", {}, {"start": start, "end": end, "steps": steps,
                 "dtype": d}, lambda: torch.linspace(start, end, steps, dtype=dtype))
        for start, end, steps, base in ((0, 2, 5, 10.0), (-2, 2, 9, 10.0), (0, 10, 11, 2.0), (1, 3, 1, 3.0), (0, 3, 7, 2.5)):
            case(f"logspace {d} {start} {end} {steps} base {base}", "logspace", {},
                 {"start": start, "end": end, "steps": steps, "base": base, "dtype": d},
                 lambda: torch.logspace(start, end, steps, base, dtype=dtype))
    for n, m in ((0, 0), (3, 3), (4, 2), (1, 5)):
        case(f"eye {n} {m}", "eye", {}, {"n": n, "m": m}, lambda: torch.eye(n, m))


def indexing_cases():
    x = randn(3, 4, 5)
    calls = {
        "x[1]": lambda x: x[1],
        "x[-1]": lambda x: x[-1],
        "x[:, 1]": lambda x: x[:, 1],
        "x[1:, None, ...]": lambda x: x[1:, None, ...],
        "x[::2, -1]": lambda x: x[::2, -1],
        "x[..., 1:4:2]": lambda x: x[..., 1:4:2],
        "x[None, :, 2, None]": lambda x: x[None, :, 2, None],
        "x[:2, 3, -2:]": lambda x: x[:2, 3, -2:],
        "x[1, 2, 3]": lambda x: x[1, 2, 3],
        "x[-10:10]": lambda x: x[-10:10],
        "x[..., None]": lambda x: x[..., None],
    }
    for name, fn in calls.items():
        case(name, "index", {"self": x}, {}, lambda self, fn=fn: fn(self))


def advanced_indexing_cases():
    """Tensor indices (aten::index) and writes through them (index_put_), by the C++ test's names."""
    for dtype in (torch.float32, torch.float64):
        d = DTYPES[dtype]
        t = {"self": randn(3, 4, 5, dtype=dtype), "mask": torch.rand(3, 4) > 0.5, "mask1": torch.tensor([True, False, True]),
             "mask4": torch.tensor([False, True, True, False]), "idx": torch.tensor([2, 0, 2]),
             "idx4": torch.tensor([[3, 0, -1], [1, 1, 2]]), "idx5": torch.tensor([4, -5, 0]), "one": torch.tensor([1]),
             "yes": torch.tensor(True), "no": torch.tensor(False), "two": torch.tensor(2)}
        reads = {
            "x[mask]": lambda self, mask, **_: self[mask],
            "x[mask1]": lambda self, mask1, **_: self[mask1],
            "x[1:, mask4]": lambda self, mask4, **_: self[1:, mask4],
            "x[idx]": lambda self, idx, **_: self[idx],
            "x[:, idx4]": lambda self, idx4, **_: self[:, idx4],
            "x[idx, one]": lambda self, idx, one, **_: self[idx, one],
            "x[idx, :, idx5]": lambda self, idx, idx5, **_: self[idx, :, idx5],
            "x[..., idx5]": lambda self, idx5, **_: self[..., idx5],
            "x[None, idx]": lambda self, idx, **_: self[None, idx],
            "x[-1, idx4]": lambda self, idx4, **_: self[-1, idx4],
            "x[True]": lambda self, **_: self[True],
            "x[False]": lambda self, **_: self[False],
            "x[:, True, idx]": lambda self, idx, **_: self[:, True, idx],
            "x[yes]": lambda self, yes, **_: self[yes],
            "x[1, no]": lambda self, no, **_: self[1, no],
            "x[two, idx4]": lambda self, two, idx4, **_: self[two, idx4],
        }
        for name, fn in reads.items():
            case(f"{name} {d}", "index", t, {}, fn)

        def put(key, values, accumulate=False):
            def fn(self, values, **named):
                out = self.clone()
                if accumulate:
                    return out.index_put_((named["idx"],), values, accumulate=True)
                out[tuple(slice(None) if k == ":" else named[k] for k in key)] = values
                return out
            return fn
        writes = {
            "x[idx2] = v": (("idx2",), randn(2, 4, 5, dtype=dtype), False),
            "x[mask] = v5": (("mask",), randn(5, dtype=dtype), False),
            "x[:, idx4] = v": ((":", "idx4"), randn(3, 2, 3, 5, dtype=dtype), False),
            "x[idx, :, idx5] = v4": (("idx", ":", "idx5"), randn(4, dtype=dtype), False),
            "x.index_put_((idx,), v, accumulate=True)": (("idx",), randn(3, 4, 5, dtype=dtype), True),
            "x[yes, idx] = v": (("yes", "idx"), randn(4, 5, dtype=dtype), False),
        }
        for name, (key, values, accumulate) in writes.items():
            inputs = dict(t, values=values, idx2=torch.tensor([2, 0]))
            case(f"{name} {d}", "index_put", inputs, {}, put(key, values, accumulate))


def overload_cases():
    """The overloads ATen names apart: scatter.value, masked_fill.Tensor, pow.Scalar (a number base)."""
    x = randn(3, 5)
    idx = torch.tensor([[4, 0], [1, 1], [2, 3]])
    case("scatter value", "scatter_value", {"self": x, "index": idx}, {"dim": 1, "value": -2.5},
         lambda self, index: self.scatter(1, index, -2.5))
    case("masked_fill tensor", "masked_fill_tensor", {"self": x, "mask": torch.rand(3, 5) > 0.5,
         "value": torch.tensor(0.75)}, {}, lambda self, mask, value: self.masked_fill(mask, value))
    for base in (2, 2.5, 0):
        for exponent in (randn(4, dtype=torch.float64), torch.tensor([0.0, 1.0, -1.0, 2.5]), torch.tensor([0, 1, 3])):
            case(f"pow {base} {DTYPES[exponent.dtype]} {exponent.tolist()}", "pow_scalar", {"exponent": exponent},
                 {"base": base}, lambda exponent, base=base: torch.pow(base, exponent))


def main():
    torch.manual_seed(0)
    index_cases()
    creation_cases()
    indexing_cases()
    advanced_indexing_cases()
    overload_cases()
    here = os.path.dirname(os.path.abspath(__file__))
    write_cases(os.path.join(here, "data", "index_cases.json"), "tests/ops/gen_index_cases.py", CASES)


if __name__ == "__main__":
    main()
