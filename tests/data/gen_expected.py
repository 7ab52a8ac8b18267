#!/usr/bin/python3
"""Writes expected.txt, the reference for the data suite, from scikit-learn and PyTorch 1.13:
the digits' row count, class counts, first image and label (sklearn.datasets.load_digits), the
split sizes torch.utils.data.random_split gives for fractions (which depend on no random draw), and the
indices PyTorch's samplers and shuffling DataLoaders give for seeds 0, 1 and 2^31 - 1.
usage: /usr/bin/python3 tests/data/gen_expected.py  (from the project root)"""
import pathlib

import torch
from sklearn.datasets import load_digits
from torch.utils.data import (BatchSampler, DataLoader, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
                              random_split)

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

def seeded(seed):
    return torch.Generator().manual_seed(seed)


def ints(values):
    return " ".join(str(int(v)) for v in values)


for seed in (0, 1, 2**31 - 1):
    lines.append(f"random_sampler {seed} 10 10 " + ints(RandomSampler(range(10), generator=seeded(seed))))
    lines.append(f"random_sampler {seed} 4 10 " +
                 ints(RandomSampler(range(4), num_samples=10, generator=seeded(seed))))
    lines.append(f"random_sampler_replacement {seed} 7 40 " +
                 ints(RandomSampler(range(7), replacement=True, num_samples=40, generator=seeded(seed))))
    lines.append(f"subset_random_sampler {seed} " +
                 ints(SubsetRandomSampler([10, 20, 30, 40, 50, 60, 70], generator=seeded(seed))))
    lines.append(f"weighted_sampler {seed} replacement " +
                 ints(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 12, generator=seeded(seed))))
    lines.append(f"weighted_sampler {seed} once " +
                 ints(WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5, replacement=False,
                                            generator=seeded(seed))))
    loader = DataLoader(range(23), batch_size=5, shuffle=True, generator=seeded(seed))
    lines.append(f"loader_generator {seed} " + " | ".join(ints(torch.cat(list(loader))) for _ in range(2)))
    torch.manual_seed(seed)
    loader = DataLoader(range(23), batch_size=5, shuffle=True)
    lines.append(f"loader_default {seed} " + " | ".join(ints(torch.cat(list(loader))) for _ in range(2)))
(pathlib.Path(__file__).parent / "expected.txt").write_text("\n".join(lines) + "\n")
