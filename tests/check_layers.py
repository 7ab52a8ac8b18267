#!/usr/bin/env python3
"""Fails when a file includes a header from a higher layer (core < ops < nn < fx < profiler < models).

Meson links static libraries inside one linker group, so the link alone does not catch an upward
reference; this check does, for every source and header of the library folders.
usage: check_layers.py PROJECT_ROOT [STAMP_FILE]"""
import pathlib, re, sys

LAYERS = ["core", "ops", "nn", "fx", "profiler", "models"]
INCLUDE = re.compile(r'^\s*#\s*include\s*"([a-z_]+)/')

root = pathlib.Path(sys.argv[1])
problems = []
for rank, layer in enumerate(LAYERS):
    for path in sorted((root / layer).rglob("*")):
        if path.suffix not in (".h", ".cpp"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) in LAYERS and LAYERS.index(m.group(1)) > rank:
                problems.append(f"{path.relative_to(root)}:{number}: {layer}/ includes {m.group(1)}/, a higher layer")
if problems:
    print("\n".join(problems))
    sys.exit(1)
if len(sys.argv) > 2:
    pathlib.Path(sys.argv[2]).write_text("no upward include\n")
