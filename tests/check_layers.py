#!/usr/bin/env python3
"""Fails when a file includes a header from a higher layer (core < ops < autograd < data < nn < optim < distributed < fx
< ao < profiler < models; distributed/ is a library of its own, tl_distributed, outside the runtime's link),
when trace/ (the trace analysis library, outside the runtime) includes anything but core/ and itself,
when a runtime layer (or the runtime's umbrella torchless/torchless.h) includes trace/, or when a
header most files include (core/dispatch.h, core/tensor_base.h) includes the op list: a new op row then
rebuilds only the files that name ops (core/op_kind.h's includers), or when a kernel or derivative reads
an argument by name: ops/ and autograd/ read the typed fields of core/op_args.h, and only the boxed entry
(ops/registry.cpp, where FX and the profiler call) sees Attrs, which it unboxes once.

Meson links static libraries inside one linker group, so the link alone does not catch an upward
reference; this check does, for every source and header of the library folders.
usage: check_layers.py PROJECT_ROOT [STAMP_FILE]"""
import pathlib, re, sys

LAYERS = ["core", "ops", "autograd", "data", "nn", "optim", "distributed", "fx", "ao", "profiler", "models"]
TRACE, TRACE_MAY_INCLUDE = "trace", {"core", "trace"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([a-z_]+)/')
OP_LIST_FREE = ["core/dispatch.h", "core/tensor_base.h"]
OP_LIST = re.compile(r'^\s*#\s*include\s*"core/op_(list|kind)\.h"')
TYPED_FOLDERS, BOXED_ENTRY = ["ops", "autograd"], "ops/registry.cpp"
NAMED_READ = re.compile(r'\.(get<[^>]+>|find|scalar|int_list|is_none)\(\s*"|\bAttrs\b')


def includes(folder, pattern="*"):
    """(path, line number, top folder) of each project include in folder's sources and headers."""
    for path in sorted((root / folder).rglob(pattern)):
        if path.suffix in (".h", ".cpp"):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                m = INCLUDE.match(line)
                if m:
                    yield path.relative_to(root), number, m.group(1)


root = pathlib.Path(sys.argv[1])
problems = []
for rank, layer in enumerate(LAYERS):
    for path, number, target in includes(layer):
        if target in LAYERS and LAYERS.index(target) > rank:
            problems.append(f"{path}:{number}: {layer}/ includes {target}/, a higher layer")
        elif target == TRACE:
            problems.append(f"{path}:{number}: {layer}/ includes trace/, which the runtime must not link")
for path, number, target in includes("torchless", "torchless.h"):  # the runtime's umbrella header
    if target == TRACE:
        problems.append(f"{path}:{number}: the runtime's umbrella includes trace/ (that is torchless/trace.h)")
for path, number, target in includes(TRACE):
    if target not in TRACE_MAY_INCLUDE:
        problems.append(f"{path}:{number}: trace/ includes {target}/; it may include only core/ and trace/")
for header in OP_LIST_FREE:
    for number, line in enumerate((root / header).read_text().splitlines(), 1):
        if OP_LIST.match(line):
            problems.append(f"{header}:{number}: includes the op list; include core/op_kind.h where an op is named")
for folder in TYPED_FOLDERS:
    for path in sorted((root / folder).rglob("*")):
        if path.suffix not in (".h", ".cpp") or path.relative_to(root).as_posix() == BOXED_ENTRY:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if NAMED_READ.search(line):
                problems.append(f"{path.relative_to(root)}:{number}: reads an op argument by name; read the "
                                "typed field of its arguments struct (core/op_args.h)")
if problems:
    print("\n".join(problems))
    sys.exit(1)
if len(sys.argv) > 2:
    pathlib.Path(sys.argv[2]).write_text("no upward include\n")
