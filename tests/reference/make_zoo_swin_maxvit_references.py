#!/usr/bin/env python3
"""Writes what tests/models/test_{swin,maxvit}.cpp compare with, for torchvision 0.14's swin_t/s/b, swin_v2_t/s/b
and maxvit_t, without any weights, in the format of make_zoo_mobile_references.py (its bn_rule and input_rule;
tests/support/zoo_references.h reads the files): per builder print(model), the state_dict's keys and shapes
(relative_position_index and V2's relative_coords_table buffers included) with each tensor's sum and sum of squares
after torch.manual_seed(SEED), and eval logits of that model, its BatchNorms (maxvit's) set by bn_rule, at 224x224,
batch 1 and 3. Two small SwinTransformers (window 3, two stages) are written the same way at 45x45, where the
feature maps need padding to whole windows and the shifted windows' mask has padded rows, and a small MaxVit at
32x32; for the two small SwinTransformers also torch.fx's graph (torchvision's torch.fx.wrap'ped
shifted_window_attention, _get_relative_position_bias and _patch_merging_pad as call_function nodes); their training
step is make_zoo_training_references.py's. Run with
Debian's PyTorch 1.13:  /usr/bin/python3 tests/reference/make_zoo_swin_maxvit_references.py"""
import pathlib
import sys

import torch
import torch.fx as fx
import torchvision.models as tvm
from torchvision.models.maxvit import MaxVit
from torchvision.models.swin_transformer import PatchMergingV2, SwinTransformer, SwinTransformerBlockV2

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_zoo_mobile_references import bn_rule, write_logits, write_structure  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "zoo_swin_maxvit"
SEED = 0
SMALL = 45  # the small configs' input: 11x11 patches, padded to 12x12 for window 3


def small_swin(v2, **kwargs):
    """patch 4, embed_dim 16, depths [2, 2], heads [2, 4], window [3, 3], 10 classes."""
    extra = {"block": SwinTransformerBlockV2, "downsample_layer": PatchMergingV2} if v2 else {}
    return SwinTransformer([4, 4], 16, [2, 2], [2, 4], [3, 3], num_classes=10, **extra, **kwargs)


BUILDERS = {
    "swin_t": (lambda: tvm.swin_t(), 224),
    "swin_s": (lambda: tvm.swin_s(), 224),
    "swin_b": (lambda: tvm.swin_b(), 224),
    "swin_v2_t": (lambda: tvm.swin_v2_t(), 224),
    "swin_v2_s": (lambda: tvm.swin_v2_s(), 224),
    "swin_v2_b": (lambda: tvm.swin_v2_b(), 224),
    "swin_small": (lambda: small_swin(False), SMALL),
    "swin_v2_small": (lambda: small_swin(True), SMALL),
    "maxvit_t": (lambda: tvm.maxvit_t(), 224),
    "maxvit_small": (lambda: MaxVit((32, 32), 8, 2, [8, 16], [1, 2], 4, 0.1, num_classes=10), 32),
}
TRACED = ["swin_small", "swin_v2_small"]


def main():
    OUT.mkdir(exist_ok=True)
    torch.set_num_threads(2)
    only = set(sys.argv[1:])
    for name, (make, size) in BUILDERS.items():
        if only and name not in only:
            continue
        torch.manual_seed(SEED)
        model = make()
        write_structure(OUT, name, model)
        if name in TRACED:
            (OUT / (name + "_graph.txt")).write_text(str(fx.symbolic_trace(model).graph) + "\n")
        bn_rule(model)
        model.eval()
        write_logits(OUT, name, model, [size])
        print(name, sum(p.numel() for p in model.parameters()), flush=True)


if __name__ == "__main__":
    main()
