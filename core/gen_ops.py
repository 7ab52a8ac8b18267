#!/usr/bin/env python3
"""core/gen_ops.py — the one generator of the op rows' C++ (core/native_functions.toml), as PyTorch's
torchgen writes Functions.h and TensorBody.h from native_functions.yaml: each row's `variants` say
whether it gets a free function (tl::add), a Tensor method (x.add) or both; the schema gives the
C++ parameters, their defaults and the attribute names; `python_operator` gives the C++ operators. A
row marked "manual" has its C++ API written by hand in ops/ (its overloads differ from the schema,
e.g. max(x) -> Tensor but max(x, dim) -> (values, indices)).

  gen_ops.py native_functions.toml op_list   OUT   TL_FORALL_OPS, the rows as an X-macro
  gen_ops.py native_functions.toml methods   OUT   the Tensor method declarations (included inside class Tensor)
  gen_ops.py native_functions.toml operators OUT   the operator declarations (namespace tl, after class Tensor)
  gen_ops.py native_functions.toml functions OUT   the free-function declarations (ops/ops.h includes them)
  gen_ops.py native_functions.toml sources   OUT   the definitions of all three (part of libtl_ops)

Only the C++ binding is read here; core/schema.cpp is the schema parser every runtime consumer uses.
"""
import re
import sys
import tomllib

VARIANTS = ({"function"}, {"method"}, {"function", "method"}, {"manual"}, set())
TAGS = {"pointwise", "nondeterministic_seeded", "no_overlap", "expanded_write_warns", "quantized"}
FIELDS = {"func", "variants", "tags", "python_operator", "python_target", "enum", "kernel", "aten", "autocast",
          "kernel_returns", "derivative", "decomposition", "dimless_args"}
DERIVATIVE_KINDS = {"not_differentiable", "not_implemented", "composite"}
# Python operator name -> C++ operator (eq/ne/pow/matmul have none in C++: == would compare handles).
BINARY_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "gt": ">", "lt": "<", "ge": ">=", "le": "<=",
                    "and_": "&", "or_": "|", "xor": "^"}
COMPOUND_OPERATORS = {"iadd": "+=", "isub": "-=", "imul": "*=", "itruediv": "/="}
# A number on the left, as Python runs it: `2 * x` is x.__rmul__(2), which is mul(x, 2) (add and mul
# commute); `2.0 - x` and `1.0 / x` are the rows whose Python operator is rsub / rtruediv. A comparison
# is mirrored (`2 < x` is x.__gt__(2)); eq and ne get C++ operators only with a number, where == cannot
# mean comparing handles.
REFLECTED_OPERATORS = {"add": "+", "mul": "*", "rsub": "-", "rtruediv": "/"}
MIRRORED_COMPARISONS = {"gt": ("<", ">"), "lt": (">", "<"), "ge": ("<=", ">="), "le": (">=", "<="), "eq": ("==", "=="),
                        "ne": ("!=", "!=")}


class Arg:
    def __init__(self, text, kwarg_only):
        decl, _, default = text.partition("=")
        self.type, self.name = decl.strip().rsplit(" ", 1)
        self.default = default.strip() if default else None
        self.kwarg_only = kwarg_only
        self.write = "!" in self.type
        self.base = re.sub(r"\(\w+!?\)", "", self.type)

    def is_tensor(self):
        return self.base in ("Tensor", "Tensor?")

    def is_list(self):
        """Tensor[], or Tensor?[] whose entries may be None: the inputs its neighbours leave (Schema::tensor_slots)."""
        return self.base in ("Tensor[]", "Tensor?[]")


class Op:
    def __init__(self, enum, kernel, aten, schema, pyop, tags, variants):
        self.enum, self.kernel, self.aten, self.schema, self.pyop, self.variants = enum, kernel, aten, schema, pyop, variants
        self.tags = tags
        self.pointwise = "pointwise" in tags.split(", ")
        m = re.fullmatch(r"(\w+)(?:\.(\w+))?\((.*)\) -> (.*)", schema)
        assert m, schema
        self.name, self.overload = m.group(1), m.group(2) or ""
        self.args, kwarg_only = [], False
        for part in filter(None, (p.strip() for p in m.group(3).split(", "))):
            if part == "*":
                kwarg_only = True
            else:
                self.args.append(Arg(part, kwarg_only))
        rets = m.group(4)
        if rets.startswith("("):
            rets = rets[1:-1]
        self.returns = [r.strip().split(" ")[0] for r in rets.split(",")]
        self.return_names = [(r.strip().split(" ") + [""])[1] for r in rets.split(",")]

    def binary_pointwise(self):
        """Two tensor operands, then only arguments with defaults (add's alpha) or that may be None (div's
        rounding_mode)."""
        return (self.pointwise and len(self.args) >= 2 and all(a.base == "Tensor" for a in self.args[:2])
                and all(a.default is not None or a.base.endswith("?") for a in self.args[2:]))


def camel_case(name):
    """OpKind's enumerator for an op name: max_pool2d -> MaxPool2d, add_ -> Add_, _softmax -> Softmax."""
    words = [w for w in name.strip("_").split("_") if w]
    in_place = name.endswith("_") and not name.startswith("__")
    return "".join(w[:1].upper() + w[1:] for w in words) + ("_" if in_place else "")


def overload_enum(name, overload):
    """OpKind's enumerator of an overload: pow.Scalar -> PowScalar, masked_fill_.Tensor -> MaskedFillTensor_."""
    base = camel_case(name)
    if not overload:
        return base
    in_place = base.endswith("_")
    return base.rstrip("_") + camel_case(overload) + ("_" if in_place else "")


def overload_kernel(name, overload):
    """The kernel of an overload: pow.Scalar -> pow_scalar, masked_fill_.Tensor -> masked_fill_tensor_."""
    if not overload:
        return name
    in_place = name.endswith("_") and not name.startswith("__")
    return name.rstrip("_") + "_" + overload.lower() + ("_" if in_place else "")


def full_name(op):
    """The row's name with its overload, as native_functions.yaml keys it: pow.Scalar."""
    return op.name + ("." + op.overload if op.overload else "")


