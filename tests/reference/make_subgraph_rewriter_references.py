#!/usr/bin/env python3
"""Regenerates tests/reference/subgraph_rewriter.json: torch.fx.subgraph_rewriter.replace_pattern in
PyTorch 1.13 on small modules (the replace_pattern docstring's example first), each as the traced code
before, the code after and the matches (pattern node name -> graph value). tests/fx/test_subgraph_rewriter.cpp
builds the same modules in C++ and compares. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_subgraph_rewriter_references.py"""
import json
import pathlib

import torch
from torch.fx import Node, subgraph_rewriter, symbolic_trace

HERE = pathlib.Path(__file__).resolve().parent


# The docstring's example: two cat-sum pairs become stacks.
class Docstring(torch.nn.Module):
    def forward(self, x, w1, w2):
        m1 = torch.cat([w1, w2]).sum()
        m2 = torch.cat([w1, w2]).sum()
        return x + torch.max(m1) + torch.max(m2)


def docstring_pattern(w1, w2):
    return torch.cat([w1, w2]).sum()


def docstring_replacement(w1, w2):
    return torch.stack([w1, w2])


# Three relus in a row: relu(relu(x)) matches twice, overlapping; only the first match is replaced.
class Chain(torch.nn.Module):
    def forward(self, x):
        return torch.relu(torch.relu(torch.relu(x)))


def double_relu(x):
    return torch.relu(torch.relu(x))


def sigmoid(x):
    return torch.sigmoid(x)


# The pattern's inner relu is also used outside the match: nothing is replaced.
class Leak(torch.nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        return torch.neg(y) + y


def neg_relu(x):
    return torch.neg(torch.relu(x))


# A placeholder matches a constant argument too: y stands for 2.0.
class Constant(torch.nn.Module):
    def forward(self, a):
        return a * 3.0 + 2.0


def add(x, y):
    return x + y


def sub(x, y):
    return torch.sub(x, y)


# Two returned values, two anchors: relu(x) and neg(x) of the same x.
class TwoAnchors(torch.nn.Module):
    def forward(self, x, y):
        return torch.relu(x) * torch.neg(x) + torch.relu(y) * torch.neg(x)


def relu_and_neg(x):
    return torch.relu(x), torch.neg(x)


def tanh_and_sigmoid(x):
    return torch.tanh(x), torch.sigmoid(x)


CASES = [
    ("docstring", Docstring, docstring_pattern, docstring_replacement),
    ("overlap", Chain, double_relu, sigmoid),
    ("leak", Leak, neg_relu, sigmoid),
    ("constant", Constant, add, sub),
    ("two_anchors", TwoAnchors, relu_and_neg, tanh_and_sigmoid),
]


def value(v):
    return "%" + v.name if isinstance(v, Node) else repr(v)


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    cases = []
    for name, module, pattern, replacement in CASES:
        gm = symbolic_trace(module())
        before = gm.code
        matches = subgraph_rewriter.replace_pattern(gm, pattern, replacement)
        cases.append({"name": name, "code_before": before, "code_after": gm.code,
                      "matches": [{"anchor": m.anchor.name,
                                   "nodes_map": [[p.name, value(g)] for p, g in m.nodes_map.items()]}
                                  for m in matches]})
    out = {"made_by": "tests/reference/make_subgraph_rewriter_references.py", "torch": torch.__version__,
           "cases": cases}
    (HERE / "subgraph_rewriter.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
