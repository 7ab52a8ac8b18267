#!/usr/bin/env python3
"""Regenerates tests/reference/optim_trajectories.json, PyTorch 1.13's numbers for tests/optim/: for each
optimizer option set that changes the math, the parameters after each of several steps with fixed
gradients (one parameter skipped, its .grad None, at step 2), with a second group given to the constructor
(PyTorch's list of dicts) or added later, the same with the second parameter appended to the first
group's params after the first step (PyTorch keys state by parameter); each optimizer's defaults; LBFGS's
parameters after each step(closure) on least squares and Rosenbrock; and the lr sequences of the
schedulers, also with a group added after the scheduler was made and with a float last_epoch.
Run with Debian's PyTorch 1.13:
    /usr/bin/python3 tests/reference/make_optim_references.py

ATEN_CPU_CAPABILITY=default: with AVX2 kernels PyTorch fuses add(x, y, alpha=a) into one fused
multiply-add, while torchless's ops (and PyTorch's default kernels) round the product and the sum
separately; the default kernels make every float32 result comparable bit for bit."""
import json
import os
import pathlib

os.environ["ATEN_CPU_CAPABILITY"] = "default"
import torch  # noqa: E402  (the capability is read when torch loads)

HERE = pathlib.Path(__file__).resolve().parent
STEPS = 5
SHAPES = [(3, 5), (7,)]

OPTIMIZERS = {"SGD": torch.optim.SGD, "Adam": torch.optim.Adam, "AdamW": torch.optim.AdamW,
              "RMSprop": torch.optim.RMSprop, "Adagrad": torch.optim.Adagrad, "Adadelta": torch.optim.Adadelta,
              "Adamax": torch.optim.Adamax, "NAdam": torch.optim.NAdam, "RAdam": torch.optim.RAdam}
# Group entries that are not hyper-parameters of the update (torchless has no foreach, differentiable,
# capturable or fused paths).
NOT_OPTIONS = ("params", "foreach", "differentiable", "capturable", "fused")