def parse_declarations(path):
    """The rows of core/native_functions.toml, in order, as Op objects; exits naming the row on a bad field."""
    with open(path, "rb") as f:
        rows = tomllib.load(f).get("op", [])
    if not rows:
        sys.exit(f"{path}: no [[op]] rows found")
    ops = []
    for number, row in enumerate(rows, 1):
        where = f"{path}: op {number} ({row.get('func', '?')[:40]})"
        unknown = set(row) - FIELDS
        if unknown or "func" not in row or "variants" not in row:
            sys.exit(f"{where}: needs func and variants, and only the fields {sorted(FIELDS)}; got {sorted(row)}")
        if set(row["variants"]) not in VARIANTS:
            sys.exit(f"{where}: variants must be one of {[sorted(v) for v in VARIANTS]}, got {row['variants']}")
        if not set(row.get("tags", [])) <= TAGS:
            sys.exit(f"{where}: tags must be among {sorted(TAGS)}, got {row['tags']}")
        name, _, overload = row["func"].split("(", 1)[0].partition(".")
        if row.get("autocast", "lower_precision") not in AUTOCAST:
            sys.exit(f"{where}: autocast must be one of {sorted(AUTOCAST)}, got {row['autocast']}")
        op = Op(row.get("enum", overload_enum(name, overload)), row.get("kernel", overload_kernel(name, overload)),
                row.get("aten", "aten::" + name),
                row["func"], row.get("python_operator", ""), ", ".join(row.get("tags", [])),
                ", ".join(v for v in ("function", "method", "manual") if v in row["variants"]))
        op.autocast = row.get("autocast", "")
        op.python_target = row.get("python_target", "torch." + name)
        if not re.fullmatch(r"torch(\.\w+)+", op.python_target):
            sys.exit(f"{where}: python_target must be a dotted torch.* name, got {op.python_target!r}")
        op.derivative = row.get("derivative")
        op.decomposition = row.get("decomposition")
        if isinstance(op.derivative, str) and op.derivative not in DERIVATIVE_KINDS:
            sys.exit(f"{where}: derivative must be a table of formulas or one of {sorted(DERIVATIVE_KINDS)}, "
                     f"got {op.derivative!r}")
        if op.decomposition and op.derivative != "composite":
            sys.exit(f"{where}: a decomposition belongs to a composite derivative")
        op.output_differentiability = None
        if isinstance(op.derivative, dict) and "output_differentiability" in op.derivative:
            op.derivative = dict(op.derivative)
            flags = op.derivative.pop("output_differentiability")
            if (not isinstance(flags, list) or len(flags) != len(op.returns) or not flags[0]
                    or not all(isinstance(f, bool) for f in flags)):
                sys.exit(f"{where}: output_differentiability needs one bool per result ({len(op.returns)}), the "
                         f"first true, got {flags!r}")
            op.output_differentiability = flags
        op.dimless_args = row.get("dimless_args", [])
        dim_at = next((i for i, a in enumerate(op.args) if a.name == "dim" and a.base == "int[1]?"), None)
        if op.dimless_args and (dim_at is None or [a.name for a in op.args[dim_at + 1:dim_at + 1 + len(op.dimless_args)]]
                                != op.dimless_args or any(a.base != "bool" for a in op.args if a.name in op.dimless_args)):
            sys.exit(f"{where}: dimless_args must name the bool arguments right after an `int[1]? dim`, "
                     f"got {op.dimless_args}")
        tensors = [a for a in op.args if a.is_tensor() or a.is_list()]
        lists = [i for i, a in enumerate(tensors) if a.is_list()]
        if len(lists) > 1 or (lists and any(a.write for a in tensors[lists[0]:])):
            sys.exit(f"{where}: an op takes at most one tensor list, and writes only tensors before it")
        op.kernel_returns = row.get("kernel_returns")
        if op.kernel_returns not in (None, "Tensor[]"):
            sys.exit(f"{where}: kernel_returns can only be \"Tensor[]\", got {op.kernel_returns!r}")
        ops.append(op)
    first = {}
    for op in ops:
        first.setdefault(op.name, op)
        if op.overload and first[op.name] is op:
            sys.exit(f"{path}: {full_name(op)} comes before its op's first row (the one without an overload)")
    enums = [op.enum for op in ops]
    if len(set(enums)) != len(enums):
        sys.exit(f"{path}: two rows make the same OpKind: {sorted(e for e in enums if enums.count(e) > 1)}")
    return ops


# ---- typed arguments: one struct per op of its non-tensor arguments (core/op_args.h) ----

def args_name(op):
    """The op's arguments struct: Conv2dArgs; an in-place op shares its out-of-place op's (add_: AddArgs)."""
    return op.enum.rstrip("_") + "Args"


def number_operand(op):
    """The second of exactly two tensor operands of a pointwise op, which may come as a number (x + 2)."""
    tensors = [a for a in op.args if a.is_tensor()]
    return tensors[1] if op.pointwise and len(tensors) == 2 and len(op.args) >= 2 and op.args[1] is tensors[1] else None


def field_type(arg):
    """The C++ type of a non-tensor schema argument in its op's arguments struct."""
    t, optional = arg.base.rstrip("?"), arg.base.endswith("?")
    m = re.fullmatch(r"int\[(\d*)\]", t)
    if m and m.group(1) == "1":
        base = "IntList"  # one int or a list, kept as written (x.sum(0) traces as sum(0))
    elif m and m.group(1):
        base = f"std::array<int64_t, {m.group(1)}>"
        optional = optional or arg.default == "[]"  # int[2] stride=[]: none given (a pool's stride is its kernel)
    elif m:
        base = "Shape"
    elif t == "bool[3]":
        base = "std::array<bool, 3>"
    else:
        base = {"int": "int64_t", "float": "double", "bool": "bool", "Scalar": "Scalar", "ScalarType": "DType",
                "str": "std::string", "Generator": "Generator"}[t]
    return f"std::optional<{base}>" if optional else base


