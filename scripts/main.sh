#!/usr/bin/env bash
# The main job: install, build, then design the default magnet (the axisymmetric
# scalar-potential problem) on the GPU when one is present, on the CPU otherwise, and
# write the design, its data and its plots under out/magnet.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
build=${GRIDSOLVE_BUILD_DIR:-build}
"$build"/src/gridsolve info
"$build"/src/gridsolve magnet --out out/magnet
