#!/usr/bin/python3
"""bench/pt_env.py — the environments every PyTorch benchmark partner runs in, and what it ran with.

Debian's PyTorch does its matmuls through whatever libblas.so.3 is (the reference BLAS by default) and
allocates through glibc, whose returning of freed memory costs page faults at larger batches. So a partner
runs once per environment and the comparison keeps its best:
  installed  the process's environment as it is (the system's libblas.so.3 and glibc's malloc)
  tuned      OpenBLAS (libopenblas0-pthread, found through LD_LIBRARY_PATH for this process only) with
             OPENBLAS_NUM_THREADS = the partner's thread count, and jemalloc (libjemalloc2) preloaded;
             OPENBLAS_CORETYPE is left as the machine has it. A missing package falls back to the
             installed one, with a note on stderr; with both missing the tuned run is skipped.
A partner reports runtime() beside each figure: the BLAS and allocator it actually loaded, read from
/proc/self/maps, never assumed from the environment asked for.

  pt_env.py --threads N -- COMMAND...   runs COMMAND once per environment, one after the other (each its
                                        own process, so that each peak RSS is its own); exits with the
                                        first failure's status
  pt_env.py --describe                  one line: the environments and what each asks for
"""
import os
import re
import subprocess
import sys

OPENBLAS_DIR = "/usr/lib/x86_64-linux-gnu/openblas-pthread"
JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"

# (pattern on a mapped file's path, name), first match wins.
BLAS = [(r"openblas-pthread/|libopenblasp-", "openblas-pthread"),
        (r"openblas-openmp/|libopenblaso-", "openblas-openmp"), (r"libopenblas", "openblas"), (r"libmkl_", "mkl"), (r"libblis", "blis"), (r"/blas/libblas\.so", "reference")]
ALLOCATORS = [(r"libjemalloc", "jemalloc"), (r"libtcmalloc", "tcmalloc"), (r"libmimalloc", "mimalloc")]


def runtime(maps="/proc/self/maps"):
    """{'blas': ..., 'allocator': ...} of the libraries mapped into this process (call it after importing
    torch, which loads the BLAS). 'unknown' BLAS when none is recognized; 'glibc' without another malloc."""
    with open(maps) as f:
        paths = {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
    first = lambda table, default: next((name for pattern, name in table if any(re.search(pattern, p) for p in paths)),
                                        default)
    return {"blas": first(BLAS, "unknown"), "allocator": first(ALLOCATORS, "glibc")}


def environments(threads, base=None):
    """[(name, environment variables, notes)]: installed first, then tuned with what is installed of it
    (None instead of the variables when nothing is)."""
    base = dict(os.environ if base is None else base)
    tuned, notes = dict(base), []
    if os.path.exists(os.path.join(OPENBLAS_DIR, "libblas.so.3")):
        tuned["LD_LIBRARY_PATH"] = ":".join(filter(None, [OPENBLAS_DIR, base.get("LD_LIBRARY_PATH")]))
        tuned["OPENBLAS_NUM_THREADS"] = str(threads)
    else:
        notes.append(f"libopenblas0-pthread is not installed ({OPENBLAS_DIR}/libblas.so.3): the installed BLAS")
    if os.path.exists(JEMALLOC):
        tuned["LD_PRELOAD"] = " ".join(filter(None, [JEMALLOC, base.get("LD_PRELOAD")]))
    else:
        notes.append(f"libjemalloc2 is not installed ({JEMALLOC}): glibc's malloc")
    return [("installed", base, []), ("tuned", None if len(notes) == 2 else tuned, notes)]


def describe():
    parts = []
    for name, env, notes in environments(threads="N"):
        asked = [f"{k}={env[k]}" for k in ("LD_LIBRARY_PATH", "OPENBLAS_NUM_THREADS", "LD_PRELOAD")
                 if env is not None and name != "installed" and k in env]
        parts.append(f"{name} ({', '.join(asked + notes) if asked or notes else 'as the system has it'})"
                     if env is not None else f"{name} skipped ({'; '.join(notes)})")
    return "; ".join(parts)


def main(argv):
    if argv == ["--describe"]:
        print(describe())
        return 0
    if len(argv) < 4 or argv[0] != "--threads" or argv[2] != "--" or not argv[1].isdigit() or int(argv[1]) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    status = 0
    for name, env, notes in environments(int(argv[1])):
        for note in notes:
            print(f"pt_env: {name}: {note}" + ("" if env is not None else "; not run"), file=sys.stderr)
        if env is not None:
            rc = subprocess.run(argv[3:], env=env).returncode
            status = status or rc
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
