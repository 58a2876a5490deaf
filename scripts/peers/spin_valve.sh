#!/usr/bin/env bash
# The Slonczewski torque of examples/micromag/spin_valve.toml (a free layer pushed off its
# axis by a current through a fixed layer) beside mumax3 on one GPU: both run the same
# 1.5 ns from m along x (FixedLayer, Lambda, EpsilonPrime, Pol, J = (0, 0, Jz)) and write
# <m>(t); scripts/peers/compare_tables.py compares the curves and the <m_x> zero crossing.
# Usage: scripts/peers/spin_valve.sh --gridsolve BIN --mumax3 DIR [--out DIR] [--device D]
set -uo pipefail
name=spin_valve
out=spin-valve-peer
source "$(dirname "${BASH_SOURCE[0]}")/peer_args.sh"
"$gs" micromag "$here/../../examples/micromag/spin_valve.toml" --out "$out/gs" --device "$device" \
  > "$out/gs.log" 2>&1
echo "gridsolve (exit $?): $(grep -E '^stage 1' "$out/gs.log")"
cat > "$out/mx.mx3" <<MX
SetGridSize(64, 32, 1)
SetCellSize(160e-9/64, 80e-9/32, 5e-9)
Msat = 800e3
Aex = 13e-12
alpha = 0.01
Pol = 0.5669
Lambda = 2
EpsilonPrime = 0.05
FixedLayer = vector(0.93969262, 0.34202014, 0)
J = vector(0, 0, -6e11)
m = uniform(1, 0, 0)
SetSolver(5)
MaxErr = 1e-6
TableAutosave(1e-12)
run(1.5e-9)
MX
(cd "$out" && LD_LIBRARY_PATH="$mx/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" timeout 300 \
  "$mx/bin/mumax3" -http "" -f -cache /tmp/kc -o "$out/mx.out" mx.mx3) > "$out/mx.log" 2>&1
echo "mumax3 (exit $?)"
python3 "$here/compare_tables.py" "$out/gs/table.csv" "$out/mx.out/table.txt" \
  --label "spin valve, gridsolve vs mumax3"
