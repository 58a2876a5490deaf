#!/usr/bin/env bash
# On a GPU machine, from the repository root with a prebuilt build-cuda (and .dist from
# scripts/bundle_libs.sh) beside it: runs the GPU tests, then every benchmark and the
# GPU application runs the documentation quotes, writes logs under $OUT (or
# ./gpu_check_out) and prints a short summary last.
# Environment: GRIDSOLVE_BUILD_DIR (build-cuda), GRIDSOLVE_BENCH_N (8192),
# GRIDSOLVE_BENCH_REPEATS (20), GRIDSOLVE_CHECK (all | tests | bench | sanitize: what to
# run), GRIDSOLVE_SANITIZE_FILTER (the GPU tests compute-sanitizer runs: small cases),
# GRIDSOLVE_SANITIZE_LIMIT (seconds per sanitizer tool, 100).
# GRIDSOLVE_MUMAX3 (a mumax3 folder with bin/mumax3, run beside bench micromag).
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

check=${GRIDSOLVE_CHECK:-all}
tests_rc=0
tests_line="not run"
skipped=0
if [ "$check" = all ] || [ "$check" = tests ]; then
  # One process for all GPU tests: the carried build then needs no ctest files, and CUDA
  # starts once.
  timeout 900 "$tests_bin" > "$out/gpu_tests.log" 2>&1
  tests_rc=$?
  tests_line=$(grep -E "^\[  PASSED  \]|^\[  FAILED  \] [0-9]+ test" "$out/gpu_tests.log" | tr '\n' ' ')
  skipped=$(grep -cE "^\[  SKIPPED \] .*\(" "$out/gpu_tests.log")
  grep -E "^\[  FAILED  \]" "$out/gpu_tests.log" | head -20
fi

# Benchmarks and application runs: one log each; a time limit keeps one slow case from
# eating the others' time.
bench_rc=0
# run_logged NAME LIMIT [--allow CODE] COMMAND...: CODE is an expected exit status too
# (3, "not converged", where a run is meant to stop at its iteration cap).
run_logged() {
  local name=$1 limit=$2 allow=0
  shift 2
  if [ "$1" = --allow ]; then allow=$2; shift 2; fi
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  echo "$name: exit $rc, $((SECONDS - start)) s" >> "$out/runs.txt"
  [ $rc -eq 0 ] || [ $rc -eq "$allow" ] || bench_rc=$rc
}
if [ "$check" = all ] || [ "$check" = bench ]; then
  : > "$out/runs.txt"
  run_logged bench_stencil 120 "$cli" bench stencil --device cuda --n "$n" --repeats "$repeats"
  run_logged bench_mg_2047 120 "$cli" bench mg --device cuda --unknowns 2047 --repeats 5
  run_logged bench_mg_8191 180 "$cli" bench mg --device cuda --unknowns 8191 --repeats 3
  run_logged bench_mg_3d_511 180 "$cli" bench mg --device cuda --dims 3 --unknowns 511 --repeats 3
  run_logged bench_tridiag 120 "$cli" bench tridiag --device cuda
  run_logged bench_poisson 120 "$cli" bench poisson --device cuda
  run_logged bench_sort 180 "$cli" bench sort --device cuda --repeats "$repeats"
  run_logged bench_flow 180 "$cli" bench flow --device cuda --repeats 10
  run_logged cavity_1000_512 180 "$cli" cavity --re 1000 --n 512 --device cuda --no-plots --out "$out/cavity1000_512"
  run_logged heat_2048_jacobi 120 --allow 3 "$cli" heat --n 2048 --device cuda
  run_logged heat_2048_sor 120 "$cli" heat --n 2048 --device cuda --solver sor
  run_logged magnet_default 120 "$cli" magnet --device cuda --no-plots --out "$out/magnet_default"
  run_logged magnet_4001_sor 150 "$cli" magnet --device cuda --r1 4 --z1 4 --h 0.001 --solver sor --residual diagonal --no-plots --out "$out/m4001sor"
  run_logged magnet_4001_sor_volume 150 "$cli" magnet --device cuda --r1 4 --z1 4 --h 0.001 --solver sor --no-plots --out "$out/m4001sorv"
  run_logged magnet_4001_mgcg 120 "$cli" magnet --device cuda --r1 4 --z1 4 --h 0.001 --no-plots --out "$out/m4001mg"
  run_logged magnet_14001_mgcg 180 "$cli" magnet --device cuda --r1 7 --z1 7 --h 0.0005 --no-plots --out "$out/m14001mg"
  # Micromagnetics; GRIDSOLVE_MUMAX3 (a folder with bin/mumax3) adds mumax3 to the bench.
  run_logged bench_micromag 300 "$cli" bench micromag --device cuda --mesh 2048x2048x1 --repeats 3 ${GRIDSOLVE_MUMAX3:+--peer "$GRIDSOLVE_MUMAX3"}
  run_logged micromag_sp4_field1 120 "$cli" micromag examples/micromag/sp4_field1.toml --device cuda --out "$out/sp4_field1"
  run_logged micromag_sp4_field2 120 "$cli" micromag examples/micromag/sp4_field2.toml --device cuda --out "$out/sp4_field2"
  run_logged micromag_sp3 120 "$cli" micromag examples/micromag/sp3.toml --device cuda --out "$out/sp3"
  if python3 -c "import cupy" 2>/dev/null; then
    run_logged peer_cupy_cg 120 python3 scripts/peers/cupy_cg.py 1023 2047
  fi
