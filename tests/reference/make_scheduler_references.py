#!/usr/bin/env python3
"""Regenerates tests/reference/scheduler_trajectories.json, PyTorch 1.13's numbers for
tests/optim/test_lr_schedulers.cpp: for each scheduler and several settings, with two parameter groups
where the setting allows, each group's lr (and SGD's momentum or Adam's beta1) after construction and
after every step: step(), step(epoch) (the closed forms; CosineAnnealingWarmRestarts' fractional epochs) or step(metric)
(ReduceLROnPlateau). Lambdas are named: the test defines the same functions under the same names.
Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_scheduler_references.py"""
import json
import pathlib
import warnings

import torch
from torch.optim import lr_scheduler

HERE = pathlib.Path(__file__).resolve().parent

LAMBDAS = {
    "pow095": lambda e: 0.95 ** e,
    "inv": lambda e: 1.0 / (e + 1),
    "half": lambda x: 0.5 ** x,
}

SGD_M = ("SGD", {"momentum": 0.9})
ADAM = ("Adam", {})

TRIANGLE = [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.7, 0.75, 0.75, 0.75, 0.75]
RISING = [0.1, 0.2, 0.25, 0.26, 0.2, 0.2, 0.4, 0.45, 0.45, 0.3, 0.3, 0.3, 0.3, 0.3, 0.6]

