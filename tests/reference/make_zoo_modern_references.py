#!/usr/bin/env python3
"""Writes what tests/models/test_{efficientnet_v2,regnet,convnext}.cpp compare with, for torchvision 0.14's
EfficientNetV2, RegNet and ConvNeXt builders, without any weights, by make_zoo_mobile_references.py's rules
(print(model), state_dict keys, shapes, sums and sums of squares after torch.manual_seed(0), eval logits once
the BatchNorms are set by bn_rule, torch.fx's code per family). ConvNeXt's LayerNorms and layer_scale are set
by layer_norm_rule too: at their init (layer_scale 1e-6) the blocks would not reach the logits. Run with
Debian's PyTorch 1.13:  /usr/bin/python3 tests/reference/make_zoo_modern_references.py"""
import pathlib
import sys

import torch
import torchvision.models as tvm

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_zoo_mobile_references import SEED, write_builder  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent / "zoo_modern"

FAMILIES = {
    "efficientnet_v2": ["efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"],
    "regnet": ["regnet_x_400mf", "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf", "regnet_x_16gf",
               "regnet_x_32gf", "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf", "regnet_y_8gf",
               "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf"],
    "convnext": ["convnext_tiny", "convnext_small", "convnext_base", "convnext_large"],
}
CHEAPEST = {"efficientnet_v2_s", "regnet_x_400mf", "regnet_y_400mf", "convnext_tiny"}
TRACED = CHEAPEST


def layer_norm_rule(model):
    """The k-th LayerNorm (LayerNorm2d included; named_modules order), element c: weight 1 + 0.2 sin(0.5c + 3k),
    bias 0.1 cos(0.9c + k); the j-th CNBlock's layer_scale, channel c: 0.5 + 0.25 sin(0.3c + j)."""
    k = j = 0
    with torch.no_grad():
        for _, m in model.named_modules():
            if isinstance(m, torch.nn.LayerNorm):
                c = torch.arange(m.weight.numel(), dtype=torch.float64)
                m.weight.copy_(1.0 + 0.2 * torch.sin(0.5 * c + 3 * k))
                m.bias.copy_(0.1 * torch.cos(0.9 * c + k))
                k += 1
            elif hasattr(m, "layer_scale"):
                c = torch.arange(m.layer_scale.numel(), dtype=torch.float64)
                m.layer_scale.copy_((0.5 + 0.25 * torch.sin(0.3 * c + j)).reshape(m.layer_scale.shape))
                j += 1


def main():
    OUT.mkdir(exist_ok=True)
    torch.set_num_threads(2)
    only = set(sys.argv[1:])
    for family, names in FAMILIES.items():
        for name in names:
            if only and name not in only:
                continue
            torch.manual_seed(SEED)
            write_builder(OUT, name, getattr(tvm, name)(), name in CHEAPEST, name in TRACED,
                          layer_norm_rule if family == "convnext" else None)


if __name__ == "__main__":
    main()
