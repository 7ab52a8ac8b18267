#!/usr/bin/env python3
"""Writes what tests/models/test_zoo_training.cpp compares with: one training step of torchvision 0.14's
mobilenet_v3_small, efficientnet_b0, regnet_y_400mf, convnext_tiny, vit_b_16 and swin_t, and of small
configurations of the VisionTransformer and SwinTransformer classes, without any weights (every value comes from
the seed). Per model, after torch.manual_seed(SEED): the builder with num_classes=10 and its dropout and stochastic
depth probabilities set to 0 (so training mode draws nothing; efficientnet_b0's classifier dropout after
construction where the builder passes its own, see no_drops), its weights set by the rule its logits test uses
(make_zoo_mobile_references.bn_rule for the BatchNorm nets, make_zoo_modern_references.layer_norm_rule for
convnext, make_zoo_inception_vit_references.head_rule for vit; the swins by none), in its dtype (MODELS), then in
training mode (BatchNorm normalising over the batch) on input_rule(2, size):
  loss = sum(logits * cos(class index)), backward, then torch.optim.SGD(lr=0.1, momentum=0.9, weight_decay=1e-4)
  .step(). <name>_train_step.txt: "input size n dtype", "loss v sum_of_|terms|" (the loss's scale: its terms
  cancel), then per parameter "key g_sum g_sum_of_squares w_sum w_sum_of_squares" of its gradient and of its
  updated value (each summed in double).
Run with Debian's PyTorch 1.13:  /usr/bin/python3 tests/reference/make_zoo_training_references.py [names]"""
import pathlib
import sys

import torch
import torchvision.models as tvm
from torchvision.models import VisionTransformer
from torchvision.ops import StochasticDepth

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_zoo_inception_vit_references import head_rule  # noqa: E402
from make_zoo_mobile_references import bn_rule, fmt, input_rule  # noqa: E402
from make_zoo_modern_references import layer_norm_rule  # noqa: E402
from make_zoo_swin_maxvit_references import SMALL, small_swin  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "zoo_training"
SEED = 0
BATCH = 2

def no_drops(model):
    """Every nn.Dropout's and StochasticDepth's p set to 0, for the builders that take no such argument (their own
    is passed on: efficientnet_b0's dropout, swin_t's stochastic_depth_prob)."""
    for m in model.modules():
        if isinstance(m, (torch.nn.Dropout, StochasticDepth)):
            m.p = 0.0
    return model


# name: (builder, input size, weight rule, dtype). The BatchNorm nets run in float64: at 64x64 their last stages'
# BatchNorms normalise over 8 values per channel, which puts PyTorch's own float32 gradients up to 1.7e-4
# (efficientnet_b0) and 14% (regnet_y_400mf) from its float64 ones; the others' float32 gradients are within 1e-6 of
# their float64 ones.
F64 = torch.float64
MODELS = {
    "mobilenet_v3_small": (lambda: tvm.mobilenet_v3_small(num_classes=10, dropout=0.0), 64, bn_rule, F64),
    "efficientnet_b0": (lambda: no_drops(tvm.efficientnet_b0(num_classes=10, stochastic_depth_prob=0.0)), 64,
                        bn_rule, F64),
    "regnet_y_400mf": (lambda: tvm.regnet_y_400mf(num_classes=10), 64, bn_rule, F64),
    "convnext_tiny": (lambda: tvm.convnext_tiny(num_classes=10, stochastic_depth_prob=0.0), 64, layer_norm_rule,
                      torch.float32),
    "vit_b_16": (lambda: tvm.vit_b_16(num_classes=10), 224, head_rule, torch.float32),
    "vit_small": (lambda: VisionTransformer(32, 8, 2, 2, 16, 32, num_classes=10), 32, head_rule, torch.float32),
    "swin_t": (lambda: no_drops(tvm.swin_t(num_classes=10)), 224, None, torch.float32),
    "swin_small": (lambda: small_swin(False, stochastic_depth_prob=0.0), SMALL, None, torch.float32),
    "swin_v2_small": (lambda: small_swin(True, stochastic_depth_prob=0.0), SMALL, None, torch.float32),
}


def training_step(name, make, size, rule, dtype):
    torch.manual_seed(SEED)
    model = make()
    if rule is not None:
        rule(model)
    model.to(dtype).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    y = model(input_rule(BATCH, size).to(dtype))
    terms = y * torch.cos(torch.arange(10, dtype=torch.float64)).to(dtype)
    loss = terms.sum()
    loss.backward()
    grads = {key: p.grad.double().clone() for key, p in model.named_parameters()}
    optimizer.step()
    lines = ["input %d %d %s" % (size, BATCH, str(dtype).replace("torch.", "")),
             "loss %s %s" % (fmt(loss.item()), fmt(terms.abs().sum().item()))]
    for key, p in model.named_parameters():
        g, w = grads[key], p.detach().double()
        lines.append("%s %s %s %s %s" % (key, fmt(g.sum().item()), fmt((g * g).sum().item()), fmt(w.sum().item()),
                                         fmt((w * w).sum().item())))
    (OUT / (name + "_train_step.txt")).write_text("\n".join(lines) + "\n")


def main():
    OUT.mkdir(exist_ok=True)
    torch.set_num_threads(2)
    only = set(sys.argv[1:])
    for name, (make, size, rule, dtype) in MODELS.items():
        if not only or name in only:
            training_step(name, make, size, rule, dtype)
            print(name, flush=True)


if __name__ == "__main__":
    main()