def field_default(arg):
    """The member initializer of a field: the schema's default, or {} (value-initialized) without one."""
    d, ftype = arg.default, field_type(arg)
    if d is None and ftype == "Scalar":
        return "{int64_t{0}}"  # a required number: Scalar has no empty state; every caller sets it
    if d is None or d == "None" or ftype.startswith("std::optional"):
        return "{}"
    if ftype == "IntList":  # conv1d's int[1] stride=1, roll's dims=[]: a list, as the schema's default boxes
        return "{Shape{" + d.strip("[]") + "}, false}"
    m = re.fullmatch(r"int\[(\d+)\]\??", arg.base)
    if m and not d.startswith("["):
        return "{" + ", ".join([d] * int(m.group(1))) + "}"
    if d.startswith("["):
        return "{" + d[1:-1] + "}"
    if d in ("True", "False"):
        return "{" + d.lower() + "}"
    if d.startswith("torch."):
        return "{" + {"torch.float32": "DType::Float32", "torch.int64": "DType::Int64"}[d] + "}"
    if d.startswith("'"):
        return '{"' + d[1:-1] + '"}'
    return "{" + (f"int64_t{{{d}}}" if ftype == "Scalar" and re.fullmatch(r"-?\d+", d) else d) + "}"


def box_function(arg):
    """box, or box_list for an int[N] whose default [] made its field optional: none given boxes as []. An
    int[1] (an IntList, roll's dims=[]) boxes as it is."""
    listed = re.fullmatch(r"int\[\d+\]", arg.base) and arg.default == "[]"
    return "box_list" if listed and field_type(arg).startswith("std::optional<std::array") else "box"


def generator_arg(op):
    """The op's `Generator? generator` argument (the seeded ops': rand, bernoulli, uniform_, ...), or None."""
    return next((a for a in op.args if a.base == "Generator?"), None)


def fields(op):
    """(C++ type, name, initializer) of each field of the op's arguments struct, in schema order: the
    non-tensor arguments, and for an op that takes a number for its second operand that number."""
    out = []
    for a in op.args:
        if a is number_operand(op):
            out.append(("std::optional<Scalar>", a.name, "{}"))
        elif not a.is_tensor() and not a.is_list():
            out.append((field_type(a), a.name, field_default(a)))
    return out


def op_args_header(ops):
    lines = ["#pragma once", "", "#include <array>", "#include <cstdint>", "#include <initializer_list>", "#include <optional>",
             "#include <span>", "#include <string>", "#include <tuple>", "",
             '#include "core/boxing.h"', '#include "core/generator.h"', '#include "core/op_kind.h"', "", "namespace tl {", ""]
    shared = {}
    for op in ops:
        name = args_name(op)
        body = fields(op)
        if name in shared:
            assert shared[name] == body, f"{op.schema}: an in-place op's arguments must be its out-of-place op's"
            continue
        shared[name] = body
        lines.append(f"/// {op.schema}")
        if not body:
            continue
        lines.append(f"struct {name} {{")
        for ftype, fname, init in body:
            lines.append(f"  {ftype} {fname}{init};")
        lines.append("};")
    lines += ["", "/// Each op's arguments struct and what its kernel returns: OpTraits<OpKind::Conv2d>::Args is Conv2dArgs.",
              "template <OpKind Op>", "struct OpTraits;"]
    for op in ops:
        struct = args_name(op) if fields(op) else "NoArgs"
        lines.append(f"template <> struct OpTraits<OpKind::{op.enum}> {{ using Args = {struct}; "
                     f"using Return = {kernel_return(op)}; }};")
    lines += ["template <OpKind Op>", "using ArgsOf = typename OpTraits<Op>::Args;", "",
              "namespace dispatch {", "",
              "/// Runs `Op` through the dispatch point (call_typed) and returns what its kernel returns: the generated",
              "/// C++ API's way in, checked by the compiler (`args` must be the op's struct).",
              "template <OpKind Op>",
              "typename OpTraits<Op>::Return call(std::span<const Tensor> inputs, const ArgsOf<Op>& args = {},",
              "                                   CallStyle style = CallStyle::Function) {",
              "  return detail::unpack_outputs<typename OpTraits<Op>::Return>(call_typed(Op, inputs, &args, style));",
              "}",
              "template <OpKind Op>",
              "typename OpTraits<Op>::Return call(std::initializer_list<Tensor> inputs, const ArgsOf<Op>& args = {},",
              "                                   CallStyle style = CallStyle::Function) {",
              "  return call<Op>(std::span<const Tensor>(inputs.begin(), inputs.size()), args, style);",
              "}", "", "}  // namespace dispatch", "}  // namespace tl"]
    return lines


# ---- the registry: kernel declarations, the typed entry, boxing and the row table (ops/op_registry.cpp) ----

AUTOCAST = {"lower_precision": "LowerPrecision", "float32": "Float32"}


def kernel_return(op):
    """What a typed kernel returns: Tensor, a std::tuple of them, a TensorList for Tensor[], or bool."""
    if op.returns == ["bool"]:
        return "bool"
    if op.returns == ["Tensor[]"]:
        return "TensorList"
    if len(op.returns) == 1:
        return "Tensor"
    return "std::tuple<" + ", ".join(["Tensor"] * len(op.returns)) + ">"


def typed_kernel_return(op):
    """What the op's typed kernel returns: its schema's return, or a TensorList where the row's
    kernel_returns says its output count depends on the arguments (max() without a dim: the values alone)."""
    return "TensorList" if op.kernel_returns else kernel_return(op)


def kernel_params(op):
    """The typed kernel's parameters: each tensor argument by name (a Tensor[] as a span), then the
    arguments struct when the op has one."""
    params = []
    for a in op.args:
        if a.is_list():
            params.append(f"std::span<const Tensor> {a.name}")
        elif a.is_tensor():
            params.append(f"const Tensor& {a.name}")
    if fields(op):
        params.append(f"const {args_name(op)}& args")
    return params


def kernel_call(op):
    """The typed kernel called on the dispatch point's span `in` and struct pointer `p`. A number for the
    second operand (x + 2) comes with one tensor in the span: the kernel gets an undefined one (kNoTensor)."""
    args = []
    for name, i, a in tensor_inputs(op):
        if a.is_list():
            before, after = list_neighbours(op)
            args.append(f"in.subspan({before}, in.size() - {before + after})" if before + after else "in")
        elif a is number_operand(op):
            args.append(f"(in.size() > {i} ? in[{i}] : kNoTensor)")
        else:
            args.append(f"in[{input_index(op, i)}]")
    if fields(op):
        args.append(f"*static_cast<const {args_name(op)}*>(p)")
    return f"kernels::{op.kernel}({', '.join(args)})"


