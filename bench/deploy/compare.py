#!/usr/bin/env python3
"""bench/deploy/compare.py [BUILD_DIR] [--runs N] [--work DIR] — examples/deploy beside its equivalents on
LibTorch 1.13 (bench/deploy/deploy_libtorch.cpp, built here against Debian's libtorch-dev) and ONNX Runtime
(bench/deploy/deploy_ort.js on onnxruntime-node in ORT_DIR, default /tmp/ort, set up as bench/compare's header
says): the same resnet18 weights and picture (bench/deploy/export.py writes the partners' models into --work,
default /tmp/tl_deploy), each program run N times (default 5) in turn, OMP_NUM_THREADS=2. Prints a Markdown
table: top class, program size, the shared libraries it loads beyond the C/C++ runtime (count and bytes),
peak RSS and start-to-exit wall and CPU time (medians, with min-max). Runs with any python3 (stdlib only);
the export step runs /usr/bin/python3 (PyTorch 1.13)."""
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
# Libraries every C++ program loads; not counted as the runtime's.
BASE = ("linux-vdso", "ld-linux", "libc.so", "libm.so", "libstdc++", "libgcc_s", "libpthread", "libdl.so",
        "librt.so")


def options():
    args, build, runs, work = sys.argv[1:], os.path.join(ROOT, "build"), 5, "/tmp/tl_deploy"
    while args:
        a = args.pop(0)
        if a == "--runs":
            runs = int(args.pop(0))
        elif a == "--work":
            work = args.pop(0)
        else:
            build = os.path.abspath(a)
    return build, runs, work


def shared_libraries(paths):
    """{soname: resolved path} of what `ldd` lists for each of paths, beyond BASE."""
    found = {}
    for path in paths:
        for line in subprocess.run(["ldd", path], capture_output=True, text=True).stdout.splitlines():
            parts = line.split()
            if "=>" in parts and len(parts) > parts.index("=>") + 1 and parts[parts.index("=>") + 1].startswith("/"):
                name, resolved = parts[0], os.path.realpath(parts[parts.index("=>") + 1])
                if not name.startswith(BASE):
                    found[name] = resolved
    return found


def measure(command, env):
    """(wall s, cpu s, peak RSS KiB, stdout) of one run, from /usr/bin/time."""
    timed = ["/usr/bin/time", "-f", "TIME %e %U %S %M"] + command
    result = subprocess.run(timed, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"compare: {' '.join(command)} failed:\n{result.stderr}")
    fields = [line for line in result.stderr.splitlines() if line.startswith("TIME ")][-1].split()[1:]
    wall, user, system, rss = float(fields[0]), float(fields[1]), float(fields[2]), int(fields[3])
    return wall, user + system, rss, result.stdout


def megabytes(n):
    return f"{n / 1e6:.1f} MB"


def spread(values, unit="s"):
    return f"{statistics.median(values):.2f} {unit} ({min(values):.2f}-{max(values):.2f})"


def main():
    build, runs, work = options()
    ort_dir = os.environ.get("ORT_DIR", "/tmp/ort")
    png = os.path.join(ROOT, "examples", "deploy", "sample.png")
    os.makedirs(work, exist_ok=True)
    if not os.path.exists(os.path.join(work, "resnet18_deploy.onnx")):
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "export.py"), work], check=True)
    libtorch = os.path.join(work, "deploy_libtorch")
    subprocess.run(["g++", "-std=c++17", "-O2", os.path.join(HERE, "deploy_libtorch.cpp"),
                    "-I/usr/include/torch/csrc/api/include", "-ltorch", "-ltorch_cpu", "-lc10", "-lpng", "-o",
                    libtorch], check=True)
    ort_bin = os.path.join(ort_dir, "node_modules", "onnxruntime-node", "bin", "napi-v6", "linux", "x64")
    node = "/usr/bin/node"
    programs = {
        "torchless (examples/deploy, static)": {
            "command": [os.path.join(build, "examples", "deploy", "deploy"), os.path.join(work, "resnet18.safetensors"), png],
            "files": [os.path.join(build, "examples", "deploy", "deploy")], "ldd": [os.path.join(build, "examples", "deploy", "deploy")]},
        "LibTorch 1.13 (Debian, TorchScript frozen)": {
            "command": [libtorch, os.path.join(work, "resnet18_deploy.pt"), png], "files": [libtorch], "ldd": [libtorch]},
        "ONNX Runtime (onnxruntime-node)": {
            "command": [node, os.path.join(HERE, "deploy_ort.js"), os.path.join(work, "resnet18_deploy.onnx"),
                        os.path.join(work, "sample.ppm")],
            "files": [os.path.join(HERE, "deploy_ort.js"), os.path.join(ort_bin, "onnxruntime_binding.node")],
            "ldd": [node, os.path.join(ort_bin, "onnxruntime_binding.node")]},
    }
    env = dict(os.environ, OMP_NUM_THREADS="2", NODE_PATH=os.path.join(ort_dir, "node_modules"))
    samples = {name: [] for name in programs}
    for _ in range(runs):
        for name, p in programs.items():
            samples[name].append(measure(p["command"], env))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}; {runs} runs each, OMP_NUM_THREADS=2\n")
    print("| | top class | program | shared libraries beyond libc/libstdc++ | peak RSS | start to exit, wall | CPU |")
    print("|---|---|---|---|---|---|---|")
    for name, p in programs.items():
        libs = shared_libraries(p["ldd"])
        lib_bytes = sum(os.path.getsize(path) for path in set(libs.values()))
        program_bytes = sum(os.path.getsize(f) for f in p["files"])
        runs_of = samples[name]
        top = runs_of[0][3].split()[1]
        print(f"| {name} | {top} | {megabytes(program_bytes)} | {len(libs)}, {megabytes(lib_bytes)} "
              f"({', '.join(sorted(libs))}) | {statistics.median(r[2] for r in runs_of) / 1024:.0f} MB | "
              f"{spread([r[0] for r in runs_of])} | {spread([r[1] for r in runs_of])} |")


if __name__ == "__main__":
    main()
