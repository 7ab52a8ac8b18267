#!/usr/bin/env python3
"""Exports PyTorch reference data for tests/models/test_parity.cpp into OUT_DIR.

    /usr/bin/python3 tests/parity/export_torchvision.py OUT_DIR

For resnet18 and resnet50: ARCH.safetensors holds the state dict under torchvision's own key names
(random weights from a fixed seed; BatchNorm weight, bias, running_mean and running_var randomized),
ARCH_io.safetensors the input, PyTorch's eval-mode logits ("output") and the output of every
top-level stage ("stage.conv1" ... "stage.fc"), so a mismatch can be traced to one layer.
batch_norm2d_state.safetensors / batch_norm2d_train_io.safetensors hold one training-mode
BatchNorm2d forward with momentum 0.1: parameters and statistics before, output and statistics after.
resnet18_train.safetensors holds one training step of resnet18 (train mode, cross-entropy loss) from
resnet18.safetensors' weights: input, target, loss, the gradient of every parameter ("grad.NAME"), the
BatchNorm statistics after the forward ("after.NAME"), and the parameters after two steps of
SGD(lr=0.1, momentum=0.9, weight_decay=1e-4) on that batch ("step2.NAME").

Exit status 77 (meson's "skipped") when torch or torchvision cannot be imported, with the reason in
OUT_DIR/SKIPPED. Files are rewritten only when this script, the writer or the torch version changed.
"""
import hashlib
import os
import sys

SKIPPED = 77
HERE = os.path.dirname(os.path.abspath(__file__))
WRITER = os.path.join(HERE, "..", "..", "tools", "convert_torchvision.py")
STAGES = ["conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4", "avgpool", "fc"]
OUTPUTS = ["resnet18.safetensors", "resnet18_io.safetensors", "resnet50.safetensors",
           "resnet50_io.safetensors", "batch_norm2d_state.safetensors", "batch_norm2d_train_io.safetensors",
           "resnet18_train.safetensors"]


def randomize_batch_norms(model, gen):
    """Gives every BatchNorm2d random affine parameters and running statistics that differ per
    channel from both the defaults and the batch statistics. The statistics start from one
    training-mode pass over random data, so activations stay O(1) through all the blocks and fp32
    round-off stays well inside the test's tolerance; the weights are drawn below 1 for the same
    reason (with weights near 1, resnet50's fp32 logits already differ by ~0.5 of the tolerance
    between PyTorch's own mkldnn and native convolutions)."""
    import torch
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        for bn in bns:
            bn.weight.copy_(torch.rand(bn.num_features, generator=gen) * 0.5 + 0.25)
            bn.bias.copy_((torch.rand(bn.num_features, generator=gen) - 0.5) * 0.5)
            bn.momentum = None  # cumulative average: the stats of exactly the batch below
        model.train()
        model(torch.randn(2, 3, 160, 160, generator=gen))
        for i, bn in enumerate(bns):
            c = bn.num_features
            bn.running_mean += (torch.rand(c, generator=gen) - 0.5) * 0.2 * bn.running_var.sqrt()
            bn.running_var *= 1 + (torch.rand(c, generator=gen) - 0.5) * 0.4
            bn.num_batches_tracked.fill_(100 + i)
            bn.momentum = 0.1
    model.eval()


def make_resnet(arch):
    """The exported model: torchvision's initialization from seed 0, batch norms randomized."""
    import torch
    import torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, arch)()
    gen = torch.Generator().manual_seed(1)
    randomize_batch_norms(model, gen)
    return model, gen


def export_resnet(arch, out_dir, save):
    import torch
    model, gen = make_resnet(arch)
    stages = {}
    for name in STAGES:
        # Clone: the in-place ReLU that follows bn1 would overwrite a kept reference.
        getattr(model, name).register_forward_hook(
            lambda module, args, out, name=name: stages.__setitem__("stage." + name, out.detach().clone()))
    x = torch.randn(2, 3, 224, 224, generator=gen)
    with torch.no_grad():
        y = model(x)
    meta = {"arch": arch, "torch": torch.__version__}
    save(model.state_dict(), os.path.join(out_dir, arch + ".safetensors"), meta)
    save({"input": x, "output": y, **stages}, os.path.join(out_dir, arch + "_io.safetensors"), meta)
    print(f"{arch}: logits {tuple(y.shape)}, |max| {y.abs().max().item():.4f}")


