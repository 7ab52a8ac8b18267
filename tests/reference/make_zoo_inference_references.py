#!/usr/bin/python3
"""tests/reference/make_zoo_inference_references.py — PyTorch 1.13's bf16 error on each family's cheapest builder,
for tests/models/test_zoo_inference.cpp: after torch.manual_seed(0) the torchvision 0.14 model (the same initial
weights as ours), its BatchNorms calibrated as tests/support/bn_calibration.cpp does (the same draws in the same
order), then x = randn(2, 3, size, size): one line per builder,
  <builder> <sum of the fp32 logits> <sum of their squares> <relative error of autocast(bfloat16) logits>
(nan where PyTorch 1.13's autocast fails on the model)
The first two show the test runs the same model on the same input; the last is what bf16 costs PyTorch there.
inception_v3 is calibrated in float64, then rounded to float32 (FLOAT64_CALIBRATION): in float32 each of its 94
calibrated BatchNorms carries the rounding of the statistics before it into its own, and a float32 and a float64
calibration of the same draws give logits 1.3e-4 apart (L2, relative), past the 1e-4 the test checks.
The families torch.fx cannot trace (their forward reads the input's shape; optimize_for_inference traces them on
the example's shape) follow: shufflenet_v2_x0_5, and a small ViT and MaxViT (their smallest builders draw 31M-88M
initial weights): vit_tiny is VisionTransformer(32, 8, 2, 2, 16, 32) with make_zoo_inception_vit_references's
head_rule after the calibration, maxvit_small is MaxVit((32, 32), 8, 2, [8, 16], [1, 2], 4, 0.1, num_classes=10).
Usage: /usr/bin/python3 tests/reference/make_zoo_inference_references.py > tests/reference/zoo_inference.txt
"""
import torch
import torchvision

from make_zoo_inception_vit_references import head_rule

FAMILIES = [("alexnet", 64), ("vgg11_bn", 64), ("squeezenet1_1", 64), ("densenet121", 64), ("googlenet", 64),
            ("inception_v3", 79), ("mobilenet_v2", 64), ("mobilenet_v3_small", 64), ("mnasnet0_5", 64),
            ("efficientnet_b0", 64), ("efficientnet_v2_s", 64), ("regnet_x_400mf", 64), ("regnet_y_400mf", 64),
            ("shufflenet_v2_x0_5", 64), ("vit_tiny", 32), ("maxvit_small", 32)]
FLOAT64_CALIBRATION = {"inception_v3"}


def build(name):
    if name == "vit_tiny":
        return torchvision.models.VisionTransformer(32, 8, 2, 2, 16, 32)
    if name == "maxvit_small":
        return torchvision.models.MaxVit((32, 32), 8, 2, [8, 16], [1, 2], 4, 0.1, num_classes=10)
    kwargs = {"init_weights": True} if name in ("googlenet", "inception_v3") else {}
    return getattr(torchvision.models, name)(**kwargs)


def calibrate(model, shape):
    """tests/support/bn_calibration.cpp: random affine parameters, then running statistics from each BN's input."""
    with torch.no_grad():
        bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
        for bn in bns:
            bn.weight.copy_(torch.rand(bn.num_features) + 0.5)
            bn.bias.copy_(torch.randn(bn.num_features) * 0.1)

        def before(bn, inputs):
            x, c = inputs[0], bn.num_features
            mean = x.mean((0, 2, 3))
            var = (x - mean.view(1, c, 1, 1)).pow(2.0).mean((0, 2, 3))
            bn.running_mean.copy_(mean + torch.randn(c) * 0.05)
            bn.running_var.copy_(var * (torch.rand(c) * 0.4 + 0.8))

        hooks = [bn.register_forward_pre_hook(before) for bn in bns]
        model.eval()
        model(torch.randn(shape).to(next(model.parameters()).dtype))
        for h in hooks:
            h.remove()


def main():
    for name, size in FAMILIES:
        torch.manual_seed(0)
        model = build(name)
        if name in FLOAT64_CALIBRATION:
            model.double()
        calibrate(model, (8, 3, size, size))
        model.float()
        if name == "vit_tiny":
            head_rule(model)
        x = torch.randn(2, 3, size, size)
        with torch.no_grad():
            fp32 = model(x)
        # With gradients enabled: MultiheadAttention's no_grad fast path (torch._native_multi_head_attention)
        # fails under autocast in PyTorch 1.13 ("expected scalar type BFloat16 but found Float").
        try:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                bf16 = model(x).detach().float()
            error = ((bf16 - fp32).pow(2).sum() / fp32.pow(2).sum()).sqrt().item()
        except RuntimeError:
            error = float("nan")  # PyTorch 1.13's autocast cannot run it (maxvit's LayerNorm on bf16): no reference
        print(name, repr(fp32.double().sum().item()), repr(fp32.double().pow(2).sum().item()), repr(error))


if __name__ == "__main__":
    main()
