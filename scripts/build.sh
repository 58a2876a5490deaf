#!/usr/bin/env bash
# Configures and builds gridsolve in ./build, with the CUDA path when nvcc is found.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
build=${GRIDSOLVE_BUILD_DIR:-build}
args=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
if command -v nvcc >/dev/null; then
  args+=(-DGRIDSOLVE_CUDA=ON -DCMAKE_CUDA_COMPILER="$(command -v nvcc)")
else
  echo "gridsolve: nvcc not found, building the CPU path only"
  args+=(-DGRIDSOLVE_CUDA=OFF)
fi
cmake -S . -B "$build" "${args[@]}" "$@"
cmake --build "$build" -j "${GRIDSOLVE_JOBS:-$(nproc)}"