def export_batch_norm_train(out_dir, save):
    import torch
    gen = torch.Generator().manual_seed(3)
    c = 5
    bn = torch.nn.BatchNorm2d(c, momentum=0.1)
    with torch.no_grad():
        bn.weight.copy_(torch.rand(c, generator=gen) + 0.5)
        bn.bias.copy_(torch.rand(c, generator=gen) - 0.5)
        bn.running_mean.copy_(torch.randn(c, generator=gen))
        bn.running_var.copy_(torch.rand(c, generator=gen) + 0.5)
        bn.num_batches_tracked.fill_(7)
    save(bn.state_dict(), os.path.join(out_dir, "batch_norm2d_state.safetensors"))
    x = torch.randn(3, c, 7, 6, generator=gen) * 2 + 0.5
    bn.train()
    with torch.no_grad():
        y = bn(x)
    stats_after = {k: v for k, v in bn.state_dict().items() if k not in ("weight", "bias")}
    save({"input": x, "output": y, **stats_after}, os.path.join(out_dir, "batch_norm2d_train_io.safetensors"))
    print(f"batch_norm2d (train): input {tuple(x.shape)}")


def export_resnet18_train(out_dir, save):
    """One training step from the weights export_resnet saved (small images keep it quick)."""
    import torch
    model, _ = make_resnet("resnet18")
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(4, 3, 64, 64, generator=gen)
    target = torch.randint(0, 1000, (4,), generator=gen)
    model.train()
    out = {"input": x, "target": target}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    for step in range(2):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        if step == 0:
            out["loss"] = loss.detach().reshape(1)
            out.update({"grad." + k: p.grad.clone() for k, p in model.named_parameters()})
            out.update({"after." + k: b.clone() for k, b in model.named_buffers()})
        optimizer.step()
    out.update({"step2." + k: p.detach().clone() for k, p in model.named_parameters()})
    save(out, os.path.join(out_dir, "resnet18_train.safetensors"), {"torch": torch.__version__})
    print(f"resnet18 (train step): loss {out['loss'].item():.6f}")


def read_text(path):
    with open(path) as f:
        return f.read()


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT_DIR")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    skip_note = os.path.join(out_dir, "SKIPPED")
    try:
        import torch
        import torchvision
    except ImportError as e:
        with open(skip_note, "w") as f:
            f.write(f"PyTorch reference not available: {sys.executable} "
                    f"cannot import torch/torchvision ({e})\n")
        print(f"SKIPPED: {e}")
        return SKIPPED
    if os.path.exists(skip_note):
        os.remove(skip_note)
    sys.path.insert(0, os.path.dirname(WRITER))
    from convert_torchvision import save_safetensors

    digest = hashlib.sha256()
    for path in (__file__, WRITER):
        with open(path, "rb") as f:
            digest.update(f.read())
    digest.update(f"{torch.__version__} {torchvision.__version__}".encode())
    stamp_path = os.path.join(out_dir, "STAMP")
    stamp = digest.hexdigest()
    if (os.path.exists(stamp_path) and read_text(stamp_path) == stamp
            and all(os.path.exists(os.path.join(out_dir, f)) for f in OUTPUTS)):
        print(f"{out_dir}: up to date")
        return 0
    for name in OUTPUTS + ["STAMP"]:
        if os.path.exists(os.path.join(out_dir, name)):
            os.remove(os.path.join(out_dir, name))
    export_resnet("resnet18", out_dir, save_safetensors)
    export_resnet("resnet50", out_dir, save_safetensors)
    export_batch_norm_train(out_dir, save_safetensors)
    export_resnet18_train(out_dir, save_safetensors)
    with open(stamp_path, "w") as f:
        f.write(stamp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