def registry_source(ops):
    lines = ['#include <span>', '#include <tuple>', '', '#include "core/boxing.h"', '#include "core/op_args.h"',
             '#include "ops/elementwise.h"', '', 'namespace tl {', '',
             '// Every kernel, declared here only: a kernel file defines its kernels without including the op rows,',
             '// so a new row rebuilds the registry and not every kernel. A missing or mistyped kernel fails to link.',
             'namespace kernels {']
    for op in ops:
        lines.append(f"{typed_kernel_return(op)} {op.kernel}({', '.join(kernel_params(op))});")
    lines += ["}  // namespace kernels", "", "namespace {", ""]
    if any(number_operand(op) for op in ops):
        lines += ["// The tensor a typed kernel gets for its second operand when the op got a number instead (x + 2).",
                  "const Tensor kNoTensor;", ""]
    for op in ops:
        e, struct, body = op.enum, args_name(op), fields(op)
        names = ", ".join(f'"{n}"' for _, n, _ in body)
        lines.append(f"Attrs box_{e}([[maybe_unused]] const void* p) {{")
        if body:
            lines.append(f"  const auto& a = *static_cast<const {struct}*>(p);")
            schema_args = {a.name: a for a in op.args}
            items = ", ".join(f'{{"{n}", detail::{box_function(schema_args[n])}(a.{n})}}' for _, n, _ in body)
            lines.append(f"  return Attrs{{{items}}};")
        else:
            lines.append("  return {};")
        lines.append("}")
        lines.append(f"OpArgs unbox_{e}(const Attrs& attrs) {{")
        lines.append(f'  detail::check_names(attrs, {{{names}}}, "{op.name}");')
        if body:
            lines.append(f"  {struct} a;")
            schema_args = {a.name: a for a in op.args}
            for _, n, _ in body:
                required = schema_args[n].default is None and schema_args[n] is not number_operand(op)
                lines.append(f'  detail::unbox_field(attrs, "{n}", a.{n}, "{op.name}", {str(required).lower()});')
            lines.append(f"  return OpArgs(OpKind::{e}, std::move(a));")
        else:
            lines.append(f"  return OpArgs(OpKind::{e}, NoArgs{{}});")
        lines.append("}")
        if body:
            lines.append(f"OpArgs own_{e}(const void* p) {{ return OpArgs(OpKind::{e}, *static_cast<const {struct}*>(p)); }}")
        else:
            lines.append(f"OpArgs own_{e}(const void*) {{ return OpArgs(OpKind::{e}, NoArgs{{}}); }}")
        lines.append(f"TensorList run_{e}([[maybe_unused]] std::span<const Tensor> in, [[maybe_unused]] const void* p) {{")
        ret = typed_kernel_return(op)
        call = kernel_call(op)
        if ret == "Tensor":
            lines.append(f"  return {{{call}}};")
        elif ret == "TensorList":
            lines.append(f"  return {call};")
        elif ret == "bool":
            lines.append(f"  return {{detail::scalar_to_tensor({call}, DType::Bool)}};")
        else:
            lines.append(f"  return std::apply([](auto&&... t) {{ return TensorList{{std::move(t)...}}; }}, {call});")
        lines.append("}")
        for kind, cpp_type, arg in (("number", "Scalar", number_operand(op)), ("generator", "Generator", generator_arg(op))):
            if arg:
                lines.append(f"const {cpp_type}* {kind}_{e}(const void* p) {{")
                lines.append(f"  const auto& {kind[0]} = static_cast<const {struct}*>(p)->{arg.name};")
                lines.append(f"  return {kind[0]} ? &*{kind[0]} : nullptr;")
                lines.append("}")
        lines.append("")
    lines.append("const OpInfo kOpRows[] = {")
    for op in ops:
        e = op.enum
        number = f"&number_{e}" if number_operand(op) else "nullptr"
        generator = f"&generator_{e}" if generator_arg(op) else "nullptr"
        cast = AUTOCAST.get(op.autocast, "None")
        lines.append(f'    {{"{op.aten}", "{op.schema}", "{op.pyop}", "{op.python_target}", "{op.tags}", &run_{e}, &box_{e}, &unbox_{e}, '
                     f'&own_{e}, {number}, {generator}, AutocastPolicy::{cast}}},')
    lines += ["};", "static_assert(sizeof(kOpRows) / sizeof(kOpRows[0]) == kNumOps);", "", "}  // namespace", "",
              "const OpInfo& op_info(OpKind op) { return kOpRows[static_cast<size_t>(op)]; }", "", "}  // namespace tl"]
    return lines


# ---- derivatives beside their ops (autograd/op_derivatives.cpp) ----

# A name the expression uses by itself (not a member: self_info.shape does not read a field `shape`).
IDENT = re.compile(r"(?<![.\w])[A-Za-z_]\w*")


def tensor_inputs(op):
    """The op's tensor arguments in call order: (name, index among the tensor arguments, schema arg)."""
    out = []
    for a in op.args:
        if a.is_tensor() or a.is_list():
            out.append((a.name, len(out), a))
    return out


def list_neighbours(op):
    """How many tensor arguments come before and after the op's list argument (index_put_: 1 and 1)."""
    tensors = tensor_inputs(op)
    at = next(i for _, i, a in tensors if a.is_list())
    return at, len(tensors) - at - 1


def input_index(op, i, count="in.size()"):
    """The C++ expression of tensor argument i's position in a call's inputs, whose number is `count`
    (in.size() in a kernel call, c.num_inputs() in a formula): i, or counted from the end after a list."""
    lists = [j for _, j, a in tensor_inputs(op) if a.is_list()]
    if not lists or i < lists[0]:
        return str(i)
    return f"{count} - {len(tensor_inputs(op)) - i}"


