#!/usr/bin/env python3
"""Regenerates tests/reference/op_tree_resnet18.txt, op_tree_my_module.txt, op_tree_resnet18_train.txt,
op_tree_ops.txt and op_tree_zoo.txt: the op events PyTorch 1.13 records on CPU, with their nesting and Input Shapes,
for an inference forward of torchvision's resnet18, of the profiler tutorial's MyModule as models/my_module.cpp writes
it, for the forward of a resnet18 training step, for one sample call of each op a user meets (losses,
activations, pooling, shape ops, products, reductions, factories, mixed dtypes), and for an inference forward of
a few model families (ZOO). Compared by tests/profiler/test_op_tree.cpp, (the training step)
tests/profiler/test_training_profile.cpp and (the families) tests/models/test_zoo_op_tree.cpp. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_op_tree_references.py

The tree is the profiler's own (experimental_event_tree: parents as recorded, nanosecond times); Debian's
build has no kineto, which this does not need. Batch 2, not 1: with one image ATen runs most 3x3
convolutions through thnn_conv2d (its mkldnn heuristic wants a batch above 1 or a large input), where
torchless always runs oneDNN, as ATen's mkldnn_convolution does."""
import pathlib

import numpy
import torch
import torchvision
from make_profiler_references import resnet18_training_step

HERE = pathlib.Path(__file__).resolve().parent

HEADER = """\
# PyTorch {version}: {what}
# Made by tests/reference/make_op_tree_references.py; compared by tests/{compared_by}.
# One line per event in recording order: two spaces per nesting level, the name, the Input Shapes.
"""


class MyModule(torch.nn.Module):
    """models/my_module.cpp's MyModule: the tutorial's, with mask.cpu() a copy into a new buffer (on CPU,
    PyTorch's cpu() would return the mask itself) that dies inside MASK INDICES, as the tutorial's copy of a
    CUDA mask does, and MASK INDICES optionally through nonzero(). `scope` opens the two scopes: the
    tutorial's record_function by default."""

    def __init__(self, in_features, out_features, use_nonzero, scope=torch.autograd.profiler.record_function):
        super().__init__()
        self.linear = torch.nn.Linear(in_features, out_features)
        self.use_nonzero = use_nonzero
        self.scope = scope

    def forward(self, input, mask):
        with self.scope("LINEAR PASS"):
            out = self.linear(input)
        with self.scope("MASK INDICES"):
            if self.use_nonzero:
                threshold = out.sum(1).mean()
                hi_idx = (mask > threshold).nonzero()
            else:
                threshold = out.sum(1).mean().item()
                host = torch.empty(mask.shape, dtype=mask.dtype)
                host.copy_(mask)
                above = host.numpy() > threshold
                del host  # NumPy's `above` and argwhere's result are NumPy's memory: no profiler sees them
                hi_idx = torch.from_numpy(numpy.argwhere(above))
        return out, hi_idx


def event_lines(run, keep=lambda root: True):
    """The event tree of one profiled run() after a warm-up run, from the top-level events `keep` accepts."""
    run()  # warm-up
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        run()
    lines = []

    def walk(event, depth):
        lines.append("  " * depth + event.name + " " + str(event.extra_fields.inputs.shapes))
        for child in event.children:
            walk(child, depth + 1)

    for root in prof.profiler.kineto_results.experimental_event_tree():
        if keep(root):
            walk(root, 0)
    return lines


def training_forward_lines():
    """The forward events of a ResNet18 training step as tests/reference/make_profiler_references.py profiles
    it (the same model, seed, input, loss and optimizer): every top-level event but the backward steps, the
    optimizer scopes and the handle their Python record_function allocates (aten::zeros)."""
    step = resnet18_training_step()

    def forward(root):
        return not root.name.startswith(("autograd::engine::", "Optimizer.")) and root.name != "aten::zeros"

    return event_lines(step, forward)


