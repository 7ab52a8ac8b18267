#!/usr/bin/env python3
"""torchless/install_includes.py — run by `meson install`: the installed headers include each other as
<torchless/core/tensor.h>, never as "core/tensor.h", so a user's own core/ or nn/ folder cannot stand in
for ours and the .pc file names only the include root.

In the source tree includes are rooted at the project root (STYLE.md); this rewrites each installed
header's quoted include of a torchless folder into the installed form, and fails on one it cannot resolve.
"""
import os
import re
import sys

LAYERS = ('core', 'ops', 'autograd', 'data', 'nn', 'optim', 'distributed', 'fx', 'ao', 'profiler', 'models', 'trace')
QUOTED = re.compile(r'^(\s*#\s*include\s+)"((?:' + '|'.join(LAYERS) + r')/[^"]+)"', re.M)


def main() -> int:
    root = os.path.join(os.environ['MESON_INSTALL_DESTDIR_PREFIX'], sys.argv[1], 'torchless')
    missing = []
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith('.h'):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding='utf-8') as f:
                text = f.read()
            for target in QUOTED.findall(text):
                if not os.path.isfile(os.path.join(root, target[1])):
                    missing.append(f'{os.path.relpath(path, root)} includes "{target[1]}", which is not installed')
            rewritten = QUOTED.sub(r'\1<torchless/\2>', text)
            if rewritten != text:
                with open(path, 'w', encoding='utf-8') as f:
                    f.write(rewritten)
    for line in missing:
        print('install_includes.py: ' + line, file=sys.stderr)
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
