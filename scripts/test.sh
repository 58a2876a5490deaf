#!/usr/bin/env bash
# The whole test suite: install, build, run every test (GPU tests skip without a GPU);
# then the CPU tests once more in a build that checks every field index.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
build=${GRIDSOLVE_BUILD_DIR:-build}
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600
# The bounds-checked build: CPU only (the CUDA build above compiles the same loop bodies
# for the device), every FieldView access checked against the field's box and ghosts, on
# one process and on CPU ranks.
checked=${GRIDSOLVE_CHECKED_BUILD_DIR:-build-checked}
GRIDSOLVE_BUILD_DIR=$checked scripts/build.sh -DGRIDSOLVE_CUDA=OFF -DGRIDSOLVE_BOUNDS_CHECK=ON
ctest --test-dir "$checked" --output-on-failure -j "$(nproc)" --timeout 900 -L 'cpu|mpi'