def op_sample_lines():
    """One sample call per op, in the order a user meets them, each after a "# name" line that
    tests/profiler/test_op_tree.cpp's table of the same calls looks up. Inputs are made outside the profile;
    only their shapes matter. No grad, as the table's calls run."""
    torch.manual_seed(0)
    x, y, w, weight = torch.randn(4, 10), torch.randn(4, 10), torch.randn(10, 3), torch.randn(3, 10)
    target = torch.tensor([1, 2, 3, 0])
    img = torch.randn(2, 3, 8, 8)
    a, b, m = torch.randn(4, 16, 32), torch.randn(4, 32, 8), torch.randn(32, 8)
    v, u, index = torch.randn(10), torch.randn(32), torch.tensor([0, 2])
    b1, xd, flags = b[:1], x.double(), x > 0
    every_third = torch.arange(40).reshape(4, 10) % 3 == 0  # a mask whose count does not depend on the seed
    every_third_row = every_third[0]
    row_index = index.view(1, 2)
    # Large enough for ATen's mkldnn heuristic, which torchless's conv scopes follow.
    image, filters, filter_bias = torch.randn(3, 64, 64), torch.randn(64, 3, 7, 7), torch.randn(64)
    px, py = x.sigmoid(), y.sigmoid()  # probabilities for the binary cross entropies
    filters1d = torch.randn(8, 16, 3)
    F = torch.nn.functional
    samples = [
        ("cross_entropy", lambda: F.cross_entropy(x, target)),
        ("nll_loss", lambda: F.nll_loss(x, target)),
        ("mse_loss", lambda: F.mse_loss(x, y)),
        ("mse_loss_sum", lambda: F.mse_loss(x, y, reduction="sum")),
        ("add_number", lambda: x + 2),
        ("mul_number_", lambda: x.clone().mul_(0.5)),
        ("gt_number", lambda: x > 0),
        ("relu", lambda: F.relu(x)),
        ("gelu", lambda: F.gelu(x)),
        ("softmax", lambda: F.softmax(x, 1)),
        ("log_softmax", lambda: F.log_softmax(x, 1)),
        ("softmax_own_dtype", lambda: F.softmax(x, 1, dtype=torch.float32)),
        ("dropout", lambda: F.dropout(x, 0.5, True)),
        ("max_pool2d", lambda: F.max_pool2d(img, 2)),
        ("avg_pool2d", lambda: F.avg_pool2d(img, 2)),
        ("adaptive_avg_pool2d", lambda: F.adaptive_avg_pool2d(img, 2)),
        ("flatten", lambda: torch.flatten(img, 1)),
        ("reshape", lambda: img.reshape(2, -1)),
        ("reshape_copy", lambda: img.transpose(1, 2).reshape(2, -1)),
        ("view", lambda: img.view(2, -1)),
        ("transpose", lambda: img.transpose(1, 2)),
        ("permute", lambda: img.permute(0, 2, 3, 1)),
        ("unsqueeze", lambda: x.unsqueeze(0)),
        ("squeeze", lambda: img[:1].squeeze(0)),
        ("cat", lambda: torch.cat([x, x], 1)),
        ("stack", lambda: torch.stack([x, x])),
        ("stack_last", lambda: torch.stack([x, x], 2)),
        ("contiguous", lambda: x.t().contiguous()),
        ("clone", lambda: x.clone()),
        ("to", lambda: x.to(torch.float64)),
        ("mm", lambda: torch.mm(x, w)),
        ("matmul", lambda: torch.matmul(x, w)),
        ("matmul_folded", lambda: torch.matmul(a, m)),
        ("bmm", lambda: torch.bmm(a, b)),
        ("matmul_batched", lambda: torch.matmul(a, b)),
        ("linear", lambda: F.linear(x, weight)),
        ("sum_dim", lambda: img.sum(1)),
        ("mean", lambda: x.mean()),
        ("mean_dim", lambda: img.mean((2, 3))),
        ("ones_like", lambda: torch.ones_like(x)),
        ("rsub_number", lambda: 2.0 - x),
        ("rsub", lambda: torch.rsub(x, y)),
        ("rmul_number", lambda: 2 * x),
        ("radd_number", lambda: 2 + x),
        ("rtruediv_number", lambda: 1.0 / x),
        ("reciprocal", lambda: x.reciprocal()),
        ("rlt_number", lambda: 2 < x),
        ("req_number", lambda: 2 == x),
        ("sum_int_dim", lambda: x.sum(0)),
        ("mean_int_dim", lambda: x.mean(0)),
        ("zeros", lambda: torch.zeros(4, 10)),
        ("ones", lambda: torch.ones(4, 10)),
        ("full", lambda: torch.full((4, 10), 2.5)),
        ("rand", lambda: torch.rand(4, 10)),
        ("randn", lambda: torch.randn(4, 10)),
        ("arange", lambda: torch.arange(0, 1, 0.25)),
        ("sum", lambda: x.sum()),
        ("sum_bool_dim", lambda: flags.sum(1)),
        ("matmul_dot", lambda: torch.matmul(v, v)),
        ("matmul_mv", lambda: torch.matmul(x, v)),
        ("matmul_vm", lambda: torch.matmul(v, w)),
        ("matmul_folded_vector", lambda: torch.matmul(a, u)),
        ("matmul_broadcast", lambda: torch.matmul(a, b1)),
        ("pow_number", lambda: x.pow(2)),
        ("max", lambda: x.max()),
        ("max_dim", lambda: x.max(1)),
        ("min", lambda: x.min()),
        ("min_dim", lambda: x.min(1)),
        ("argmax", lambda: x.argmax()),
        ("argmax_dim", lambda: x.argmax(1)),
        ("argmax_transposed", lambda: x.t().argmax()),
        ("index_select", lambda: x.index_select(1, index)),
        ("masked_select", lambda: x.masked_select(every_third)),
        ("masked_select_broadcast", lambda: x.masked_select(every_third_row)),
        ("add_float64", lambda: x + xd),
        ("gt_float64", lambda: x > xd),
        ("mul_float64_", lambda: x.clone().mul_(xd)),
        ("conv2d_unbatched", lambda: F.conv2d(image, filters, filter_bias, 2, 3)),
        ("index_slice_select", lambda: x[:, 1]),
        ("index_none_ellipsis", lambda: x[1:, None, ...]),
        ("index_int", lambda: x[1]),
        ("gather", lambda: x.gather(1, row_index)),
        ("scatter", lambda: x.scatter(1, row_index, y)),
        ("scatter_add", lambda: x.scatter_add(1, row_index, y)),
        ("masked_fill", lambda: x.masked_fill(every_third, 0.5)),
        ("masked_fill_broadcast", lambda: x.masked_fill(every_third_row, 0.5)),
        ("zeros_like", lambda: torch.zeros_like(x)),
        ("full_like", lambda: torch.full_like(x, 2.5)),
        ("l1_loss", lambda: F.l1_loss(x, y)),
        ("smooth_l1_loss", lambda: F.smooth_l1_loss(x, y, beta=0.5)),
        ("smooth_l1_loss_sum", lambda: F.smooth_l1_loss(x, y, reduction="sum")),
        ("huber_loss", lambda: F.huber_loss(x, y)),
        ("binary_cross_entropy", lambda: F.binary_cross_entropy(px, py)),
        ("binary_cross_entropy_sum", lambda: F.binary_cross_entropy(px, py, reduction="sum")),
        ("binary_cross_entropy_with_logits", lambda: F.binary_cross_entropy_with_logits(x, py)),
        ("binary_cross_entropy_with_logits_pos_weight",
         lambda: F.binary_cross_entropy_with_logits(x, py, v, reduction="sum", pos_weight=v)),
        ("kl_div_batchmean", lambda: F.kl_div(x, py, reduction="batchmean")),
        ("conv1d", lambda: F.conv1d(a, filters1d, None, 2, 1)),
        ("max_pool1d", lambda: F.max_pool1d(a, 2)),
        ("avg_pool1d", lambda: F.avg_pool1d(a, 2)),
    ]
    lines = []
    with torch.no_grad():
        for name, run in samples:
            lines.append(f"# {name}")
            lines += event_lines(run)
    return lines


