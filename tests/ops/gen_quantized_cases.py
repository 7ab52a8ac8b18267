#!/usr/bin/python3
"""tests/ops/gen_quantized_cases.py — PyTorch 1.13's quantized tensors, for tests/ops/test_quantized.cpp.

Writes tests/ops/data/quantized_cases.json:
  "quantize": float32 inputs (ties k + 0.5 quanta, NaN, infinities, values past int32 and int64, random) with
    per-tensor or per-channel qparams, and PyTorch's int_repr() and dequantize() of the result;
  "print": print(q) of quantized tensors and of their views (flatten, t, select, slice);
  "to_bytes": float32 -> uint8 / int8 conversions (.to()), PyTorch's wrap-around included.
Floats are written as Python reprs ("nan", "inf" included); inputs are seeded, so a rerun writes the same file.
Usage: /usr/bin/python3 tests/ops/gen_quantized_cases.py
"""
import json
import os

import torch

torch.backends.quantized.engine = "onednn"
NAN, INF = float("nan"), float("inf")
QDTYPES = {torch.quint8: "quint8", torch.qint8: "qint8", torch.qint32: "qint32"}


def floats(t):
    return [repr(float(v)) for v in t.flatten().tolist()]


def ints(t):
    return [int(v) for v in t.flatten().tolist()]


def quantize_cases():
    torch.manual_seed(0)
    out = []
    specials = torch.tensor([NAN, INF, -INF, 1e10, -1e10, 3e9, -3e9, 1e20, -1e20, 1e30, 12345678.9, 123456789.0])
    for scale in [0.1, 0.3, 0.0235294117647, 1.0 / 3.0, 0.7, 1e-3]:
        ties = (torch.arange(-40, 40, dtype=torch.float64) + 0.5) * scale  # k + 0.5 quanta, in double first
        x = torch.cat([ties.float(), specials, torch.randn(200) * 5, torch.randn(60) * 300])
        for dtype, zero_point in [(torch.quint8, 10), (torch.quint8, 0), (torch.qint8, -3), (torch.qint8, 0),
                                  (torch.qint32, 7)]:
            q = torch.quantize_per_tensor(x, scale, zero_point, dtype)
            out.append({"name": f"per_tensor scale={scale!r} {QDTYPES[dtype]} zp={zero_point}", "dtype": QDTYPES[dtype],
                        "shape": list(x.shape), "input": floats(x), "scales": [repr(scale)],
                        "zero_points": [zero_point], "axis": -1, "int_repr": ints(q.int_repr()),
                        "dequantized": floats(q.dequantize())})
    for axis, shape in [(0, (4, 3, 5)), (1, (2, 4, 6)), (2, (3, 2, 4))]:
        x = torch.randn(shape) * 4
        x.view(-1)[:3] = torch.tensor([NAN, INF, -INF])
        channels = shape[axis]
        scales = torch.tensor([0.05 * (c + 1) for c in range(channels)], dtype=torch.float64)
        for dtype in [torch.qint8, torch.quint8, torch.qint32]:
            zps = torch.tensor([(c * 3) % 7 - (3 if dtype != torch.quint8 else 0) for c in range(channels)])
            q = torch.quantize_per_channel(x, scales, zps, axis, dtype)
            out.append({"name": f"per_channel axis={axis} {QDTYPES[dtype]}", "dtype": QDTYPES[dtype], "shape": list(shape),
                        "input": floats(x), "scales": floats(scales), "zero_points": ints(zps), "axis": axis,
                        "int_repr": ints(q.int_repr()), "dequantized": floats(q.dequantize())})
    return out


def print_cases():
    torch.manual_seed(1)
    out = []
    x = torch.tensor([[-1.0, 0.0, 0.05, 0.15], [0.25, 1.0, 2.5, 100.0]])
    bases = {
        "per_tensor_quint8": torch.quantize_per_tensor(x, 0.1, 10, torch.quint8),
        "per_tensor_qint8": torch.quantize_per_tensor(torch.randn(3, 5), 0.0235294117647, -2, torch.qint8),
        "per_tensor_qint32": torch.quantize_per_tensor(torch.randn(6) * 1000, 0.001, 0, torch.qint32),
        "per_channel_qint8": torch.quantize_per_channel(torch.randn(3, 2, 2), torch.tensor([0.1, 0.2, 0.3]),
                                                        torch.tensor([0, 1, 2]), 0, torch.qint8),
        "per_tensor_large": torch.quantize_per_tensor(torch.randn(40, 30), 0.05, 128, torch.quint8),
    }
    views = {"flatten": lambda q: q.flatten(), "t": lambda q: q.t(), "select": lambda q: q[1],
             "slice": lambda q: q[:, 1:3], "flatten1": lambda q: q.flatten(1)}
    for name, q in bases.items():
        scheme = q.qscheme()
        entry = {"name": name, "dtype": QDTYPES[q.dtype], "shape": list(q.shape), "int_repr": ints(q.int_repr()),
                 "scales": floats(q.q_per_channel_scales()) if scheme == torch.per_channel_affine else [repr(q.q_scale())],
                 "zero_points": ints(q.q_per_channel_zero_points()) if scheme == torch.per_channel_affine
                 else [q.q_zero_point()],
                 "axis": q.q_per_channel_axis() if scheme == torch.per_channel_affine else -1,
                 "printed": str(q), "views": {}}
        for view, fn in views.items():
            if scheme == torch.per_channel_affine and view != "flatten1":
                continue  # PyTorch's per-channel views keep an axis that no longer fits (q[:, 1] has axis -1)
            if q.dim() == 1 and view != "flatten":
                continue
            entry["views"][view] = str(fn(q))
        out.append(entry)
    return out


def to_bytes_cases():
    x = torch.tensor([-1.0, 300.0, 2.7, -2.7, 255.9, 1e10, NAN, INF, -129.5, 128.0, -0.0, 0.5])
    return [{"input": floats(x), "uint8": ints(x.to(torch.uint8)), "int8": ints(x.to(torch.int8)),
             "uint8_from_int64": ints(torch.tensor([-3, 256, 1000, 7]).to(torch.uint8))}]


def main():
    data = {"quantize": quantize_cases(), "print": print_cases(), "to_bytes": to_bytes_cases()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "quantized_cases.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"wrote {path}: {len(data['quantize'])} quantize cases, {len(data['print'])} print cases")


if __name__ == "__main__":
    main()
