#!/usr/bin/env python3
"""Writes what tests/models/test_{googlenet,inception,vit}.cpp compare with, for torchvision 0.14's
googlenet, inception_v3 and vit_* builders, without any weights, in the format of
make_zoo_mobile_references.py (whose bn_rule and input_rule it reuses; tests/support/zoo_references.h
reads both): per builder print(model), the state_dict's keys and shapes with each tensor's sum and sum of
squares after torch.manual_seed(SEED) (construction draws, then the model's own init: trunc_normal_ for
googlenet and inception_v3, xavier_uniform_ / normal_ / trunc_normal_ for vit), eval logits once the
BatchNorms are set by bn_rule() (and vit's zero-initialised head by head_rule()) on inputs made by
input_rule(), and torch.fx's graph of googlenet and inception_v3 in training mode (as built) and in eval
mode; for those two also the
training-mode outputs (GoogLeNetOutputs / InceptionOutputs, dropout 0, batch statistics; in float64: with
batch 2, the aux heads' BatchNorms normalise over 2 values each, which amplifies fp32 rounding to 1e-4
of the output's scale in PyTorch's own fp32 result) and the eval
logits with transform_input=True (at the odd size), for 10 classes. Run with Debian's
PyTorch 1.13:  /usr/bin/python3 tests/reference/make_zoo_inception_vit_references.py"""
import math
import pathlib
import sys
import warnings

import torch
import torch.fx as fx
import torchvision.models as tvm

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_zoo_mobile_references import bn_rule, fmt, input_rule, write_logits, write_structure  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "zoo_inception_vit"
SEED = 0

# builder: (sizes its logits are computed at, batch 1 and 3 each). The CNNs at their full size and one
# odd size; vit only at its fixed image_size.
BUILDERS = {
    "googlenet": [67, 224],
    "inception_v3": [79, 299],
    "vit_b_16": [224],
    "vit_b_32": [224],
    "vit_l_16": [224],
    "vit_l_32": [224],
    "vit_h_14": [224],
}
TRACED = ["googlenet", "inception_v3"]
# The training-mode input size of those two: inception_v3's aux head needs Mixed_6e's output at 17x17 (299x299).
TRAIN_SIZE = {"googlenet": 67, "inception_v3": 299}


def head_rule(model):
    """vit's heads.head starts at zeros (its logits would be 0): weight[i, j] = 0.02 sin(0.37 (i * in + j) + 1),
    bias[i] = 0.01 cos(0.5 i), computed in double."""
    head = model.heads.head
    out_features, in_features = head.weight.shape
    with torch.no_grad():
        j = torch.arange(out_features * in_features, dtype=torch.float64)
        head.weight.copy_((0.02 * torch.sin(0.37 * j + 1.0)).reshape(out_features, in_features))
        head.bias.copy_(0.01 * torch.cos(0.5 * torch.arange(out_features, dtype=torch.float64)))


def variant_cases(name, odd):
    """<name>_train.txt: one line per output field, "field v v v ..."; <name>_transform_input_logits.txt as
    the logits files."""
    dropouts = {"dropout": 0.0, "dropout_aux": 0.0} if name == "googlenet" else {"dropout": 0.0}
    torch.manual_seed(SEED)
    model = getattr(tvm, name)(num_classes=10, **dropouts)
    bn_rule(model)
    model.double().train()
    with torch.no_grad():
        out = model(input_rule(2, TRAIN_SIZE[name]).double())
    lines = ["%s %s" % (field, " ".join(fmt(v) for v in value.flatten().tolist()))
             for field, value in zip(out._fields, out)]
    (OUT / (name + "_train.txt")).write_text("\n".join(lines) + "\n")
    torch.manual_seed(SEED)
    model = getattr(tvm, name)(num_classes=10, transform_input=True)
    bn_rule(model)
    model.eval()
    with torch.no_grad():
        y = model(input_rule(3, odd))
    (OUT / (name + "_transform_input_logits.txt")).write_text(
        "%d 3 10\n%s\n" % (odd, " ".join(fmt(v) for v in y.flatten().tolist())))


def main():
    OUT.mkdir(exist_ok=True)
    torch.set_num_threads(2)
    warnings.simplefilter("ignore")  # googlenet / inception_v3: init_weights=None's FutureWarning
    only = set(sys.argv[1:])
    for name, sizes in BUILDERS.items():
        if only and name not in only:
            continue
        torch.manual_seed(SEED)
        model = getattr(tvm, name)()
        write_structure(OUT, name, model)
        if name in TRACED:
            (OUT / (name + "_train_graph.txt")).write_text(str(fx.symbolic_trace(model).graph) + "\n")
        bn_rule(model)
        if name.startswith("vit"):
            head_rule(model)
        model.eval()
        if name in TRACED:
            variant_cases(name, sizes[0])
            (OUT / (name + "_graph.txt")).write_text(str(fx.symbolic_trace(model).graph) + "\n")
        write_logits(OUT, name, model, sizes)
        print(name, sum(p.numel() for p in model.parameters()), flush=True)


if __name__ == "__main__":
    main()
