#!/usr/bin/python3
"""examples/digits_mlp_cnn_pt.py — the PyTorch 1.13 twin of examples/digits_mlp_cnn.cpp, line for line: the
same seed gives the same split, weights, batch order and dropout masks, so both print the same losses.

    /usr/bin/python3 examples/digits_mlp_cnn_pt.py [--epochs N] [--seed S] [--num-workers W]
                                                   [--checkpoint-dir DIR] [--resume PATH] [--losses FILE]

--losses FILE writes the step lines ("epoch E step S loss L") alone: examples/digits_mlp_cnn_losses.txt
is `--epochs 3 --losses ...`, the reference `digits_mlp_cnn --check` compares against.
"""
import argparse
import collections
import os
import time

import numpy as np
import torch
from sklearn.datasets import load_digits
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, random_split

BATCH_SIZE = 32
MAX_LR = 0.01
MAX_GRAD_NORM = 1.0


def digits_mlp_cnn():
    """(N, 1, 8, 8) -> (N, 10): a CNN trunk, then an MLP head with dropout."""
    return nn.Sequential(collections.OrderedDict([
        ("conv1", nn.Conv2d(1, 16, 3, padding=1)),
        ("relu1", nn.ReLU()),
        ("pool", nn.MaxPool2d(2)),
        ("conv2", nn.Conv2d(16, 32, 3, padding=1)),
        ("relu2", nn.ReLU()),
        ("flatten", nn.Flatten()),
        ("fc1", nn.Linear(32 * 4 * 4, 64)),
        ("relu3", nn.ReLU()),
        ("dropout", nn.Dropout(0.25)),
        ("fc2", nn.Linear(64, 10)),
    ]))


def accuracy(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for images, labels in loader:
            correct += (model(images).argmax(1) == labels).sum().item()
    model.train()
    return 100.0 * correct / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--checkpoint-dir", default="")
    parser.add_argument("--resume", default="")
    parser.add_argument("--losses", default="")
    args = parser.parse_args()
    torch.set_num_threads(2)

    digits = load_digits()
    images = torch.from_numpy(digits.images.astype(np.float32)).unsqueeze(1) / 16  # (1797, 1, 8, 8)
    labels = torch.from_numpy(digits.target.astype(np.int64))
    train_set, test_set = random_split(TensorDataset(images, labels), [0.8, 0.2],
                                       generator=torch.Generator().manual_seed(args.seed))

    torch.manual_seed(args.seed)
    model = digits_mlp_cnn()
    train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True, num_workers=args.num_workers)
    test_loader = DataLoader(test_set, batch_size=512)
    optimizer = torch.optim.AdamW(model.parameters(), lr=MAX_LR)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=MAX_LR, epochs=args.epochs,
                                                    steps_per_epoch=len(train_loader))
    criterion = nn.CrossEntropyLoss()

    start_epoch = 0
    if args.resume:
        checkpoint = torch.load(args.resume)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scheduler.load_state_dict(checkpoint["scheduler"])
        torch.set_rng_state(checkpoint["rng_state"])
        start_epoch = checkpoint["epoch"]

    loss_lines = []
    for epoch in range(start_epoch, args.epochs):
        wait_first, wait_total, wait_max = 0.0, 0.0, 0.0  # the first batch waits for the workers to start
        started = time.perf_counter()
        batches = iter(train_loader)
        for step in range(1, len(train_loader) + 1):
            waited = time.perf_counter()
            images, labels = next(batches)
            waited = time.perf_counter() - waited
            if step == 1:
                wait_first = waited
            else:
                wait_total, wait_max = wait_total + waited, max(wait_max, waited)
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM)
            optimizer.step()
            scheduler.step()
            line = f"epoch {epoch + 1} step {step} loss {loss.item():.9g}"
            loss_lines.append(line)
            print(line)
        seconds = time.perf_counter() - started
        print(f"epoch {epoch + 1}/{args.epochs} test acc {accuracy(model, test_loader):.2f}%  {seconds:.3f} s  "
              f"data wait: first batch {1e3 * wait_first:.3f} ms, later {1e3 * wait_total:.3f} ms "
              f"(max {1e3 * wait_max:.3f} ms)", flush=True)
        if args.checkpoint_dir:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "rng_state": torch.get_rng_state(),
                        "epoch": epoch + 1}, os.path.join(args.checkpoint_dir, f"epoch{epoch + 1}.pt"))
    if args.losses:
        with open(args.losses, "w") as f:
            f.write("\n".join(loss_lines) + "\n")


if __name__ == "__main__":
    main()
