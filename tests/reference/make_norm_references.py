#!/usr/bin/env python3
"""Regenerates tests/reference/norm_layers.json, PyTorch 1.13's numbers for tests/nn/test_normalization.cpp:
nn.LayerNorm, GroupNorm, InstanceNorm2d, BatchNorm1d, Embedding, Bilinear and Dropout2d: forward values, the
gradients of input and parameters, running statistics, initial parameters drawn after manual_seed, masks drawn
after manual_seed, and reprs. Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_norm_references.py

With the machine's default CPU capability, as tests/reference/make_rng_references.py: the initial parameters
are its normal_ / uniform_ streams, which torchless draws bit for bit."""
import json
import math
import pathlib

import torch

HERE = pathlib.Path(__file__).resolve().parent


def number(x):
    """JSON has no inf/nan: those go as strings, as Python's float() reads them."""
    x = float(x)
    return x if math.isfinite(x) else str(x)


def flat(t):
    return [number(v) for v in t.detach().double().reshape(-1).tolist()]


def layer_norm_cases():
    cases = []
    g = torch.Generator().manual_seed(32)
    for shape, normalized, eps, affine, dtype in [((2, 3, 4), [4], 1e-5, True, torch.float32),
                                                  ((2, 3, 4), [3, 4], 1e-3, True, torch.float32),
                                                  ((5, 7), [7], 1e-5, False, torch.float32),
                                                  ((3, 2, 33), [33], 1e-5, True, torch.float64),
                                                  ((4,), [4], 1e-5, True, torch.float32)]:
        x = (torch.randn(shape, generator=g) * 3 + 1).to(dtype).requires_grad_()
        m = torch.nn.LayerNorm(normalized, eps=eps, elementwise_affine=affine).to(dtype)
        if affine:
            with torch.no_grad():
                m.weight.copy_(torch.randn(normalized, generator=g))
                m.bias.copy_(torch.randn(normalized, generator=g))
        out = m(x)
        grad = torch.randn(shape, generator=g).to(dtype)
        out.backward(grad)
        case = {"shape": list(shape), "normalized_shape": normalized, "eps": eps, "affine": affine,
                "dtype": str(dtype).replace("torch.", ""), "repr": repr(m), "x": flat(x), "grad": flat(grad),
                "out": flat(out), "grad_x": flat(x.grad)}
        if affine:
            case.update({"weight": flat(m.weight), "bias": flat(m.bias), "grad_weight": flat(m.weight.grad),
                         "grad_bias": flat(m.bias.grad)})
        cases.append(case)
    return cases


def module_case(m, inputs, seed):
    """Forward of m on inputs (the first floating ones require grad), backward of a seeded random grad."""
    g = torch.Generator().manual_seed(seed)
    for t in inputs:
        if t.is_floating_point():
            t.requires_grad_()
    out = m(*inputs)
    grad = torch.randn(out.shape, generator=g)
    out.backward(grad)
    case = {"repr": repr(m), "inputs": [flat(t) for t in inputs], "shapes": [list(t.shape) for t in inputs],
            "grad": flat(grad), "out": flat(out), "out_shape": list(out.shape),
            "input_grads": [flat(t.grad) if t.is_floating_point() else [] for t in inputs],
            "state": {k: flat(v) for k, v in m.state_dict().items()},
            "param_grads": {k: flat(p.grad) for k, p in m.named_parameters() if p.grad is not None}}
    return case


def layer_cases():
    g = torch.Generator().manual_seed(7)
    cases = {}
    gn = torch.nn.GroupNorm(2, 4)
    with torch.no_grad():
        gn.weight.copy_(torch.randn(4, generator=g))
        gn.bias.copy_(torch.randn(4, generator=g))
    cases["group_norm"] = module_case(gn, [torch.randn(3, 4, 5, 2, generator=g) * 2 + 1], 1)
    cases["group_norm_plain"] = module_case(torch.nn.GroupNorm(3, 6, eps=1e-3, affine=False),
                                            [torch.randn(2, 6, 7, generator=g)], 2)
    inorm = torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    with torch.no_grad():
        inorm.weight.copy_(torch.randn(3, generator=g))
        inorm.bias.copy_(torch.randn(3, generator=g))
    cases["instance_norm_running"] = module_case(inorm, [torch.randn(2, 3, 4, 5, generator=g)], 3)
    cases["instance_norm"] = module_case(torch.nn.InstanceNorm2d(3), [torch.randn(2, 3, 4, 4, generator=g)], 4)
    cases["instance_norm_unbatched"] = module_case(torch.nn.InstanceNorm2d(3), [torch.randn(3, 4, 4, generator=g)], 5)
    bn = torch.nn.BatchNorm1d(4)
    with torch.no_grad():
        bn.weight.copy_(torch.randn(4, generator=g))
        bn.bias.copy_(torch.randn(4, generator=g))
    cases["batch_norm_1d"] = module_case(bn, [torch.randn(6, 4, generator=g)], 6)
    cases["batch_norm_1d_3d"] = module_case(torch.nn.BatchNorm1d(3, momentum=None), [torch.randn(2, 3, 5, generator=g)], 7)
    torch.manual_seed(11)
    emb = torch.nn.Embedding(10, 4, padding_idx=0)
    cases["embedding"] = module_case(emb, [torch.tensor([[1, 0, 3], [3, 9, 1]])], 8)
    torch.manual_seed(12)
    cases["embedding_scaled"] = module_case(torch.nn.Embedding(6, 3, padding_idx=-2, scale_grad_by_freq=True),
                                            [torch.tensor([4, 1, 1, 5, 4, 1])], 9)
    torch.manual_seed(13)
    bil = torch.nn.Bilinear(3, 4, 5)
    cases["bilinear"] = module_case(bil, [torch.randn(2, 6, 3, generator=g), torch.randn(2, 6, 4, generator=g)], 10)
    torch.manual_seed(14)
    cases["bilinear_no_bias"] = module_case(torch.nn.Bilinear(2, 3, 4, bias=False),
                                            [torch.randn(5, 2, generator=g), torch.randn(5, 3, generator=g)], 11)
    return cases


def dropout2d_cases():
    cases = []
    for seed, shape, p in [(0, (2, 3, 2, 2), 0.5), (5, (4, 5, 3, 1), 0.3), (9, (3, 2, 4), 0.7)]:
        torch.manual_seed(seed)
        m = torch.nn.Dropout2d(p)
        x = torch.ones(shape)
        cases.append({"seed": seed, "shape": list(shape), "p": p, "repr": repr(m), "out": flat(m(x))})
    return cases


def main():
    data = {"generator": "tests/reference/make_norm_references.py", "torch": torch.__version__,
            "layer_norm": layer_norm_cases(), "layers": layer_cases(), "dropout2d": dropout2d_cases()}
    with open(HERE / "norm_layers.json", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
