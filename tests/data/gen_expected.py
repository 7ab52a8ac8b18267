#!/usr/bin/python3
"""Writes expected.txt, the reference for the data suite, from scikit-learn and PyTorch 1.13:
the digits' row count, class counts, first image and label (sklearn.datasets.load_digits), and the
split sizes torch.utils.data.random_split gives for fractions (which depend on no random draw).
usage: /usr/bin/python3 tests/data/gen_expected.py  (from the project root)"""
import pathlib

import torch
from sklearn.datasets import load_digits
from torch.utils.data import random_split

SPLITS = [(1797, [0.8, 0.1, 0.1]), (10, [0.3, 0.3, 0.4]), (11, [0.5, 0.5]), (7, [0.25, 0.25, 0.25, 0.25]),
          (5, [0.1, 0.9]), (3, [0.2, 0.2, 0.2, 0.2, 0.2])]

digits = load_digits()
lines = [f"rows {len(digits.target)}",
         "class_counts " + " ".join(str(int((digits.target == c).sum())) for c in range(10)),
         "first_image " + " ".join(str(int(v)) for v in digits.images[0].reshape(-1)),
         f"first_target {int(digits.target[0])}"]
generator = torch.Generator().manual_seed(0)
for n, fractions in SPLITS:
    sizes = [len(s) for s in random_split(range(n), fractions, generator=generator)]
    lines.append(f"split {n} " + ",".join(repr(f) for f in fractions) + " -> " + " ".join(map(str, sizes)))
(pathlib.Path(__file__).parent / "expected.txt").write_text("\n".join(lines) + "\n")
