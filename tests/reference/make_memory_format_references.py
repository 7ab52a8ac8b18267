#!/usr/bin/env python3
"""Writes tests/reference/memory_format_strides.txt for tests/ops/test_memory_format.cpp: the strides of the result
PyTorch 1.13 gives convolutions and elementwise ops on channels-last, permuted, broadcast and sliced inputs (ATen's
_convolution lays its result out by the input's and weight's suggested memory format, TensorIterator by its inputs'
stride order). One line per case: "<name>: s0 s1 ...". The C++ test builds the same inputs (cl(n, c, h, w) is a
contiguous (n, h, w, c) tensor permuted to (n, c, h, w)); only the strides come from here, their values from ours.
Run with Debian's PyTorch 1.13:  /usr/bin/python3 tests/reference/make_memory_format_references.py"""
import pathlib

import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).resolve().parent / "memory_format_strides.txt"


def cl(n, c, h, w, dtype=torch.float32):
    return torch.randn(n, h, w, c, dtype=dtype).permute(0, 3, 1, 2)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


def cases():
    return [
        ("conv2d depthwise, channels-last input", F.conv2d(cl(2, 6, 5, 5), r(6, 1, 3, 3), r(6), 1, 1, 1, 6)),
        ("conv2d depthwise, contiguous input", F.conv2d(r(2, 6, 5, 5), r(6, 1, 3, 3), r(6), 1, 1, 1, 6)),
        ("conv2d, channels-last weight", F.conv2d(r(2, 4, 5, 5), cl(6, 4, 3, 3))),
        ("conv2d stride 2, channels-last input", F.conv2d(cl(2, 4, 6, 6), r(8, 4, 2, 2), stride=2)),
        ("conv2d, (N, C, 1, 1) input", F.conv2d(r(2, 4, 1, 1), r(6, 4, 1, 1))),
        ("conv2d float64, channels-last input",
         F.conv2d(cl(2, 4, 5, 5, torch.float64), r(6, 4, 3, 3, dtype=torch.float64))),
        ("conv2d unbatched, (H, W, C) permuted", F.conv2d(r(5, 5, 4).permute(2, 0, 1), r(6, 4, 3, 3))),
        ("conv1d, (N, L, C) transposed", F.conv1d(r(2, 7, 4).transpose(1, 2), r(6, 4, 3))),
        ("mul, per-channel by channels-last", r(6, 1, 1) * cl(2, 6, 5, 5)),
        ("mul, channels-last by per-channel", cl(2, 6, 5, 5) * r(6, 1, 1)),
        ("add, channels-last + channels-last", cl(2, 6, 5, 5) + cl(2, 6, 5, 5)),
        ("add, contiguous + channels-last", r(2, 6, 5, 5) + cl(2, 6, 5, 5)),
        ("add, channels-last + contiguous", cl(2, 6, 5, 5) + r(2, 6, 5, 5)),
        ("add, channels-last + number", cl(2, 6, 5, 5) + 1),
        ("sub, transposed matrix - row", r(5, 3).t() - r(5)),
        ("mul, permuted 3-D by number", r(3, 4, 5).permute(2, 0, 1) * 2),
        ("div, sliced by number", r(4, 6)[:, ::2] / 3),
        ("add, (N, C, 1, 1) channels-last + contiguous", cl(2, 6, 1, 1) + r(2, 6, 1, 1)),
    ]


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    lines = ["%s: %s" % (name, " ".join(str(s) for s in t.stride())) for name, t in cases()]
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
