#!/usr/bin/env bash
# Standard problem 5 (examples/micromag/sp5.toml: a vortex driven by a Zhang-Li current)
# beside mumax3 on one GPU: both relax the vortex, run 1 ns with J = 1e12 A/m^2 along x and
# write <m>(t) (ours every ps). scripts/peers/compare_tables.py prints <m> at 1 ns of each,
# against mumax3's own check values too (test/standardproblem5.mx3: (-0.23479773,
# -0.09453578, 0.02296375) to 1e-4), and the largest difference of the <m>(t) curves; mumax3
# runs twice, as it ships and with its demag kernel integrated more finely.
# Usage: scripts/peers/sp5.sh --gridsolve BIN --mumax3 DIR [--out DIR] [--device cpu|cuda]
set -uo pipefail
name=sp5
out=sp5-peer
source "$(dirname "${BASH_SOURCE[0]}")/peer_args.sh"
for p in float double; do
  sed -e "s/precision = \"float\"/precision = \"$p\"/" -e "s/^table_interval = .*/table_interval = 1e-12/" \
    "$here/../../examples/micromag/sp5.toml" \
    > "$out/gs_$p.toml"
  "$gs" micromag "$out/gs_$p.toml" --out "$out/gs_$p" --device "$device" > "$out/gs_$p.log" 2>&1
  echo "gridsolve $p (exit $?): $(grep -E '^stage 2' "$out/gs_$p.log")"
done
# mumax3 as it ships (DemagAccuracy 6), then with its demag kernel integrated more finely
# (DemagAccuracy 36, closer to the analytic Newell kernel gridsolve uses)
for acc in 6 36; do
  cat > "$out/mx$acc.mx3" <<MX
SetGridSize(32, 32, 4)
SetCellSize(100e-9/32, 100e-9/32, 10e-9/4)
DemagAccuracy = $acc
Msat = 800e3
Aex = 13e-12
alpha = 0.1
m = vortex(1, 1)
relax()
xi = 0.05
Pol = 1
J = vector(1e12, 0, 0)
TableAutosave(1e-11)
run(1e-9)
m_ := m.average()
print("M", m_[0], m_[1], m_[2])
MX
  (cd "$out" && LD_LIBRARY_PATH="$mx/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" timeout 300 \
    "$mx/bin/mumax3" -http "" -f -cache /tmp/kc -o "$out/mx$acc.out" mx$acc.mx3) > "$out/mx$acc.log" 2>&1
  echo "mumax3 DemagAccuracy $acc (exit $?): $(grep -aE '^//M' "$out/mx$acc.log")"
done
for p in float double; do
  for acc in 6 36; do
    python3 "$here/compare_tables.py" "$out/gs_$p/table.csv" "$out/mx$acc.out/table.txt" \
      --label "SP5, gridsolve $p vs mumax3 (DemagAccuracy $acc)" \
      --check -0.23479773 -0.09453578 0.02296375
  done
done
