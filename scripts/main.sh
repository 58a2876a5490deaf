#!/usr/bin/env bash
# The main job: install, build, then solve the heat plate on the GPU when one is
# present (on the CPU otherwise) and write the results under out/heat.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
build=${GRIDSOLVE_BUILD_DIR:-build}
"$build"/src/gridsolve info
"$build"/src/gridsolve heat --n 1024 --out out/heat