# The families whose forward's tree tests/models/test_zoo_op_tree.cpp compares: depthwise and grouped convolutions,
# squeeze-excitation, Hardswish / Hardsigmoid / SiLU, stochastic depth and in-place dropout in eval, and convnext's
# channels-last activations (a convolution of a channels-last input returns one, and so does layer_scale's mul: a
# CNBlock's permuted LayerNorm input is contiguous, its native_layer_norm has no aten::contiguous).
ZOO = ["mobilenet_v3_small", "efficientnet_b0", "regnet_y_400mf", "convnext_tiny"]


def zoo_lines():
    """Each ZOO family's eval forward (no_grad, input 2 x 3 x 64 x 64), after a "# name" line. Two threads: ATen
    runs a 1x1 stride-1 convolution of a batch under 16 through thnn_conv2d when single-threaded (its mkldnn
    heuristic asks at::get_num_threads() > 1; one thread is Debian's default on a 2-vCPU machine), where
    torchless's convolution is oneDNN's and its tree follows ATen's multi-threaded choice, mkldnn_convolution."""
    lines = []
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    for name in ZOO:
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)().eval()
        x = torch.randn(2, 3, 64, 64)
        lines.append(f"# {name}")
        with torch.no_grad():
            lines += event_lines(lambda: model(x))
    torch.set_num_threads(threads)
    return lines


