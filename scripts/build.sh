#!/usr/bin/env bash
# scripts/build.sh — configures (once) and builds the release tree in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build --buildtype=release
ninja -C build
