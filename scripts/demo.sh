#!/usr/bin/env bash
# scripts/demo.sh — installs what is missing, builds, and runs the ResNet18 demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
./build/examples/resnet18_demo