# (name, kind, options in torchless's names (betas as beta1 / beta2), options of a second group holding
# the second parameter, or None for a single group; with "append", the second parameter is appended to the
# first group's params before step APPEND_AT instead; a name ending in "_ctor" gives both groups to the
# constructor, as [{"params": [p0]}, {"params": [p1], **group2}], the others add the second group with
# add_param_group)
CASES = [
    ("sgd_plain", "SGD", {"lr": 0.1}, None),
    ("sgd_momentum", "SGD", {"lr": 0.1, "momentum": 0.9}, None),
    ("sgd_dampening", "SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3}, None),
    ("sgd_nesterov", "SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": 1}, None),
    ("sgd_weight_decay", "SGD", {"lr": 0.1, "weight_decay": 0.05}, None),
    ("sgd_maximize", "SGD", {"lr": 0.1, "maximize": 1}, None),
    ("sgd_all", "SGD", {"lr": 0.07, "momentum": 0.9, "weight_decay": 0.01, "nesterov": 1, "maximize": 1}, None),
    ("sgd_groups", "SGD", {"lr": 0.1, "momentum": 0.9}, {"lr": 0.02, "momentum": 0.5, "dampening": 0.1}),
    ("adam_default", "Adam", {}, None),
    ("adam_lr", "Adam", {"lr": 0.05}, None),
    ("adam_betas_eps", "Adam", {"lr": 0.01, "beta1": 0.8, "beta2": 0.95, "eps": 1e-3}, None),
    ("adam_weight_decay", "Adam", {"lr": 0.01, "weight_decay": 0.1}, None),
    ("adam_amsgrad", "Adam", {"lr": 0.01, "amsgrad": 1}, None),
    ("adam_maximize", "Adam", {"lr": 0.01, "maximize": 1}, None),
    ("adam_all", "Adam", {"lr": 0.02, "weight_decay": 0.05, "amsgrad": 1, "maximize": 1}, None),
    ("adam_groups", "Adam", {"lr": 0.01}, {"lr": 0.1, "amsgrad": 1}),
    ("adamw_default", "AdamW", {}, None),
    ("adamw_weight_decay", "AdamW", {"lr": 0.01, "weight_decay": 0.3}, None),
    ("adamw_amsgrad", "AdamW", {"lr": 0.01, "amsgrad": 1}, None),
    ("adamw_maximize", "AdamW", {"lr": 0.01, "weight_decay": 0.1, "maximize": 1}, None),
    ("sgd_append", "SGD", {"lr": 0.1, "momentum": 0.9}, "append"),
    ("adam_append", "Adam", {"lr": 0.01, "amsgrad": 1}, "append"),
    ("adamw_append", "AdamW", {"lr": 0.02}, "append"),
    ("sgd_groups_ctor", "SGD", {"lr": 0.1}, {"lr": 0.03, "momentum": 0.9}),
    ("adam_groups_ctor", "Adam", {"lr": 0.01}, {"lr": 0.05, "weight_decay": 0.1}),
    ("rmsprop_default", "RMSprop", {}, None),
    ("rmsprop_alpha_eps", "RMSprop", {"lr": 0.05, "alpha": 0.9, "eps": 1e-3}, None),
    ("rmsprop_weight_decay", "RMSprop", {"lr": 0.01, "weight_decay": 0.1}, None),
    ("rmsprop_momentum", "RMSprop", {"lr": 0.01, "momentum": 0.9}, None),
    ("rmsprop_centered", "RMSprop", {"lr": 0.01, "centered": 1}, None),
    ("rmsprop_all", "RMSprop", {"lr": 0.02, "momentum": 0.5, "centered": 1, "weight_decay": 0.05, "maximize": 1},
     None),
    ("rmsprop_groups", "RMSprop", {"lr": 0.01}, {"lr": 0.1, "momentum": 0.8, "centered": 1}),
    ("rmsprop_append", "RMSprop", {"lr": 0.01, "momentum": 0.9}, "append"),
    ("adagrad_default", "Adagrad", {}, None),
    ("adagrad_lr_decay", "Adagrad", {"lr": 0.1, "lr_decay": 0.05}, None),
    ("adagrad_accumulator_eps", "Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-3}, None),
    ("adagrad_weight_decay", "Adagrad", {"lr": 0.1, "weight_decay": 0.1}, None),
    ("adagrad_maximize", "Adagrad", {"lr": 0.1, "maximize": 1, "lr_decay": 0.01}, None),
    ("adagrad_groups_ctor", "Adagrad", {"lr": 0.1}, {"lr": 0.05, "initial_accumulator_value": 0.1}),
    ("adadelta_default", "Adadelta", {}, None),
    ("adadelta_rho_eps", "Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4}, None),
    ("adadelta_weight_decay", "Adadelta", {"weight_decay": 0.1}, None),
    ("adadelta_maximize", "Adadelta", {"lr": 0.7, "maximize": 1}, None),
    ("adadelta_groups_ctor", "Adadelta", {}, {"lr": 0.1, "rho": 0.95}),
    ("adamax_default", "Adamax", {}, None),
    ("adamax_betas_eps", "Adamax", {"lr": 0.01, "beta1": 0.8, "beta2": 0.95, "eps": 1e-3}, None),
    ("adamax_weight_decay", "Adamax", {"lr": 0.01, "weight_decay": 0.1}, None),
    ("adamax_maximize", "Adamax", {"lr": 0.01, "maximize": 1}, None),
    ("adamax_groups_ctor", "Adamax", {"lr": 0.01}, {"lr": 0.05, "beta1": 0.5, "beta2": 0.999}),
    ("nadam_default", "NAdam", {}, None),
    ("nadam_momentum_decay", "NAdam", {"lr": 0.01, "momentum_decay": 0.1}, None),
    ("nadam_betas_eps", "NAdam", {"lr": 0.01, "beta1": 0.8, "beta2": 0.95, "eps": 1e-3}, None),
    ("nadam_weight_decay", "NAdam", {"lr": 0.01, "weight_decay": 0.1}, None),
    ("nadam_groups_ctor", "NAdam", {"lr": 0.01}, {"lr": 0.03, "momentum_decay": 0.01}),
    ("radam_default", "RAdam", {}, None),
    ("radam_rectified", "RAdam", {"lr": 0.01, "beta1": 0.9, "beta2": 0.9, "eps": 1e-3}, None),
    ("radam_weight_decay", "RAdam", {"lr": 0.01, "weight_decay": 0.1}, None),
    ("radam_groups_ctor", "RAdam", {"lr": 0.01}, {"lr": 0.05, "beta1": 0.8, "beta2": 0.9}),
]
# RAdam's rectified step starts when the approximated SMA exceeds 5 (step 6 with the default betas).
STEPS_OF = {"RAdam": 9}
APPEND_AT = 1


def torch_options(options):
    out = {k: v for k, v in options.items() if k not in ("beta1", "beta2")}
    for key in ("nesterov", "maximize", "amsgrad"):
        if key in out:
            out[key] = bool(out[key])
    if "beta1" in options:
        out["betas"] = (options["beta1"], options["beta2"])
    return out


def state_keys(state):
    """The names of a parameter's state; SGD without momentum keeps momentum_buffer = None, torchless nothing."""
    return sorted(key for key, value in state.items() if value is not None)


def trajectory(name, kind, options, group2):
    gen = torch.Generator().manual_seed(sum(map(ord, name)))
    params = [torch.randn(shape, generator=gen).requires_grad_() for shape in SHAPES]
    initial = [p.detach().clone() for p in params]
    if group2 is None:
        opt = OPTIMIZERS[kind](params, **torch_options(options))
    elif group2 == "append":
        opt = OPTIMIZERS[kind]([params[0]], **torch_options(options))
    elif name.endswith("_ctor"):
        opt = OPTIMIZERS[kind]([{"params": [params[0]]}, {"params": [params[1]], **torch_options(group2)}],
                               **torch_options(options))
    else:
        opt = OPTIMIZERS[kind]([params[0]], **torch_options(options))
        opt.add_param_group({"params": [params[1]], **torch_options(group2)})
    grads, after = [], []
    for step in range(STEPS_OF.get(kind, STEPS)):
        if group2 == "append" and step == APPEND_AT:
            opt.param_groups[0]["params"].append(params[1])
        step_grads = []
        for i, p in enumerate(params):
            # The second parameter has no gradient at step 2: the optimizer must skip it.
            p.grad = None if (step == 2 and i == 1) else torch.randn(p.shape, generator=gen) * (1 + step)
            step_grads.append(None if p.grad is None else p.grad.flatten().tolist())
        opt.step()
        grads.append(step_grads)
        after.append([p.detach().flatten().tolist() for p in params])
    append_at = APPEND_AT if group2 == "append" else None
    steps = [float(opt.state[p]["step"]) if "step" in opt.state[p] else None for p in params]
    return {"name": name, "kind": kind, "options": options, "group2": None if append_at else group2,
            "group2_to_constructor": name.endswith("_ctor"), "append_at": append_at,
            "shapes": [list(s) for s in SHAPES],
            "initial": [t.flatten().tolist() for t in initial], "grads": grads, "expected": after,
            "state_steps": steps, "state_keys": state_keys(opt.state[params[0]])}


def defaults(kind):
    """The options of a group given none, in torchless's names."""
    opt = OPTIMIZERS[kind]([torch.zeros(1, requires_grad=True)], **({"lr": 0.1} if kind == "SGD" else {}))
    options = {}
    for key, value in opt.param_groups[0].items():
        if key == "betas":
            options["beta1"], options["beta2"] = value
        elif key not in NOT_OPTIONS:
            options[key] = float(value)
    return {"kind": kind, "options": options}


# (name, problem, LBFGS options (line_search_fn as 0 / 1), steps): least squares |A x - b|^2 over a 10 x 4
# A from zeros, and Rosenbrock's (1 - x)^2 + 100 (y - x^2)^2 from (-1.5, 2), each step(closure) running up
# to max_iter iterations.
LBFGS_CASES = [
    ("lsq_default", "least_squares", {}, 3),
    ("lsq_strong_wolfe", "least_squares", {"line_search_fn": 1}, 3),
    ("lsq_short_history", "least_squares", {"history_size": 2, "max_iter": 5, "lr": 0.5}, 4),
    ("rosenbrock_strong_wolfe", "rosenbrock", {"line_search_fn": 1}, 4),
    ("rosenbrock_short_history", "rosenbrock", {"line_search_fn": 1, "history_size": 3, "max_iter": 10}, 6),
    ("rosenbrock_default", "rosenbrock", {"lr": 0.05, "max_iter": 10}, 5),
]


def lbfgs_problem(problem):
    if problem == "least_squares":
        gen = torch.Generator().manual_seed(5)
        a, b = torch.randn(10, 4, generator=gen), torch.randn(10, generator=gen)
        return [torch.zeros(4, requires_grad=True)], {"a": a.flatten().tolist(), "b": b.tolist()}, \
            lambda p: ((a.matmul(p[0]) - b) ** 2).sum()
    p0 = torch.tensor([-1.5, 2.0], requires_grad=True)
    return [p0], {}, lambda p: (1 - p[0][0]) ** 2 + 100 * (p[0][1] - p[0][0] ** 2) ** 2


def lbfgs_case(name, problem, options, steps):
    params, data, loss_fn = lbfgs_problem(problem)
    torch_opts = {k: v for k, v in options.items() if k != "line_search_fn"}
    if options.get("line_search_fn"):
        torch_opts["line_search_fn"] = "strong_wolfe"
    opt = torch.optim.LBFGS(params, **torch_opts)

    def closure():
        opt.zero_grad()
        loss = loss_fn(params)
        loss.backward()
        return loss

    after, losses, evals = [], [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
        after.append(params[0].detach().tolist())
        state = opt.state[params[0]]
        evals.append([state["func_evals"], state["n_iter"]])
    return {"name": name, "problem": problem, "options": options, "data": data,
            "initial": lbfgs_problem(problem)[0][0].detach().tolist(), "expected": after, "losses": losses,
            "evals": evals}


# (name, kind, scheduler arguments, group lrs, steps, the lr of a group added right after the scheduler
# was made (or None), a last_epoch loaded into the scheduler right after that (or None))
SCHEDULERS = [
    ("step_lr", "StepLR", {"step_size": 3, "gamma": 0.5}, [0.1, 0.05], 12, None, None),
    ("step_lr_default_gamma", "StepLR", {"step_size": 2}, [1.0], 7, None, None),
    ("cosine", "CosineAnnealingLR", {"T_max": 5, "eta_min": 0.001}, [0.1, 0.3], 23, None, None),
    ("cosine_zero_min", "CosineAnnealingLR", {"T_max": 4}, [0.5], 10, None, None),
    ("step_lr_added_group", "StepLR", {"step_size": 2, "gamma": 0.5}, [0.1], 9, 0.3, None),
    ("cosine_added_group", "CosineAnnealingLR", {"T_max": 3, "eta_min": 0.01}, [0.1, 0.2], 14, 0.4, None),
    ("step_lr_float_epoch", "StepLR", {"step_size": 2, "gamma": 0.5}, [0.1], 6, None, 2.5),
    ("cosine_float_epoch", "CosineAnnealingLR", {"T_max": 4, "eta_min": 0.01}, [0.1], 10, None, 1.5),
]


def lr_sequence(name, kind, args, lrs, steps, added_lr, last_epoch):
    groups = [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs]
    opt = torch.optim.SGD(groups, lr=lrs[0])
    sched = getattr(torch.optim.lr_scheduler, kind)(opt, **args)
    if added_lr is not None:
        # No initial_lr and no base lr: the closed-form branch of CosineAnnealingLR zips base_lrs with
        # the groups and leaves this group's lr as it is.
        opt.add_param_group({"params": [torch.zeros(1, requires_grad=True)], "lr": added_lr})
    if last_epoch is not None:
        sched.load_state_dict({**sched.state_dict(), "last_epoch": last_epoch})
    seq = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append(sched.get_last_lr())
    return {"name": name, "kind": kind, "args": args, "lrs": lrs, "added_lr": added_lr, "last_epoch": last_epoch,
            "expected": seq}


def main():
    assert torch.__version__.startswith("1.13"), torch.__version__
    data = {"optimizers": [trajectory(*case) for case in CASES], "defaults": [defaults(kind) for kind in OPTIMIZERS],
            "lbfgs": [lbfgs_case(*case) for case in LBFGS_CASES],
            "schedulers": [lr_sequence(*case) for case in SCHEDULERS]}
    # One case a line: readable diffs when PyTorch's numbers change.
    lines = [f' "{key}": [\n  ' + ",\n  ".join(json.dumps(case) for case in cases) + "\n ]"
             for key, cases in data.items()]
    (HERE / "optim_trajectories.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    main()