def write(name, what, lines):
    compared_by = {"op_tree_resnet18_train.txt": "profiler/test_training_profile.cpp",
                   "op_tree_zoo.txt": "models/test_zoo_op_tree.cpp"}.get(name, "profiler/test_op_tree.cpp")
    text = HEADER.format(version=torch.__version__, what=what, compared_by=compared_by) + "\n".join(lines) + "\n"
    (HERE / name).write_text(text)


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    x = torch.randn(2, 3, 64, 64)
    with torch.no_grad():
        write("op_tree_resnet18.txt", "torchvision's resnet18 forward (eval, no_grad, input 2 x 3 x 64 x 64)",
              event_lines(lambda: model(x)))
    lines = []
    for use_nonzero in (False, True):
        module = MyModule(500, 10, use_nonzero)
        input, mask = torch.rand(8, 500), torch.rand(6, 6, 6)
        lines.append(f"# use_nonzero={use_nonzero}")
        with torch.no_grad():
            lines += event_lines(lambda: module(input, mask))
    write("op_tree_resnet18_train.txt", "the forward events of one resnet18 training step (train mode, batch "
          "2 x 3 x 64 x 64, CrossEntropyLoss, SGD(lr=0.1, momentum=0.9), after one warm-up step), as "
          "make_profiler_references.py profiles it: every top-level event but the backward steps and the "
          "optimizer's", training_forward_lines())
    write("op_tree_ops.txt", "one sample call per op, no_grad (x 4 x 10, img 2 x 3 x 8 x 8, a 4 x 16 x 32, "
          "b 4 x 32 x 8; see op_sample_lines)", op_sample_lines())
    write("op_tree_zoo.txt", "the eval forward of " + ", ".join(ZOO) + " (no_grad, input 2 x 3 x 64 x 64)",
          zoo_lines())
    write("op_tree_my_module.txt", "the profiler tutorial's MyModule(500, 10) forward (no_grad, input 8 x 500, "
          "float32 mask 6 x 6 x 6), first with MASK INDICES through NumPy, then through nonzero()", lines)


if __name__ == "__main__":
    main()
