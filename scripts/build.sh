#!/usr/bin/env bash
# scripts/build.sh — configures (once) and builds the release tree in build/.
# usage: build.sh [true|false]   — whether to build the test suites (default true; needs doctest).
set -euo pipefail
cd "$(dirname "$0")/.."
tests=${1:-true}
if [ -f build/build.ninja ]; then
  meson configure build "-Dtests=$tests"
else
  meson setup build --buildtype=release "-Dtests=$tests"
fi
ninja -C build
