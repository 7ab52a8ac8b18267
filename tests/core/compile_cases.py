"""tests/core/compile_cases.py — what the compile-time tests of the op rows share (check_typed_args.py,
check_add_op.py): compiling a C++ case against the build's headers, running core/gen_ops.py on a copy of
the rows, and counting the cases that failed."""
import os
import re
import subprocess
import sys
import tempfile


class Cases:
    """Compiles cases with `compiler` (a list, as meson's cpp.cmd_array()) and -I each of `include_dirs`,
    in that order, and collects the failures."""

    def __init__(self, compiler, include_dirs):
        self.compiler = compiler
        self.includes = ["-I" + os.path.abspath(d) for d in include_dirs]
        self.names, self.failures = [], []

    def compile(self, source, name, flags=("-fsyntax-only",), out_dir=None, include_dirs=None):
        """Compiles `source` (written to NAME.cpp in `out_dir`, or in a temporary folder; -I each of
        `include_dirs` instead of the usual ones when given); returns (ok, compiler output)."""
        with tempfile.TemporaryDirectory() as tmp:
            folder = out_dir or tmp
            path = os.path.join(folder, name + ".cpp")
            with open(path, "w", encoding="utf-8") as f:
                f.write(source)
            includes = self.includes if include_dirs is None else ["-I" + os.path.abspath(d) for d in include_dirs]
            command = self.compiler + ["-std=c++20"] + list(flags) + includes + [path]
            run = subprocess.run(command, capture_output=True, text=True, cwd=folder)
            return run.returncode == 0, run.stderr

    def expect(self, case, source, good, bad_name="", flags=("-fsyntax-only",), out_dir=None, include_dirs=None):
        """A case that must compile (good) or must fail with `bad_name` in the compiler's message."""
        self.names.append(case)
        ok, out = self.compile(source, case, flags, out_dir, include_dirs)
        if good and not ok:
            self.fail(case, f"does not compile:\n{out[:4000]}")
        if not good and (ok or not re.search(re.escape(bad_name), out)):
            self.fail(case, f"expected a compile error naming '{bad_name}', got {'success' if ok else out[:2000]}")
        return ok

    def fail(self, case, why):
        self.failures.append((case, why))

    def report(self):
        """Prints the failures and a count; returns the exit status."""
        for case, why in self.failures:
            print(f"{case}: {why}", file=sys.stderr)
        failed = {case for case, _ in self.failures}
        print(f"{len([c for c in self.names if c not in failed])} passed, {len(self.failures)} failed")
        return 1 if self.failures else 0


def from_argv(argv):
    """(source_root, Cases) from a check script's arguments: SOURCE_ROOT BUILD_ROOT -- COMPILER..., the
    cases compiled against both roots."""
    sep = argv.index("--")
    source_root, build_root = argv[1:sep]
    return source_root, Cases(argv[sep + 1:], [source_root, build_root])


def read_rows(source_root):
    with open(os.path.join(source_root, "core", "native_functions.toml"), encoding="utf-8") as f:
        return f.read()


def generate(source_root, rows_path, what, out_path):
    """Runs core/gen_ops.py on the rows at `rows_path`, writing its `what` output to `out_path`."""
    subprocess.run([sys.executable, os.path.join(source_root, "core", "gen_ops.py"), rows_path, what, out_path],
                   check=True)
