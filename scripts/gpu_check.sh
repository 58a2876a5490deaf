#!/usr/bin/env bash
# On a GPU machine, from the repository root with a prebuilt build-cuda (and .dist from
# scripts/bundle_libs.sh) beside it: runs the GPU tests and the stencil benchmark, writes
# logs under $OUT (or ./gpu_check_out) and prints a short summary table last.
# Environment: GRIDSOLVE_BUILD_DIR (build-cuda), GRIDSOLVE_BENCH_N (8192),
# GRIDSOLVE_BENCH_REPEATS (20), GRIDSOLVE_BENCH_CMD (the benchmark command line).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${GRIDSOLVE_BUILD_DIR:-build-cuda}
out=${OUT:-$root/gpu_check_out}
n=${GRIDSOLVE_BENCH_N:-8192}
repeats=${GRIDSOLVE_BENCH_REPEATS:-20}
mkdir -p "$out"
tests_bin=$build/tests/gridsolve_gpu_tests
cli=$build/src/gridsolve

# ctest files and test discovery name the absolute paths of the machine that built
# them; where this checkout lies elsewhere, make that path lead here.
built_in=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [ -n "$built_in" ] && [ "$built_in" != "$root" ] && [ ! -e "$built_in" ]; then
  mkdir -p "$(dirname "$built_in")" && ln -s "$root" "$built_in"
fi
# The discovered test list was made with the binaries; keep ctest from re-running a
# discovery that needs the build machine's CMake modules.
touch "$build"/tests/*_tests.cmake 2>/dev/null

# Only libraries this machine lacks come from .dist/lib, so its own copies of the rest
# (and of what ctest itself loads) stay in charge.
libs=$(mktemp -d)
for round in 1 2 3; do
  missing=$(LD_LIBRARY_PATH=$libs ldd "$tests_bin" "$cli" 2>/dev/null | awk '/not found/ {print $1}' | sort -u)
  [ -z "$missing" ] && break
  for lib in $missing; do
    # Bundled copies first, then the CUDA toolkit's own (cuFFT, cuSPARSE), which may sit
    # outside the loader's path.
    for dir in "$root/.dist/lib" /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
      if [ -e "$dir/$lib" ]; then ln -sf "$dir/$lib" "$libs/$lib"; break; fi
    done
    if [ ! -e "$libs/$lib" ]; then
      found=$(find /usr/local /opt -name "$lib" 2>/dev/null | head -1)
      [ -n "$found" ] && ln -sf "$found" "$libs/$lib"
    fi
  done
done
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  echo "bundled libraries used: $(ls "$libs" | tr '\n' ' ')"
  ldd "$tests_bin" "$cli" | grep "not found" && echo "some libraries are missing: run scripts/bundle_libs.sh where the build was made"
} 2>&1 | tee "$out/libraries.txt"

device=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)
nvidia-smi > "$out/nvidia-smi.txt" 2>&1

# Each test is its own process (CUDA start-up dominates): run several at once.
ctest --test-dir "$build" -L gpu --output-on-failure --timeout 900 -j 8 > "$out/gpu_tests.log" 2>&1
tests_rc=$?
tests_line=$(grep -E "tests passed|tests failed" "$out/gpu_tests.log" | tail -1)
skipped=$(grep -c "\*\*\*Skipped" "$out/gpu_tests.log")
tail -25 "$out/gpu_tests.log"

bench_cmd=${GRIDSOLVE_BENCH_CMD:-"$cli bench stencil --device cuda --n $n --repeats $repeats --out $out"}
$bench_cmd > "$out/bench.txt" 2>&1
bench_rc=$?

echo
echo "== gpu_check summary =="
echo "device:    ${device:-unknown}"
echo "gpu tests: ${tests_line:-no result} (exit $tests_rc, $skipped skipped)"
echo "bench:     exit $bench_rc, n = $n, median of $repeats"
cat "$out/bench.txt"
[ "$tests_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ]
