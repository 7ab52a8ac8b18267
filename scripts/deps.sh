#!/usr/bin/env bash
# scripts/deps.sh — installs the Debian 12 packages torchless needs, only those missing.
set -euo pipefail
# usage: deps.sh [runtime]   — `runtime`: what building the library, tools, examples and benchmarks needs
# (scripts/demo.sh); no argument: that plus what the tests need (scripts/test.sh).
# libunwind8 (opened at run time) and libdw-dev (elfutils): the profiler's with_stack captures C++
# return addresses and names them file(line): function from DWARF. libpng-dev: examples/deploy reads PNG images.
# libgloo-dev: the collectives of training across processes (distributed/, tl_distributed); libhiredis-dev: the
# header Gloo's RedisStore (redis:// rendezvous) includes.
runtime=(meson ninja-build g++ pkg-config cmake libdnnl-dev libeigen3-dev nlohmann-json3-dev zlib1g-dev
         libunwind8 libdw-dev libpng-dev libgloo-dev libhiredis-dev)
# doctest for the suites; PyTorch for the parity tests and reference texts; scikit-learn for its
# digits.csv.gz (tl::data::load_digits' tests and examples); rsvg-convert and gzip for chart and trace
# checks; clang-14, its sanitizer and libFuzzer runtimes (libclang-rt-14-dev) and its OpenMP runtime
# (libomp-14-dev) for the sanitizer suite and the fuzzers (scripts/sanitize.sh); OpenBLAS and jemalloc for
# the PyTorch benchmark partners' tuned environment (bench/pt_env.py; the system's libblas.so.3 is left alone);
# dpkg-dev for scripts/package.sh (dpkg-shlibdeps), whose .deb files the install check tries; redis-server for
# the redis:// rendezvous tests (tests/distributed/test_redis_store.cpp starts one on 127.0.0.1); pandas, plotly,
# networkx, yaml and psutil for HTA (shared/anchors/hta), which tests/distributed/check_hta_comms.py runs on the
# suite's two-rank traces.
tests=(doctest-dev python3-torch python3-torchvision python3-numpy python3-tabulate python3-sklearn librsvg2-bin
       gzip clang-14 libclang-rt-14-dev libomp-14-dev libopenblas0-pthread libjemalloc2 dpkg-dev redis-server
       python3-pandas python3-plotly python3-networkx python3-yaml python3-psutil)
packages=("${runtime[@]}")
[ "${1:-}" = runtime ] || packages+=("${tests[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  # Installing OpenBLAS makes it the system's libblas.so.3 and liblapack.so.3 (its alternatives rank higher);
  # they stay the reference ones the tests compute with, and the benchmarks find OpenBLAS by its own path.
  if [[ " ${missing[*]} " = *" libopenblas0-pthread "* ]]; then
    for lib in blas/libblas.so.3 lapack/liblapack.so.3; do
      reference=/usr/lib/x86_64-linux-gnu/$lib
      if [ -e "$reference" ]; then $sudo update-alternatives --set "${lib#*/}-x86_64-linux-gnu" "$reference"; fi
    done
  fi
fi
