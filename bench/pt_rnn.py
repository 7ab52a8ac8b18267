#!/usr/bin/python3
"""PyTorch 1.13 side of bench/bench_rnn: the same LSTM cases (a cell step, a 2-layer LSTM forward under no_grad,
and its forward + backward), one JSON line per case with the median, min and max of the timed runs in ms.

usage: pt_rnn.py --warmup 3 --runs 20 --threads 2"""
import argparse, json, statistics, time

import torch
import torch.nn as nn


def timed(f, warmup, runs):
    for _ in range(warmup):
        f()
    ms = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        ms.append((time.perf_counter() - t0) * 1e3)
    return {"median_ms": statistics.median(ms), "min_ms": min(ms), "max_ms": max(ms)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    cell = nn.LSTMCell(256, 256)
    x, h, c = torch.randn(16, 256), torch.randn(16, 256), torch.randn(16, 256)
    lstm = nn.LSTM(64, 256, num_layers=2)
    seq = torch.randn(32, 16, 64)

    def cell_step():
        with torch.no_grad():
            cell(x, (h, c))

    def forward():
        with torch.no_grad():
            lstm(seq)

    def train_step():
        out, _ = lstm(seq)
        out.sum().backward()

    for name, f in [("cell_step", cell_step), ("forward", forward), ("forward_backward", train_step)]:
        print(json.dumps({"case": name, **timed(f, a.warmup, a.runs)}), flush=True)


if __name__ == "__main__":
    main()