class Formula:
    """One `inputs: expression` of a row's derivative: the inputs it gives gradients to and what it reads."""

    def __init__(self, op, key, expr):
        self.op, self.expr = op, expr
        tensors = {name: (i, a) for name, i, a in tensor_inputs(op)}
        self.targets = [k.strip() for k in key.split(",")]
        for t in self.targets:
            if t not in tensors:
                sys.exit(f"{op.schema}: derivative for '{t}', which is not a tensor argument")
        self.indices = [tensors[t][0] for t in self.targets]
        self.names = set(IDENT.findall(expr))
        self.reads_inputs = sorted({tensors[n][0] for n in self.names if n in tensors})
        self.reads_outputs = sorted({k for k in range(len(op.returns)) if self.output_name(k) & self.names})

    def output_name(self, k):
        names = {f"result{k}"} | ({"result"} if k == 0 else set())
        return names | ({self.op.return_names[k]} if self.op.return_names[k] else set())


def derivative_of(op, by_name):
    """The row whose derivative `op` uses: its own, or for an in-place op without one its out-of-place op's."""
    if op.derivative is not None:
        return op
    in_place = op.name.endswith("_") and not op.name.startswith("__")
    base = by_name.get(full_name(op).replace(op.name, op.name.rstrip("_"), 1)) if in_place else None
    if base is None or base.derivative is None:
        sys.exit(f"{op.schema}: every row names its derivative (a table of formulas, "
                 f"{', '.join(sorted(DERIVATIVE_KINDS))}); an in-place row may leave it to its out-of-place row")
    return base


def formula_locals(op, formula, names):
    """Declarations of what a formula's expression names: grad, results, inputs (saved), their _info,
    argument fields, grad_input_mask."""
    lines = []
    tensors = tensor_inputs(op)
    number = number_operand(op)
    field_names = {n for _, n, _ in fields(op)}
    if "grad" in names:
        lines.append("const Tensor grad = c.grad(0);")
    if "grads" in names:  # derivatives.yaml's grads[k]: every output's gradient (zeros where none flowed)
        items = ", ".join(f"c.grad({k})" for k in range(len(op.returns)))
        lines.append(f"const TensorList grads{{{items}}};")
    for k in range(len(op.returns)):
        for n in sorted(formula.output_name(k) & names):
            lines.append(f"const Tensor {n} = c.output({k});")
    for name, i, a in tensors:
        if a.is_list():
            before, after = list_neighbours(op)
            if name in names:
                if not a.base.startswith("Tensor?"):
                    sys.exit(f"{op.schema}: a formula reads the tensors of a list; it may read {name}_info")
                lines.append(f"const TensorList {name} = c.inputs({before}, c.num_inputs() - {after});")
            if f"{name}_info" in names:
                if before + after:
                    sys.exit(f"{op.schema}: {name}_info is every input's info; the op has tensors beside its list")
                lines.append(f"const std::vector<TensorInfo>& {name}_info = c.infos();")
            continue
        i = input_index(op, i, "c.num_inputs()")
        if name in names:
            if a is number:
                lines.append(f"const Tensor {name} = c.input_or_number({i}, args.{name});")
            elif a.base.endswith("?"):
                lines.append(f"const Tensor {name} = c.optional_input({i});")
            else:
                lines.append(f"const Tensor {name} = c.input({i});")
        if f"{name}_info" in names:
            lines.append(f"const TensorInfo& {name}_info = c.info({i});")
    tensor_names = {name for name, _, _ in tensors}
    for n in sorted(names & field_names - tensor_names):
        lines.append(f"const auto& {n} = args.{n};")
    return lines


def derivative_function(op, formulas):
    struct = args_name(op) if fields(op) else None
    lines = [f"TensorList backward_{op.enum}(const GradContext& c) {{"]
    if struct:
        lines.append(f"  [[maybe_unused]] const auto& args = c.args<{struct}>();")
    list_input = any(a.is_list() for a in op.args)
    lines.append("  TensorList input_grads(c.num_inputs());" if list_input else f"  TensorList input_grads({len(tensor_inputs(op))});")
    by_index = {i: a for _, i, a in tensor_inputs(op)}
    for f in formulas:
        gives_list = any(by_index[i].is_list() for i in f.indices)
        if gives_list and len(tensor_inputs(op)) > 1:
            sys.exit(f"{op.schema}: a formula gives a list's gradients only when the list is the op's one tensor argument")
        positions = [input_index(op, i, "c.num_inputs()") for i in f.indices]
        needs = "c.any_needs()" if gives_list else " || ".join(f"c.needs({p})" for p in positions)
        lines.append(f"  if ({needs}) {{")
        for decl in formula_locals(op, f, f.names):
            lines.append("    " + decl)
        if len(f.indices) > 1:
            mask = ", ".join(f"c.needs({p})" for p in positions)
            lines.append(f"    [[maybe_unused]] const std::array<bool, {len(f.indices)}> grad_input_mask{{{mask}}};")
            lines.append(f"    set_grads(input_grads, {{{', '.join(positions)}}}, {f.expr});")
        elif gives_list:
            lines.append(f"    input_grads = {f.expr};")
        else:
            lines.append(f"    input_grads[{positions[0]}] = {f.expr};")
        lines.append("  }")
    lines += ["  return input_grads;", "}", ""]
    return lines


def name_function(op, name):
    """A node name that depends on the call (sum(): SumBackward0, sum(dim): SumBackward1), from the fields."""
    lines = [f"const char* node_name_{op.enum}(const void* p) {{",
             f"  [[maybe_unused]] const auto& args = *static_cast<const {args_name(op)}*>(p);"]
    for n in sorted(set(IDENT.findall(name)) & {f for _, f, _ in fields(op)}):
        lines.append(f"  const auto& {n} = args.{n};")
    return lines + [f"  return {name};", "}", ""]