fi

# compute-sanitizer over the GPU tests: memcheck (out-of-bounds and misaligned accesses,
# leaks of device memory), racecheck (shared-memory hazards), synccheck (barriers in
# divergent code). Every kernel family, on small cases: the tools slow kernels down by
# 10 to 100 times.
sanitize_rc=0
sanitize_line="not run"
if [ "$check" = all ] || [ "$check" = sanitize ]; then
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  filter=${GRIDSOLVE_SANITIZE_FILTER:-'Cases/UniformKernels.*/0:Cases/UniformKernels.*/4:Cases/ModelProblems.*/0:Cases3D/ModelProblems.*/0:Cases/GeneralColouredSor.*/0:Cases/FusedSorGeneral.*/0:FusedSor.AxisymmetricMagnetOperator:SizeClasses/TridiagonalGpu.MatchesLapack/*_101:TridiagonalGpu.SingularRowIsReported:GpuResources.SolveLarger*:GpuNorms.*:MicromagGpu.DemagMatchesDirectSum:RedBlackSweepGpu.MultigridCycleMatchesTheCpu'}
  limit=${GRIDSOLVE_SANITIZE_LIMIT:-100}
  sanitize_line=""
  for tool in memcheck racecheck synccheck; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    start=$SECONDS
    timeout "$limit" "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 \
      "$tests_bin" --gtest_filter="$filter" > "$out/sanitize_$tool.log" 2>&1
    rc=$?
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$out/sanitize_$tool.log" | tail -1)
    tests_run=$(grep -E "^\[  PASSED  \]|^\[  FAILED  \] [0-9]+ test" "$out/sanitize_$tool.log" | tr '\n' ' ')
    [ $rc -eq 124 ] && summary="timed out after ${limit} s"
    sanitize_line+="$tool: ${summary:-no summary} (exit $rc, $((SECONDS - start)) s; $tests_run)"$'\n'
    [ $rc -eq 0 ] || sanitize_rc=$rc
  done
fi

echo
echo "== gpu_check summary =="
echo "device:    ${device:-unknown}"
echo "gpu tests: ${tests_line:-no result} (exit $tests_rc, $skipped skipped)"
[ -f "$out/runs.txt" ] && cat "$out/runs.txt"
echo "sanitizer:"
echo "${sanitize_line}"
[ "$tests_rc" -eq 0 ] && [ "$bench_rc" -eq 0 ] && [ "$sanitize_rc" -eq 0 ]
