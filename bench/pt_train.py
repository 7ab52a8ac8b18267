#!/usr/bin/python3
"""PyTorch 1.13 side of bench/bench_train: torchvision ResNet18 training steps at 224x224 in eager mode
(train mode, CrossEntropyLoss, SGD lr 0.01 momentum 0.9 weight_decay 1e-4) on one fixed synthetic batch.
Prints the step's and each phase's medians and one `RESULT bench=train ...` line with bench_train's keys
and the BLAS and allocator the process ran with (bench/pt_env.py); run one variant per process, once per
environment (bench/train_compare does, through bench/pt_env.py) so that its peak RSS is its own. Run with
/usr/bin/python3.

usage: pt_train.py [--variant nchw|channels_last] [--precision fp32|bf16] [--batch 8] [--warmup 3] [--runs 10]
                   [--threads 2]
bf16 runs the forward and the loss under torch.autocast("cpu", dtype=torch.bfloat16)."""
import argparse, resource, statistics, sys, time

import torch, torch.nn as nn, torchvision

import pt_env

CLASSES = 1000


def step(model, opt, criterion, x, labels, bf16):
    """One step (zero_grad, forward + loss, backward, optimizer step): (total, forward, backward,
    optimizer) in ms and the loss. zero_grad sets grads to None, as torchless's zero_grad does."""
    t0 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    t1 = time.perf_counter()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        loss = criterion(model(x), labels)
    t2 = time.perf_counter()
    loss.backward()
    t3 = time.perf_counter()
    opt.step()
    t4 = time.perf_counter()
    return [(t4 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3], loss.item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--variant', choices=['nchw', 'channels_last'], default='nchw')
    ap.add_argument('--precision', choices=['fp32', 'bf16'], default='fp32')
    ap.add_argument('--batch', type=int, default=8)
    ap.add_argument('--warmup', type=int, default=3)
    ap.add_argument('--runs', type=int, default=10)
    ap.add_argument('--threads', type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=CLASSES).train()
    x = torch.randn(a.batch, 3, 224, 224)
    labels = torch.randint(0, CLASSES, (a.batch,))
    if a.variant == 'channels_last':
        model = model.to(memory_format=torch.channels_last)
        x = x.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss()

    samples, losses = [], []
    for i in range(a.warmup + a.runs):
        ms, loss = step(model, opt, criterion, x, labels, a.precision == 'bf16')
        losses.append(loss)
        if i >= a.warmup:
            samples.append(ms)
    total, forward, backward, optimizer = ([s[k] for s in samples] for k in range(4))
    med = {name: statistics.median(v) for name, v in
           [('step', total), ('forward', forward), ('backward', backward), ('optimizer', optimizer)]}
    phases = med['forward'] + med['backward'] + med['optimizer']
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ran_with = pt_env.runtime()

    print(f"PyTorch {torch.__version__} ResNet18 training step, {a.variant}, {torch.get_num_threads()} threads, "
          f"BLAS {ran_with['blas']}, allocator {ran_with['allocator']}")
    print(f"\nbatch {a.batch}, {a.precision} ({a.warmup} warm-up, {a.runs} timed steps; ms)")
    print(f"  {'':16s} {'median':>9s} {'min':>9s} {'max':>9s} {'share':>9s}")
    print(f"  {'step':16s} {med['step']:9.1f} {min(total):9.1f} {max(total):9.1f}")
    for label, key, v in [('forward+loss', 'forward', forward), ('backward', 'backward', backward),
                          ('optimizer step', 'optimizer', optimizer)]:
        print(f"  {label:16s} {med[key]:9.1f} {min(v):9.1f} {max(v):9.1f} {100 * med[key] / phases:8.1f}%")
    print(f"  {a.batch / med['step'] * 1e3:.1f} img/s; loss {losses[0]:.4f} at the first step, {losses[-1]:.4f} "
          f"at the last; peak RSS {rss:.0f} MiB")
    print(f"RESULT bench=train impl=pytorch variant={a.variant} precision={a.precision} batch={a.batch} "
          f"median_ms={med['step']:.2f} min_ms={min(total):.2f} max_ms={max(total):.2f} forward_ms={med['forward']:.2f} "
          f"backward_ms={med['backward']:.2f} optimizer_ms={med['optimizer']:.2f} loss_first={losses[0]:.4f} "
          f"loss_last={losses[-1]:.4f} rss_mib={rss:.0f} blas={ran_with['blas']} allocator={ran_with['allocator']}",
          flush=True)


if __name__ == '__main__':
    sys.exit(main())
