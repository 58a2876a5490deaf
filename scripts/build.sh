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
# ccache, where installed, makes rebuilds of unchanged files free (paths relative to the
# checkout, so another clone of the same tree hits the same cache).
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
# The Python module builds against the environment scripts/install_deps.sh made.
if [ -x .venv/bin/python ]; then
  args+=(-DPython_EXECUTABLE="$PWD/.venv/bin/python")
fi
cmake -S . -B "$build" "${args[@]}" "$@"
cmake --build "$build" -j "${GRIDSOLVE_JOBS:-$(nproc)}"
