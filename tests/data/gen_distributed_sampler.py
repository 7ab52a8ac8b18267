#!/usr/bin/python3
"""Writes distributed_sampler.json, the reference of tests/data/test_distributed_sampler.cpp: the indices PyTorch
1.13's torch.utils.data.distributed.DistributedSampler gives each rank, for sizes that divide evenly, need
padding (also more than one round of it) or cutting, with and without shuffle, for several seeds and epochs.
usage: /usr/bin/python3 tests/data/gen_distributed_sampler.py  (from the project root)"""
import json
import pathlib

from torch.utils.data.distributed import DistributedSampler

CASES = [  # (size, num_replicas, shuffle, seed, epoch, drop_last)
    (10, 2, True, 0, 0, False), (10, 3, True, 0, 0, False), (10, 3, True, 0, 0, True), (10, 3, False, 0, 0, False),
    (10, 3, False, 0, 0, True), (7, 4, True, 42, 3, False), (2, 5, True, 1, 0, False), (2, 5, True, 1, 0, True),
    (1797, 4, True, 0, 5, False), (100, 8, True, 2**31 - 1, 1, True), (0, 2, True, 0, 0, False),
]

out = []
for size, replicas, shuffle, seed, epoch, drop_last in CASES:
    ranks = []
    for rank in range(replicas):
        sampler = DistributedSampler(range(size), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                                     drop_last=drop_last)
        sampler.set_epoch(epoch)
        ranks.append(list(iter(sampler)))
        assert len(sampler) == len(ranks[-1])
    out.append({"size": size, "num_replicas": replicas, "shuffle": shuffle, "seed": seed, "epoch": epoch,
                "drop_last": drop_last, "ranks": ranks})
pathlib.Path("tests/data/distributed_sampler.json").write_text(json.dumps(out) + "\n")