# (name, kind, arguments (lambdas by name; SequentialLR's / ChainedScheduler's schedulers as [kind, args]),
# optimizer, group lrs, steps: a count of step() calls, or {"epochs": [...]} or {"metrics": [...]})
CASES = [
    ("multistep", "MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.5}, SGD_M, [0.1, 0.03], 12),
    ("multistep_unsorted", "MultiStepLR", {"milestones": [6, 3]}, SGD_M, [1.0], 8),
    ("exponential", "ExponentialLR", {"gamma": 0.9}, SGD_M, [0.1, 0.2], 15),
    ("linear_default", "LinearLR", {}, SGD_M, [0.1, 0.05], 8),
    ("linear_args", "LinearLR", {"start_factor": 0.25, "end_factor": 0.75, "total_iters": 4}, ADAM, [0.3, 0.1], 7),
    ("linear_decay", "LinearLR", {"start_factor": 1.0, "end_factor": 0.1, "total_iters": 6}, SGD_M, [0.5], 9),
    ("constant_default", "ConstantLR", {}, SGD_M, [0.1, 0.2], 8),
    ("constant_args", "ConstantLR", {"factor": 0.5, "total_iters": 3}, SGD_M, [0.3], 6),
    ("polynomial_default", "PolynomialLR", {}, SGD_M, [0.1, 0.4], 8),
    ("polynomial_square", "PolynomialLR", {"total_iters": 6, "power": 2.0}, SGD_M, [0.3, 0.7], 9),
    ("polynomial_sqrt", "PolynomialLR", {"total_iters": 4, "power": 0.5}, SGD_M, [0.2], 6),
    ("lambda_one", "LambdaLR", {"lr_lambda": "pow095"}, SGD_M, [0.1, 0.2], 10),
    ("lambda_list", "LambdaLR", {"lr_lambda": ["pow095", "inv"]}, SGD_M, [0.1, 0.2], 10),
    ("multiplicative_one", "MultiplicativeLR", {"lr_lambda": "pow095"}, SGD_M, [0.1, 0.2], 10),
    ("multiplicative_list", "MultiplicativeLR", {"lr_lambda": ["inv", "pow095"]}, ADAM, [0.1, 0.2], 8),
    ("cyclic_triangular", "CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4}, SGD_M, [0.5, 0.5], 20),
    ("cyclic_triangular2", "CyclicLR", {"base_lr": [0.01, 0.02], "max_lr": [0.1, 0.3], "step_size_up": 3,
                                        "step_size_down": 5, "mode": "triangular2"}, SGD_M, [0.5, 0.5], 25),
    ("cyclic_exp_range", "CyclicLR", {"base_lr": 0.001, "max_lr": 0.006, "step_size_up": 3, "mode": "exp_range",
                                      "gamma": 0.9, "base_momentum": [0.7, 0.75], "max_momentum": 0.95},
     SGD_M, [0.5, 0.5], 20),
    ("cyclic_scale_fn_cycle", "CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "scale_fn": "half"},
     SGD_M, [0.5, 0.5], 14),
    ("cyclic_scale_fn_iterations", "CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2,
                                                "scale_fn": "inv", "scale_mode": "iterations"}, SGD_M, [0.5], 12),
    ("cyclic_no_momentum_adam", "CyclicLR", {"base_lr": 0.01, "max_lr": 0.05, "step_size_up": 3,
                                             "cycle_momentum": False}, ADAM, [0.5, 0.5], 12),
    ("onecycle_cos", "OneCycleLR", {"max_lr": 0.1, "total_steps": 20}, SGD_M, [0.5, 0.5], 20),
    ("onecycle_linear_three_phase_adam", "OneCycleLR",
     {"max_lr": [0.01, 0.02], "epochs": 3, "steps_per_epoch": 5, "anneal_strategy": "linear",
      "three_phase": True, "pct_start": 0.25}, ADAM, [0.5, 0.5], 15),
    ("onecycle_three_phase_cos", "OneCycleLR",
     {"max_lr": 0.3, "total_steps": 17, "three_phase": True, "base_momentum": [0.8, 0.7], "max_momentum": 0.9},
     SGD_M, [0.5, 0.5], 17),
    ("onecycle_no_momentum", "OneCycleLR", {"max_lr": 0.5, "total_steps": 12, "cycle_momentum": False,
                                            "div_factor": 10.0, "final_div_factor": 100.0, "pct_start": 0.4},
     SGD_M, [0.5], 12),
    ("warm_restarts", "CosineAnnealingWarmRestarts", {"T_0": 3}, SGD_M, [0.1, 0.2], 12),
    ("warm_restarts_mult", "CosineAnnealingWarmRestarts", {"T_0": 2, "T_mult": 2, "eta_min": 0.001}, SGD_M,
     [0.1, 0.2], 20),
    ("warm_restarts_fractional", "CosineAnnealingWarmRestarts", {"T_0": 2, "T_mult": 2}, SGD_M, [0.1, 0.3],
     {"epochs": [i * 0.25 for i in range(1, 33)] + [3.5, 1.0, 7.75]}),
    ("warm_restarts_fractional_mult1", "CosineAnnealingWarmRestarts", {"T_0": 3, "eta_min": 0.01}, SGD_M, [0.1],
     {"epochs": [i * 0.4 for i in range(1, 20)] + [2.0, 9.0]}),
    ("plateau_default_patience2", "ReduceLROnPlateau", {"patience": 2}, SGD_M, [0.1, 0.2], {"metrics": TRIANGLE}),
    ("plateau_max_abs_cooldown", "ReduceLROnPlateau",
     {"mode": "max", "factor": 0.5, "patience": 1, "threshold": 0.1, "threshold_mode": "abs", "cooldown": 2,
      "min_lr": [0.01, 0.05]}, SGD_M, [0.1, 0.2], {"metrics": RISING}),
    ("plateau_eps_min_lr", "ReduceLROnPlateau", {"factor": 0.5, "patience": 0, "eps": 0.01, "min_lr": 0.001},
     SGD_M, [0.1, 0.04], {"metrics": [1.0] * 8}),
    ("plateau_max_rel", "ReduceLROnPlateau", {"mode": "max", "patience": 1, "threshold": 0.2}, ADAM, [0.1, 0.3],
     {"metrics": RISING}),
    # step(epoch), deprecated in PyTorch (it warns): the closed form where the class has one, else get_lr().
    ("step_lr_epochs", "StepLR", {"step_size": 3, "gamma": 0.5}, SGD_M, [0.1, 0.05],
     {"epochs": [1, 2, 3, 7, 4, 2.5, 9]}),
    ("multistep_epochs", "MultiStepLR", {"milestones": [2, 4, 4]}, SGD_M, [0.1, 0.2], {"epochs": [1, 2, 5, 3, 10]}),
    ("exponential_epochs", "ExponentialLR", {"gamma": 0.8}, SGD_M, [0.1, 0.2], {"epochs": [1, 2, 5, 0, 3, 1.5]}),
    ("constant_epochs", "ConstantLR", {"factor": 0.25, "total_iters": 3}, SGD_M, [0.1], {"epochs": [1, 5, 2, 3]}),
    ("linear_epochs", "LinearLR", {"start_factor": 0.2, "total_iters": 4}, SGD_M, [0.1, 0.3],
     {"epochs": [1, 3, 7, 2, 0]}),
    ("polynomial_epochs", "PolynomialLR", {"total_iters": 5, "power": 1.5}, SGD_M, [0.2], {"epochs": [1, 3, 6, 2]}),
    ("cosine_epochs", "CosineAnnealingLR", {"T_max": 4, "eta_min": 0.01}, SGD_M, [0.1, 0.2],
     {"epochs": [1, 3, 5, 8, 2, 2.5]}),
    ("lambda_epochs", "LambdaLR", {"lr_lambda": "inv"}, SGD_M, [0.1, 0.2], {"epochs": [2, 5, 1, 3]}),
    ("sequential_linear_exponential", "SequentialLR",
     {"schedulers": [["LinearLR", {"start_factor": 0.1, "total_iters": 3}], ["ExponentialLR", {"gamma": 0.9}]],
      "milestones": [3]}, SGD_M, [0.1, 0.2], 10),
    ("sequential_three", "SequentialLR",
     {"schedulers": [["ConstantLR", {"factor": 0.5, "total_iters": 2}], ["CosineAnnealingLR", {"T_max": 4}],
                     ["StepLR", {"step_size": 2, "gamma": 0.5}]], "milestones": [2, 7]}, SGD_M, [0.1, 0.2], 14),
    ("sequential_multistep_polynomial", "SequentialLR",
     {"schedulers": [["MultiStepLR", {"milestones": [1, 2]}], ["PolynomialLR", {"total_iters": 4, "power": 2.0}]],
      "milestones": [4]}, SGD_M, [0.3], 9),
    ("sequential_lambda_second", "SequentialLR",
     {"schedulers": [["LinearLR", {"total_iters": 2}], ["LambdaLR", {"lr_lambda": "inv"}]], "milestones": [3]},
     SGD_M, [0.1, 0.2], 8),
    ("chained_constant_exponential", "ChainedScheduler",
     {"schedulers": [["ConstantLR", {"factor": 0.5, "total_iters": 3}], ["ExponentialLR", {"gamma": 0.9}]]},
     SGD_M, [0.1, 0.2], 8),
    ("chained_three", "ChainedScheduler",
     {"schedulers": [["LinearLR", {"total_iters": 3}], ["MultiStepLR", {"milestones": [2, 4]}],
                     ["CosineAnnealingLR", {"T_max": 5, "eta_min": 0.001}]]}, SGD_M, [0.1, 0.2], 12),
]


def make(kind, args, opt):
    args = dict(args)
    for key in ("lr_lambda", "scale_fn"):
        if key in args:
            value = args[key]
            args[key] = [LAMBDAS[v] for v in value] if isinstance(value, list) else LAMBDAS[value]
    if kind == "SequentialLR":
        args["schedulers"] = [make(k, a, opt) for k, a in args["schedulers"]]
        return lr_scheduler.SequentialLR(opt, **args)
    if kind == "ChainedScheduler":
        return lr_scheduler.ChainedScheduler([make(k, a, opt) for k, a in args["schedulers"]])
    return getattr(lr_scheduler, kind)(opt, **args)


def snapshot(opt):
    groups = opt.param_groups
    momentum = [g["betas"][0] if "betas" in g else g["momentum"] for g in groups]
    return {"lr": [g["lr"] for g in groups], "momentum": momentum}


def run(name, kind, args, optimizer, lrs, steps):
    opt_kind, opt_args = optimizer
    groups = [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs]
    opt = getattr(torch.optim, opt_kind)(groups, lr=lrs[0], **opt_args)
    sched = make(kind, args, opt)
    seq = [snapshot(opt)]
    if isinstance(steps, int):
        calls = [()] * steps
    else:
        calls = [(v,) for v in steps.get("epochs", steps.get("metrics", []))]
    for call in calls:
        opt.step()
        sched.step(*call)
        seq.append(snapshot(opt))
        if kind != "ReduceLROnPlateau":
            assert sched.get_last_lr() == seq[-1]["lr"], name
    return {"name": name, "kind": kind, "args": args, "optimizer": opt_kind, "lrs": lrs,
            "steps": steps, "expected": seq}


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    # SequentialLR's step(0) and step(epoch) warn (EPOCH_DEPRECATION_WARNING); the numbers are what matter.
    warnings.simplefilter("ignore")
    cases = [run(*case) for case in CASES]
    (HERE / "scheduler_trajectories.json").write_text(
        "[\n" + ",\n".join(json.dumps(case) for case in cases) + "\n]\n")


if __name__ == "__main__":
    main()
