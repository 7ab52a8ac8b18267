#!/usr/bin/python3
"""examples/train_digits_pt.py — the PyTorch 1.13 partner of examples/train_digits.cpp: the same CNN from
the same initial weights, on the same split, in the same batch order, with the same hyper-parameters,
all read from the file `train_digits --export-init PATH` writes. Prints the same per-epoch lines.

    /usr/bin/python3 examples/train_digits_pt.py PATH [--bf16]

--bf16 runs the forward passes and the loss under torch.autocast("cpu", dtype=torch.bfloat16), as
`train_digits --bf16` runs them under tl::autocast.
"""
import json
import struct
import sys
import time

import numpy as np
import torch
from sklearn.datasets import load_digits

TARGET_ACCURACY = 97.0  # percent, as the C++ example
DTYPES = {"F32": np.float32, "I64": np.int64}


def load_safetensors(path):
    """({name: tensor}, metadata) of a safetensors file: 8-byte little-endian header length, JSON
    header, raw little-endian data (only the dtypes train_digits writes)."""
    with open(path, "rb") as f:
        blob = f.read()
    (header_len,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + header_len])
    metadata = header.pop("__metadata__", {})
    base = 8 + header_len
    tensors = {}
    for name, entry in header.items():
        if entry["dtype"] not in DTYPES:
            sys.exit(f"train_digits_pt: {path}: tensor {name} has dtype {entry['dtype']}, expected F32 or I64")
        begin, end = entry["data_offsets"]
        array = np.frombuffer(blob[base + begin:base + end], dtype=DTYPES[entry["dtype"]])
        tensors[name] = torch.from_numpy(array.reshape(entry["shape"]).copy())
    return tensors, metadata


def digits_cnn():
    """The C++ example's model; its state-dict names are the same (0.*, 2.*, 6.*)."""
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
        torch.nn.Linear(32 * 4 * 4, 10))


def bar(done, total):
    filled = done * 30 // total
    return "[" + "#" * filled + " " * (30 - filled) + "]"


def accuracy(model, images, labels, bf16):
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        correct = (model(images).argmax(1) == labels).sum().item()
    model.train()
    return 100.0 * correct / len(labels)


def main():
    args = sys.argv[1:]
    bf16 = "--bf16" in args
    if bf16:
        args.remove("--bf16")
    if len(args) != 1:
        sys.exit("usage: train_digits_pt.py PATH [--bf16] (PATH: the file `train_digits --export-init PATH` writes)")
    torch.set_num_threads(2)
    tensors, meta = load_safetensors(args[0])
    epochs, batch_size = int(meta["epochs"]), int(meta["batch_size"])

    digits = load_digits()
    images = torch.from_numpy(digits.images.astype(np.float32) / 16).unsqueeze(1)  # (1797, 1, 8, 8)
    labels = torch.from_numpy(digits.target.astype(np.int64))
    train_idx, test_idx = tensors["train_indices"], tensors["test_indices"]
    train_x, train_y = images[train_idx], labels[train_idx]
    test_x, test_y = images[test_idx], labels[test_idx]
    order = tensors["train_order"]  # (epochs, n_train): positions in train_idx
    if order.shape != (epochs, len(train_idx)):
        sys.exit(f"train_digits_pt: train_order has shape {tuple(order.shape)}, expected ({epochs}, {len(train_idx)})")

    model = digits_cnn()
    model.load_state_dict({name[len("model."):]: t for name, t in tensors.items() if name.startswith("model.")})
    opt = torch.optim.SGD(model.parameters(), lr=float(meta["lr"]), momentum=float(meta["momentum"]))
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    criterion = torch.nn.CrossEntropyLoss()
    terminal = sys.stdout.isatty()
    batches = (len(train_idx) + batch_size - 1) // batch_size
    acc = 0.0
    for epoch in range(epochs):
        label = f"epoch {epoch + 1:2d}/{epochs}"
        start = time.perf_counter()
        loss_sum = 0.0
        for b in range(batches):
            rows = order[epoch, b * batch_size:(b + 1) * batch_size]
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                loss = criterion(model(train_x[rows]), train_y[rows])
            loss.backward()
            opt.step()
            loss_sum += loss.item() * len(rows)
            if terminal:
                print(f"\r{label} {bar(b + 1, batches)}", end="", flush=True)
        sched.step()
        seconds = time.perf_counter() - start
        acc = accuracy(model, test_x, test_y, bf16)
        print(f"\r{label} {bar(1, 1)} loss {loss_sum / len(train_idx):.4f}  test acc {acc:.2f}%  "
              f"{len(train_idx) / seconds:.0f} img/s  {seconds:.3f} s", flush=True)
    print(f"final test accuracy {acc:.2f}% (target {TARGET_ACCURACY:.0f}%)")
    return 0 if acc >= TARGET_ACCURACY else 1


if __name__ == "__main__":
    sys.exit(main())
