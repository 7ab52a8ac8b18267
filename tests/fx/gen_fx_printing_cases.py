#!/usr/bin/python3
# Prints the texts tests/fx/test_graph.cpp, test_graph_module.cpp, test_shape_prop.cpp and
# test_tracer.cpp expect, as Debian's PyTorch 1.13 (and python3-tabulate 0.8.9) print them:
#     /usr/bin/python3 tests/fx/gen_fx_printing_cases.py
import pathlib
import sys

import torch
import torch.fx as fx
from torch import nn
from torch.fx.passes.shape_prop import ShapeProp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
from make_references import M  # noqa: E402  the conv-bn fuser tutorial's toy model


class AddRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 1)

    def forward(self, x):
        y = self.conv(x) + x
        return y.relu().flatten(start_dim=1)


class Transposed(nn.Module):
    def forward(self, x):
        return x.transpose(1, 2)


toy = fx.symbolic_trace(M().eval())
print("str(symbolic_trace(M())):", repr(str(toy)))

print("print_tabular, M:")
toy.graph.print_tabular()
print("print_tabular, AddRelu:")
fx.symbolic_trace(AddRelu()).graph.print_tabular()

# ShapeProp's TensorMetadata: stride and memory format. (PyTorch tries the formats in a set's order,
# so a tensor contiguous in several formats, e.g. (N, C, 1, 1), gets any of them; torchless tries
# contiguous_format first.)
gm = fx.symbolic_trace(Transposed())
x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
ShapeProp(gm).propagate(x)
for n in gm.graph.nodes:
    m = n.meta.get("tensor_meta")
    if m is not None:
        print(f"{n.name}: shape={tuple(m.shape)} dtype={m.dtype} stride={m.stride} memory_format={m.memory_format}")
for t in [torch.randn(2, 3, 1, 1), torch.empty(0, 3, 4, 5).transpose(1, 2), torch.empty(5, 3, 0, 2).transpose(0, 3),
          torch.randn(1, 2, 3, 4, 5).to(memory_format=torch.channels_last_3d), torch.randn(3, 4)[:, ::2]]:
    formats = [f for f in (torch.contiguous_format, torch.channels_last, torch.channels_last_3d)
               if t.is_contiguous(memory_format=f)]
    print(f"size {tuple(t.shape)} stride {t.stride()}: contiguous in {formats}")


# Multi-output ops: a getitem only for each element used, made where it is first used.
class MaxValues(nn.Module):
    def forward(self, x):
        return x.max(1)[0]


class MinUsedLater(nn.Module):
    def forward(self, x):
        r = torch.min(x, 1)
        y = torch.relu(x)
        return r[1], y, r[0]


for module in (MaxValues(), MinUsedLater()):
    traced = fx.symbolic_trace(module)
    print(f"{type(module).__name__} graph:", repr(str(traced.graph)))
    print(f"{type(module).__name__} code:", repr(traced.code))


# Indexing: one operator.getitem per x[...], its key as Python writes it (slices, None, Ellipsis, tensors).
class Indexing(nn.Module):
    def forward(self, x, i):
        a = x[:, 0]
        b = x[..., 1:3, None]
        c = x[i]
        d = x[0]
        e = x[x > 0]
        g = x[True, :, ::2, -1]
        return a, b, c, d, e, g


traced = fx.symbolic_trace(Indexing())
print("Indexing graph:", repr(str(traced.graph)))
print("Indexing code:", repr(traced.code))
