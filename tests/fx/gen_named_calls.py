#!/usr/bin/python3
# Prints the graph and code torch.fx (PyTorch 1.13) records for a module calling the torch.nn.functional
# functions torchvision's models call (one call_function node each, as F.* passes itself to
# __torch_function__) and x[...] (operator.getitem); tests/fx/test_named_call.cpp expects these texts:
#     /usr/bin/python3 tests/fx/gen_named_calls.py
import torch
import torch.fx as fx
import torch.nn.functional as F
from torch import nn


class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4))
        self.bias = nn.Parameter(torch.zeros(4))

    def forward(self, x):
        y = F.relu(x)
        a = F.max_pool2d(y, kernel_size=3, stride=2)
        b = F.avg_pool2d(y, kernel_size=3, stride=2)
        c = F.avg_pool2d(y, 3, 2)
        s = F.relu(torch.cat([a, b, c], 1), inplace=True)
        s = F.dropout(s, 0.2, training=self.training)
        s = F.layer_norm(s, (4,), self.weight, self.bias, 1e-3)
        p = F.adaptive_avg_pool2d(s, (1, 1))
        q = F.adaptive_avg_pool2d(s, 2)
        return torch.flatten(p, 1) + torch.flatten(q, 1)[:, :9]


gm = fx.symbolic_trace(Functional().eval())
print(repr(str(gm.graph)))
print(repr(gm.code))


class Losses(nn.Module):
    def forward(self, x, target, y):
        return F.nll_loss(x.log_softmax(1), target) + F.mse_loss(x, y, reduction="sum")


gm = fx.symbolic_trace(Losses())
print(repr(str(gm.graph)))
print(repr(gm.code))
