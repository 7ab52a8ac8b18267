#!/usr/bin/env bash
# scripts/demo.sh — installs what the runtime needs (not the test tools), builds, and runs the ResNet18 demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh runtime
bash scripts/build.sh false
./build/examples/resnet18_demo