def derivatives_source(ops):
    by_name = {full_name(op): op for op in ops}
    lines = ['#include <array>', '#include <span>', '', '#include "autograd/formulas.h"', '#include "core/op_args.h"',
             '#include "ops/ops.h"', '', 'namespace tl::autograd {', 'namespace {', '']
    rows = []
    for op in ops:
        d = derivative_of(op, by_name)
        if d is not op:
            rows.append(("same as", d.enum))  # an in-place op: its out-of-place op's entry, filled in below
            continue
        if isinstance(op.derivative, dict):
            table = dict(op.derivative)
            name = table.pop("name", None)
            if not name:
                sys.exit(f"{op.schema}: a derivative table names its node (name = \"MulBackward0\")")
            formulas = [Formula(op, key, expr) for key, expr in table.items()]
            lines += derivative_function(op, formulas)
            reads = {}
            for f in formulas:
                for i in f.indices:
                    reads[i] = f
            n_inputs = len(tensor_inputs(op))
            read_items = []
            for i in range(n_inputs):
                f = reads.get(i)
                ins = " | ".join(f"(1u << {r})" for r in f.reads_inputs) if f and f.reads_inputs else "0"
                outs = " | ".join(f"(1u << {r})" for r in f.reads_outputs) if f and f.reads_outputs else "0"
                read_items.append(f"{{{ins}, {outs}}}")
            if re.fullmatch(r"\w+", name):
                name_expr, overload = f'"{name}"', "nullptr"
            else:
                lines += name_function(op, name)
                name_expr, overload = '""', f"&node_name_{op.enum}"
            flags = op.output_differentiability or [True] * len(op.returns)
            differentiable = " | ".join(f"(1u << {k})" for k, f in enumerate(flags) if f)
            rows.append(f"  {{Kind::Formula, {name_expr}, {{{', '.join(read_items)}}}, &backward_{op.enum}, nullptr, "
                        f"{overload}, {differentiable}}},")
        elif op.derivative == "composite":
            decomposition = "nullptr"
            if op.decomposition:
                lines += [f"TensorList decompose_{op.enum}(std::span<const Tensor> in, const void* p) {{",
                          f"  return {op.decomposition}(in, *static_cast<const {args_name(op)}*>(p));", "}", ""]
                decomposition = f"&decompose_{op.enum}"
            rows.append(f'  {{Kind::Composite, "", {{}}, nullptr, {decomposition}, nullptr}},')
        elif op.derivative == "not_differentiable":
            rows.append('  {Kind::NotDifferentiable, "", {}, nullptr, nullptr, nullptr},')
        else:
            rows.append(f'  {{Kind::NotImplemented, "{op.aten or op.name}", {{}}, nullptr, nullptr, nullptr}},')
    index = {op.enum: i for i, op in enumerate(ops)}
    final = []
    for row in rows:
        final.append(rows[index[row[1]]] if isinstance(row, tuple) else row)
    lines += ["using Kind = DerivativeKind;", "", "}  // namespace", "",
              "const Derivative& derivative_of(OpKind op) {",
              "  static const Derivative table[] = {"] + ["  " + r for r in final] + [
              "  };", "  static_assert(sizeof(table) / sizeof(table[0]) == kNumOps);",
              "  return table[static_cast<size_t>(op)];", "}", "", "}  // namespace tl::autograd"]
    return lines


def op_list(ops):
    """The rows as the X-macro C++ code iterates: _(Enum, kernel, "aten", "schema", "pyop", "tags", "variants")."""
    lines = ["#pragma once", "", "// clang-format off", "#define TL_FORALL_OPS(_) \\"]
    for op in ops:
        lines.append(f'  _({op.enum}, {op.kernel}, "{op.aten}", "{op.schema}", "{op.pyop}", "{op.tags}", "{op.variants}") \\')
    lines[-1] = lines[-1][:-2]
    return lines + ["// clang-format on"]


def cpp_type(arg, required=False, single=False, braced=False):
    """The C++ parameter type of a schema argument; `required` drops the optional of `int? dim`, `single`
    takes one int for an int list, `braced` a braced list."""
    t = arg.base
    optional = t.endswith("?") and not required
    t = t.rstrip("?")
    if t == "Tensor":
        return "const Tensor&"
    if t == "Tensor[]":
        return "TensorListRef"
    if re.fullmatch(r"int\[\d*\]", t) and single:
        return "int64_t"
    if re.fullmatch(r"int\[\d*\]", t) and braced:
        return "std::initializer_list<int64_t>"
    if re.fullmatch(r"int\[\d*\]", t):
        return "const std::optional<Shape>&" if optional else "const Shape&"
    if t == "bool[3]":
        return "std::array<bool, 3>"
    base = {"int": "int64_t", "float": "double", "bool": "bool", "Scalar": "Scalar", "ScalarType": "DType",
            "str": "std::string", "Generator": "Generator"}[t]
    if optional:
        return f"std::optional<{base}>"
    return f"const {base}&" if base in ("Scalar", "std::string") else base


def cpp_default(arg):
    d, t = arg.default, arg.base
    if d == "None":
        return "{}" if arg.is_tensor() else "std::nullopt"
    m = re.fullmatch(r"int\[(\d*)\]\??", t)
    if m:
        if d.startswith("["):
            return "{" + d[1:-1] + "}"
        return "{" + ", ".join([d] * int(m.group(1) or 1)) + "}"
    if d in ("True", "False"):
        return d.lower()
    if d.startswith("torch."):
        return {"torch.float32": "DType::Float32", "torch.int64": "DType::Int64"}[d]
    if d.startswith("'"):
        return '"' + d[1:-1] + '"'
    return d


def values_indices(op):
    """Whether the op returns torch.return_types.<name> (Tensor values, Tensor indices): core/return_types.h."""
    return op.return_names == ["values", "indices"]


def returns_type(op):
    """The C++ API's return type, LibTorch's: Tensor, std::tuple of Tensors, std::vector<Tensor>, bool, or
    the named (values, indices) of return_types."""
    if values_indices(op):
        return f"return_types::{op.name}"
    return kernel_return(op).replace("TensorList", "std::vector<Tensor>")


def api_return(op, call):
    """The body's return statement of `call`: a return_types result is built from the tuple's two Tensors."""
    if values_indices(op):
        return f"auto [values, indices] = {call};\n  return {{std::move(values), std::move(indices)}};"
    return f"return {call};"


