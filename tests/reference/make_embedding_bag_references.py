#!/usr/bin/env python3
"""Regenerates tests/reference/embedding_bag.json, PyTorch 1.13's numbers for tests/nn/test_embedding_bag.cpp:
for EmbeddingBag (sum / mean / max, offsets or 2-D input, per_sample_weights, include_last_offset, padding_idx,
max_norm, scale_grad_by_freq, from_pretrained) and Embedding with max_norm, the weight a seed draws, the forward
values, the weight after the forward (max_norm renormalises it in place), the gradients of
sum(output * grad_output) with respect to the weight and the per-sample weights; the reprs and the error texts
of F.embedding_bag's misuse. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_embedding_bag_references.py"""
import json
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_rnn_references import enc, message  # noqa: E402  (one tensor encoding for the reference files)

CASES = [
    # kind, num_embeddings, dim, options, seed, input, offsets, with per_sample_weights, pretrained
    ("EmbeddingBag", 10, 3, {"mode": "sum"}, 0, [1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 2, 5], True, False),
    ("EmbeddingBag", 10, 3, {"mode": "mean", "padding_idx": 1}, 1, [[1, 2, 4], [5, 1, 1], [1, 1, 1], [0, 9, 9]],
     None, False, False),
    ("EmbeddingBag", 10, 4, {"mode": "max", "include_last_offset": True}, 2, [1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 5, 8],
     False, False),
    ("EmbeddingBag", 10, 4, {"mode": "max", "padding_idx": -2}, 2147483647, [[8, 2, 8], [8, 8, 8]], None, False,
     False),
    ("EmbeddingBag", 10, 3, {"mode": "sum", "scale_grad_by_freq": True}, 3, [[1, 2, 2], [2, 7, 1]], None, True, False),
    ("EmbeddingBag", 10, 3, {"mode": "mean", "max_norm": 1.0}, 4, [1, 2, 4, 5, 4, 3, 2, 9], [0, 4], False, False),
    ("EmbeddingBag", 6, 3, {"mode": "sum", "padding_idx": 0, "max_norm": 1.5, "norm_type": 1.0}, 5,
     [[0, 2, 3], [5, 0, 3]], None, True, True),
    ("Embedding", 10, 4, {"max_norm": 1.5, "norm_type": 1.0}, 6, [[1, 2, 2], [9, 1, 0]], None, False, False),
    ("Embedding", 10, 4, {"max_norm": 0.5, "padding_idx": 2}, 7, [1, 2, 3, 3], None, False, False),
]


def case_of(kind, n, d, options, seed, inp, offs, weighted, pretrained):
    torch.manual_seed(seed)
    if pretrained:
        m = getattr(nn, kind).from_pretrained(torch.randn(n, d), freeze=False, **options)
    else:
        m = getattr(nn, kind)(n, d, **options)
    weight = m.weight.detach().clone()
    gen = torch.Generator().manual_seed(900 + seed)
    x = torch.tensor(inp)
    offsets = torch.tensor(offs) if offs is not None else None
    psw = torch.randn(x.shape, generator=gen).requires_grad_() if weighted else None
    out = m(x) if kind == "Embedding" else m(x, offsets, psw)
    grad_output = torch.randn(out.shape, generator=gen)
    (out * grad_output).sum().backward()
    case = {"kind": kind, "num_embeddings": n, "embedding_dim": d, "options": options, "seed": seed,
            "pretrained": pretrained, "repr": repr(m), "weight": enc(weight), "input": enc(x),
            "offsets": enc(offsets), "per_sample_weights": enc(psw), "output": enc(out),
            "grad_output": enc(grad_output), "weight_after": enc(m.weight), "weight_grad": enc(m.weight.grad),
            "per_sample_weights_grad": enc(psw.grad) if weighted else None}
    return case


def first_line(f):
    """The error's first line: ATen prints offsets[0] as a 0-dim tensor on the lines after it."""
    try:
        f()
    except (RuntimeError, IndexError) as e:
        return str(e).splitlines()[0]
    raise SystemExit("expected an error")


def errors():
    w = torch.randn(10, 3)
    x = torch.tensor([1, 2, 4, 5])
    off = torch.tensor([0, 2])
    return {
        "offsets_start": first_line(lambda: F.embedding_bag(x, w, torch.tensor([1, 2]))),
        "offsets_end": message(lambda: F.embedding_bag(x, w, torch.tensor([0, 5]))),
        # mode max: sum and mean of float rows run caffe2's kernel, whose text names its source line
        "index_range": message(lambda: F.embedding_bag(torch.tensor([1, 10]), w, off, mode="max")),
        "renorm_range": first_line(lambda: F.embedding_bag(torch.tensor([1, 10]), w, off, max_norm=0.1)),
        "weights_mode": message(lambda: F.embedding_bag(x, w, off, mode="mean", per_sample_weights=torch.ones(4))),
        "weights_shape": message(lambda: F.embedding_bag(x, w, off, mode="sum", per_sample_weights=torch.ones(3))),
        "offsets_2d": message(lambda: F.embedding_bag(x.view(2, 2), w, off)),
        "offsets_none": message(lambda: F.embedding_bag(x, w)),
        "offsets_dim": message(lambda: F.embedding_bag(x, w, off.view(1, 2))),
        "input_dim": message(lambda: F.embedding_bag(x.view(1, 2, 2), w)),
        "mode": message(lambda: F.embedding_bag(x, w, off, mode="median")),
        "max_scale": message(lambda: F.embedding_bag(x, w, off, mode="max", scale_grad_by_freq=True)),
        "padding_range": message(lambda: F.embedding_bag(x, w, off, padding_idx=10)),
    }


def main():
    data = {"cases": [case_of(*c) for c in CASES], "errors": errors()}
    (HERE / "embedding_bag.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
