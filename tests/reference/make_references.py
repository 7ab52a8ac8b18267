#!/usr/bin/env python3
"""Regenerates the PyTorch reference texts the printing tests compare with (tests/reference/*.txt):
print(model), print(graph) and gm.code of torchvision's ResNet18, and the conv/batch-norm fuser
tutorial's toy model printed, traced and fused. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_references.py"""
import copy
import pathlib
from typing import Dict, Iterable, Tuple

import torch
import torch.fx as fx
import torchvision
from torch import nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

HERE = pathlib.Path(__file__).resolve().parent


class WrappedBatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.mod = nn.BatchNorm2d(1)

    def forward(self, x):
        return self.mod(x)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 1, 1)
        self.bn1 = nn.BatchNorm2d(1)
        self.conv2 = nn.Conv2d(1, 1, 1)
        self.nested = nn.Sequential(nn.BatchNorm2d(1), nn.Conv2d(1, 1, 1))
        self.wrapped = WrappedBatchNorm()

    def forward(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.conv2(x)
        x = self.nested(x)
        x = self.wrapped(x)
        return x


def _parent_name(target: str) -> Tuple[str, str]:
    *parent, name = target.rsplit(".", 1)
    return parent[0] if parent else "", name


def replace_node_module(node: fx.Node, modules: Dict[str, nn.Module], new_module: nn.Module):
    parent_name, name = _parent_name(node.target)
    setattr(modules[parent_name], name, new_module)


def fuse(model: nn.Module) -> nn.Module:
    """The tutorial's fuser: fold every BatchNorm2d that follows a Conv2d into it."""
    model = copy.deepcopy(model)
    fx_model: fx.GraphModule = fx.symbolic_trace(model)
    modules = dict(fx_model.named_modules())
    for node in fx_model.graph.nodes:
        if node.op != "call_module":
            continue
        if type(modules[node.target]) is nn.BatchNorm2d and type(modules[node.args[0].target]) is nn.Conv2d:
            if len(node.args[0].users) > 1:
                continue
            conv = modules[node.args[0].target]
            bn = modules[node.target]
            replace_node_module(node.args[0], modules, fuse_conv_bn_eval(conv, bn))
            node.replace_all_uses_with(node.args[0])
            fx_model.graph.erase_node(node)
    fx_model.graph.lint()
    fx_model.recompile()
    return fx_model


def toy_fuser_text() -> str:
    model = M().eval()
    fused = fuse(model)
    return (f"print(model):\n{model}\n\n"
            f"print(symbolic_trace(model).graph):\n{fx.symbolic_trace(model).graph}\n\n"
            f"symbolic_trace(model).code:\n{fx.symbolic_trace(model).code}\n\n"
            f"fuse(model).code:\n{fused.code}\n\n"
            f"print(fuse(model).graph):\n{fused.graph}\n")


def main():
    rn18 = torchvision.models.resnet18()
    traced = fx.symbolic_trace(rn18)
    texts = {
        "resnet18_repr.txt": f"{rn18}\n",
        "resnet18_graph.txt": f"{traced.graph}\n",
        "resnet18_code.txt": traced.code,
        "toy_fuser_model.txt": toy_fuser_text(),
    }
    for name, text in texts.items():
        (HERE / name).write_text(text)
        print(f"wrote {HERE / name} ({len(text)} characters)")


if __name__ == "__main__":
    main()