class Overload:
    """One C++ signature of an op: its parameters (schema args it takes); the rest keep their defaults."""

    def __init__(self, op, params, fixed, scalar_second=False, required_dim=False, single_dim=False, braced_dim=False,
                 required=()):
        self.op, self.params, self.fixed = op, params, fixed  # fixed: names of the arguments left at their defaults
        self.required = set(required)  # names of parameters taken without their schema default
        self.scalar_second, self.required_dim = scalar_second, required_dim
        self.single_dim, self.braced_dim = single_dim, braced_dim

    def param_decls(self, skip_self, defaults=True):
        """The C++ parameter list; with `defaults`, the schema's defaults as far as C++ allows them."""
        params = self.params[1:] if skip_self else self.params
        decls = []
        for a in params:
            if self.scalar_second and a is self.op.args[1]:
                t = "const Scalar&"
            else:
                is_dim = self.required_dim and a.name == "dim"
                t = cpp_type(a, required=is_dim, single=is_dim and self.single_dim, braced=is_dim and self.braced_dim)
            decls.append([t, a.name, a.default])
        # C++ defaults must be trailing: a parameter without one removes the defaults before it.
        has_default = True
        for d in reversed(decls):
            if d[2] is None or (self.required_dim and d[1] == "dim") or d[1] in self.required:
                has_default = False
            if not has_default:
                d[2] = None
        out = []
        for (t, name, default), a in zip(decls, params):
            out.append(f"{t} {name}" + (f" = {cpp_default(a)}" if defaults and default is not None else ""))
        return ", ".join(out)

    def call(self, self_expr, style):
        """The body's typed dispatch of this overload; self_expr stands for the first argument. Arguments
        the overload does not take keep their struct defaults, which are the schema's."""
        op, tensors, inits = self.op, [], []
        for i, a in enumerate(op.args):
            expr = self_expr if i == 0 and self_expr else a.name
            if a.name in self.fixed:
                continue
            if a.is_tensor() and not (self.scalar_second and i == 1):
                tensors.append(expr)
            elif a.is_list():
                if tensors or len(tensor_inputs(op)) > 1:
                    sys.exit(f"{op.schema}: a generated C++ API takes a list as the op's one tensor argument; "
                             "write this op's by hand (variants = [\"manual\"] or [])")
                tensors = None
                list_name = a.name
            elif self.scalar_second and i == 1:
                inits.append(f".{a.name} = {expr}")
            elif self.braced_dim and a.name == "dim":
                inits.append(f".{a.name} = IntList{{Shape({expr}), false}}")
            elif self.single_dim and a.name == "dim":
                inits.append(f".{a.name} = IntList{{Shape{{{expr}}}, true}}")
            elif a.base.startswith("int[1]") and self.required_dim and a.name == "dim":
                inits.append(f".{a.name} = IntList{{{expr}, false}}")
            elif re.sub(r"^const |&$", "", cpp_type(a)) == field_type(a):
                inits.append(f".{a.name} = {expr}")
            else:
                inits.append(f'.{a.name} = detail::to_field<{field_type(a)}>({expr}, "{op.name}", "{a.name}")')
        struct = (args_name(op) + "{" + ", ".join(inits) + "}") if fields(op) else "{}"
        style_arg = f", CallStyle::{style}" if style != "Function" else ""
        inputs = list_name if tensors is None else "{" + ", ".join(tensors) + "}"
        return f"dispatch::call<OpKind::{op.enum}>({inputs}, {struct}{style_arg})"


def overloads(op):
    result = [Overload(op, op.args, set())]
    dims = [i for i, a in enumerate(op.args)
            if a.name == "dim" and a.base in ("int?", "int[]?", "int[1]?") and a.default == "None"]
    if dims and all(a.default is not None for a in op.args[dims[0]:]):
        i = dims[0]
        fixed = {a.name for a in op.args[i:]}
        result = [Overload(op, op.args[:i], fixed), Overload(op, op.args, set(), required_dim=True)]
        if op.args[i].base == "int[1]?":
            # One int (x.sum(0)) is kept as an int, so a trace records it as written; a braced list
            # ({}, {0}, {0, 1}) prefers std::initializer_list over both, so {} still means every dim.
            result.append(Overload(op, op.args, set(), required_dim=True, single_dim=True))
            result.append(Overload(op, op.args, set(), required_dim=True, braced_dim=True))
    listed = [i for i, a in enumerate(op.args) if a.name == "dim" and a.base == "int[1]"]
    if listed and all(a.default is not None for a in op.args[listed[0] + 1:]):
        # amax(x, {0, 1}) and amax(x, 1), as ATen's IntArrayRef takes one int; with a default ([]: every
        # dim) also amax(x).
        i = listed[0]
        result = [Overload(op, op.args[:i], {a.name for a in op.args[i:]})] if op.args[i].default is not None else []
        result += [Overload(op, op.args, set(), required_dim=True),
                   Overload(op, op.args, set(), required_dim=True, single_dim=True),
                   Overload(op, op.args, set(), required_dim=True, braced_dim=True)]
    if op.binary_pointwise():
        result.append(Overload(op, op.args, set(), scalar_second=True))
    generator = generator_arg(op)
    dtype = next((a for a in op.args if a.kwarg_only and a.base == "ScalarType"), None)
    if generator and dtype and op.args.index(dtype) < op.args.index(generator):
        # LibTorch's pair for a factory: rand(size, dtype) and rand(size, generator, dtype), the generator
        # before the TensorOptions, as ATen's rand.generator overload has it.
        if len(result) != 1:
            sys.exit(f"{op.schema}: a factory with a generator has no other overloads")
        rest = [a for a in op.args if a is not generator]
        at = rest.index(dtype)
        result = [Overload(op, rest, {generator.name}),
                  Overload(op, rest[:at] + [generator] + rest[at:], set(), required=[generator.name])]
    return result


def dimless_decls(op, variant):
    """ATen's dim-less overload of a row with dimless_args (var(Tensor self, bool unbiased)): x.var(false)
    is unbiased=false over every element, as LibTorch's. A template taking exactly bool, so that an int
    stays a dim (x.var(0)) and a bool never converts to one; it calls the overload whose empty dim list
    means every dim."""
    names = op.dimless_args
    template = "template <" + ", ".join(f"std::same_as<bool> B{i}" for i in range(len(names))) + ">"
    params = ", ".join(f"B{i} {n}" for i, n in enumerate(names))
    if variant == "function":
        return [template, f"{returns_type(op)} {op.name}(const Tensor& self, {params}) {{ return {op.name}(self, Shape{{}}, "
                f"{', '.join(names)}); }}"]
    return [template, f"{returns_type(op)} {op.name}({params}) const {{ return {op.name}(Shape{{}}, {', '.join(names)}); }}"]


