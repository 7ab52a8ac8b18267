#!/usr/bin/env bash
# tests/install/check_install.sh BUILD_DIR — installs into a staging directory and builds
# examples/quickstart.cpp out of tree with `pkg-config --cflags --libs torchless`, then runs it.
set -euo pipefail
build=$(realpath "$1")
cd "$(dirname "$0")/../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --quiet
pc=$(dirname "$(find "$stage" -name torchless.pc | head -n 1)")
export PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$stage"
g++ -std=c++20 -O2 examples/quickstart.cpp -o "$stage/quickstart" $(pkg-config --cflags --libs torchless)
"$stage/quickstart" > "$stage/out.txt"
echo "install check: built and ran examples/quickstart.cpp against the installed torchless"
cat "$stage/out.txt"
