#!/usr/bin/env python3
"""torchless/gen_export_map.py — writes the linker version script of a shared torchless library: it exports
the API, every symbol whose outermost scope is namespace tl (functions, members, typeinfo, vtables, guard
variables, thread_local wrappers), except the namespaces that only uninstalled headers declare; everything
else the library holds (its oneDNN, Eigen and std:: instantiations) stays local.

A literal list, not globs: GNU ld lets a global wildcard win over a local one, so `tl::*` exported and
`tl::onednn::*` hidden cannot both be patterns. tests/install/check_install.sh checks that no installed header
opens a namespace listed in HIDDEN.
usage: gen_export_map.py OUTPUT VERSION_NODE ARCHIVE..."""
import re
import subprocess
import sys

# ops/onednn/, ops/conv.h, ops/conv_f64.h, ops/pool_windows.h, ops/inference_layout.h: not installed.
HIDDEN = ('onednn', 'kernels', 'inference')
SCOPE = r'(?:N[KRO]*|ZN[KRO]*|T[ISVT]N|T[HW]N|GVZ?N[KRO]*)'
API = re.compile(r'^_Z' + SCOPE + r'2tl(?!' + '|'.join(f'{len(n)}{n}' for n in HIDDEN) + r')')


def main() -> int:
    output, node, archives = sys.argv[1], sys.argv[2], sys.argv[3:]
    listing = subprocess.run(['nm', '--defined-only', '--extern-only', '--format=posix', *archives],
                             check=True, capture_output=True, text=True).stdout
    names = set()
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[1] not in ('U', 'w', 'v') and API.match(fields[0]):
            names.add(fields[0])
    lines = [f'{node} {{', '  global:'] + [f'    {name};' for name in sorted(names)] + ['  local:', '    *;', '};']
    with open(output, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
