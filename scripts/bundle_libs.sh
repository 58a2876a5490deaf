#!/usr/bin/env bash
# Copies the shared libraries that gridsolve's binaries load (beyond the C and C++
# runtimes and CUDA's own) into .dist/lib, for GPU machines that lack some of them.
# Usage: scripts/bundle_libs.sh [build folder, default build-cuda] [name ...]
# With names (e.g. muparser tomlplusplus), only libraries whose file name contains one
# of them are copied: the lent GPU machines lack only a few, and what travels is limited.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-cuda}
shift || true
only=("$@")
dest=.dist/lib
mkdir -p "$dest"
# The C runtime, libstdc++, the driver and the CUDA toolkit's libraries (cuFFT, cuSPARSE,
# ...: hundreds of MB, and part of every CUDA machine) come from the machine that runs them.
skip='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s|libcuda|libnvidia|libcu[a-z]+|libnv[A-Za-z]+)[.-]'
count=0
for bin in "$build/src/gridsolve" "$build/tests/gridsolve_gpu_tests" "$build/tests/gridsolve_tests"; do
  [ -x "$bin" ] || continue
  # Everything the loader resolves, dependencies of dependencies too: gpu_check.sh takes
  # only the ones the GPU machine lacks, so bundled copies never shadow its own.
  while read -r lib path; do
    [[ $lib =~ $skip ]] && continue
    if [ ${#only[@]} -gt 0 ]; then
      keep=0
      for name in "${only[@]}"; do [[ $lib == *"$name"* ]] && keep=1; done
      [ $keep -eq 1 ] || continue
    fi
    if [ -z "$path" ]; then
      echo "bundle_libs: $lib (needed by $bin) is not found here" >&2
      exit 1
    fi
    if [ ! -e "$dest/$lib" ]; then
      cp -L "$path" "$dest/$lib"
      count=$((count + 1))
    fi
  done < <(ldd "$bin" | awk '$2 == "=>" {print $1, ($3 ~ /^\// ? $3 : "")}')
done
echo "bundle_libs: $count libraries copied into $dest ($(du -sh "$dest" | cut -f1) in all)"