def in_place(op):
    return op.args and op.args[0].write and op.returns == ["Tensor(a!)"]


def api_decls(ops, variant):
    """The declarations of every op whose variants name `variant`: "method" (inside class Tensor, self
    implicit) or "function" (free functions)."""
    lines = []
    for op in ops:
        if variant not in op.variants.split(", "):
            continue
        lines.append(f"/// aten::{op.schema}")
        for ov in overloads(op):
            if variant == "function":
                lines.append(f"{returns_type(op)} {op.name}({ov.param_decls(skip_self=False)});")
            elif in_place(op):
                lines.append(f"Tensor& {op.name}({ov.param_decls(skip_self=True)});")
            else:
                lines.append(f"{returns_type(op)} {op.name}({ov.param_decls(skip_self=True)}) const;")
        if op.dimless_args:
            lines += dimless_decls(op, variant)
    return lines


def operator_defaults(op):
    """An operator takes the two operands; the rest (add's alpha) keep their defaults."""
    return {a.name for a in op.args[2:]}


def operator_overloads(ops):
    """(declaration, body) of each C++ operator the Python-operator column names."""
    result = []
    for op in ops:
        if op.pyop == "neg":
            result.append(("Tensor operator-(const Tensor& self)",
                           f"return dispatch::call<OpKind::{op.enum}>({{self}}, {{}}, CallStyle::Operator);"))
        if op.pyop in REFLECTED_OPERATORS:
            other = op.args[1].name
            reflected = Overload(op, op.args[:2], operator_defaults(op), scalar_second=True)
            result.append((f"Tensor operator{REFLECTED_OPERATORS[op.pyop]}(const Scalar& {other}, const Tensor& self)",
                           f"return {reflected.call('self', 'ReflectedOperator')};"))
        if op.pyop in MIRRORED_COMPARISONS:
            mirrored, own = MIRRORED_COMPARISONS[op.pyop]
            other = op.args[1].name
            result.append((f"Tensor operator{mirrored}(const Scalar& {other}, const Tensor& self)", f"return self {own} {other};"))
            if op.pyop in ("eq", "ne"):
                scalar = Overload(op, op.args, set(), scalar_second=True)
                result.append((f"Tensor operator{own}(const Tensor& self, const Scalar& {other})",
                               f"return {scalar.call('self', 'Operator')};"))
        for table, compound in ((BINARY_OPERATORS, False), (COMPOUND_OPERATORS, True)):
            if op.pyop not in table:
                continue
            other = op.args[1].name
            operands = [Overload(op, op.args[:2], operator_defaults(op))]
            if op.binary_pointwise():
                operands.append(Overload(op, op.args[:2], operator_defaults(op), scalar_second=True))
            for ov in operands:
                t = "const Scalar&" if ov.scalar_second else "const Tensor&"
                if compound:
                    decl = f"Tensor& operator{table[op.pyop]}(Tensor& self, {t} {other})"
                    body = f"{ov.call('self', 'Operator')};\n  return self;"
                else:
                    decl = f"Tensor operator{table[op.pyop]}(const Tensor& self, {t} {other})"
                    body = f"return {ov.call('self', 'Operator')};"
                result.append((decl, body))
    return result


def sources(ops):
    lines = ['#include "core/op_args.h"', '#include "ops/attr_util.h"', '#include "ops/ops.h"', "", "namespace tl {", ""]
    for op in ops:
        variants = op.variants.split(", ")
        for ov in overloads(op):
            if "function" in variants:
                params = ov.param_decls(skip_self=False, defaults=False)
                lines.append(f"{returns_type(op)} {op.name}({params}) {{")
                lines.append(f"  {api_return(op, ov.call(None, 'Function'))}")
                lines.append("}")
            if "method" in variants:
                params = ov.param_decls(skip_self=True, defaults=False)
                if in_place(op):
                    lines.append(f"Tensor& Tensor::{op.name}({params}) {{")
                    lines.append(f"  {ov.call('*this', 'Method')};")
                    lines.append("  return *this;")
                else:
                    lines.append(f"{returns_type(op)} Tensor::{op.name}({params}) const {{")
                    lines.append(f"  {api_return(op, ov.call('*this', 'Method'))}")
                lines.append("}")
    for decl, body in operator_overloads(ops):
        lines.append(f"{decl} {{")
        lines.append(f"  {body}")
        lines.append("}")
    lines += ["", "}  // namespace tl"]
    return lines


def main():
    outputs = ("op_list", "op_args", "registry", "derivatives", "methods", "operators", "functions", "sources")
    if len(sys.argv) != 4 or sys.argv[2] not in outputs:
        sys.exit(f"usage: gen_ops.py native_functions.toml {'|'.join(outputs)} OUT")
    ops = parse_declarations(sys.argv[1])
    what = sys.argv[2]
    header = f"// Generated by core/gen_ops.py from core/native_functions.toml ({what}); do not edit.\n"
    if what == "op_list":
        body = op_list(ops)
    elif what == "op_args":
        body = op_args_header(ops)
    elif what == "registry":
        body = registry_source(ops)
    elif what == "derivatives":
        body = derivatives_source(ops)
    elif what == "methods":
        body = api_decls(ops, "method")
    elif what == "operators":
        body = [d + ";" for d, _ in operator_overloads(ops)]
    elif what == "functions":
        body = ["#pragma once", "", '#include "core/tensor.h"', "", "namespace tl {", ""] + api_decls(ops, "function") + [
            "", "}  // namespace tl"]
    else:
        body = sources(ops)
    text = header + "\n".join(body) + "\n"
    # An unchanged file keeps its timestamp: a row that adds no method leaves op_methods.h, and so every
    # file that includes core/tensor.h, unbuilt.
    try:
        with open(sys.argv[3], encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
