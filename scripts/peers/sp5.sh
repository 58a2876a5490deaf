#!/usr/bin/env bash
# Standard problem 5 (examples/micromag/sp5.toml: a vortex driven by a Zhang-Li current)
# beside mumax3 on one GPU: both relax the vortex, run 1 ns with J = 1e12 A/m^2 along x and
# write <m>(t) every 10 ps. Prints <m> at 1 ns of each (and mumax3's own check values,
# test/standardproblem5.mx3: (-0.23479773, -0.09453578, 0.02296375) to 1e-4) and the largest
# difference of the <m>(t) curves; mumax3 runs twice, as it ships and with its demag kernel
# integrated more finely.
# Usage: scripts/peers/sp5.sh --gridsolve BIN --mumax3 DIR [--out DIR] [--device cpu|cuda]
set -uo pipefail
gs=""
mx=""
out=sp5-peer
device=cuda
while [ $# -gt 0 ]; do
  case "$1" in
    --gridsolve) gs=$2; shift 2 ;;
    --mumax3) mx=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    *) echo "sp5: unknown argument '$1' (valid: --gridsolve, --mumax3, --out, --device)" >&2; exit 2 ;;
  esac
done
[ -x "$gs" ] || { echo "sp5: --gridsolve must name the gridsolve binary" >&2; exit 2; }
[ -x "$mx/bin/mumax3" ] || { echo "sp5: no mumax3 at $mx/bin/mumax3" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out" /tmp/kc
out=$(cd "$out" && pwd)
mx=$(cd "$mx" && pwd)
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-/tmp/mumax3-nvjit}
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
python3 - "$out" <<'PY'
import sys
out = sys.argv[1]
def table(path):
    rows = []
    for line in open(path):
        if line.startswith('#') or not line.strip() or line[0].isalpha():
            continue
        f = line.replace(',', ' ').split()
        rows.append([float(v) for v in f[:4]])
    return rows
mx = table(f"{out}/mx6.out/table.txt")
fine = table(f"{out}/mx36.out/table.txt")
check = (-0.23479773, -0.09453578, 0.02296375)
print(f"mumax3's check values  <m>(1 ns) = ({check[0]:.5f}, {check[1]:.5f}, {check[2]:.5f})")
if mx:
    print(f"mumax3 on this device  <m>(1 ns) = ({mx[-1][1]:.5f}, {mx[-1][2]:.5f}, {mx[-1][3]:.5f})")
if fine:
    print(f"mumax3, accuracy 36    <m>(1 ns) = ({fine[-1][1]:.5f}, {fine[-1][2]:.5f}, {fine[-1][3]:.5f})")
for p in ("float", "double"):
    gs = table(f"{out}/gs_{p}/table.csv")
    if len(gs) < 3:
        continue
    end = gs[-1]
    d_check = max(abs(end[k + 1] - check[k]) for k in range(3))
    line = f"gridsolve {p:6s}      <m>(1 ns) = ({end[1]:.5f}, {end[2]:.5f}, {end[3]:.5f})  |diff| to the check {d_check:.2e}"
    if mx:
        # both tables count time from the current's onset; ours (rows every ps) is read at
        # mumax3's row times by linear interpolation
        run = gs[[i for i, r in enumerate(gs) if r[0] == 0][-1]:]
        worst, j = 0.0, 0
        for r in mx:
            t = r[0] - mx[0][0]
            while j + 2 < len(run) and run[j + 1][0] < t:
                j += 1
            a, b = run[j], run[j + 1]
            w = min(max((t - a[0]) / (b[0] - a[0]), 0.0), 1.0)
            worst = max(worst, max(abs(a[k] + w * (b[k] - a[k]) - r[k]) for k in (1, 2, 3)))
        line += f", to mumax3 {max(abs(end[k + 1] - mx[-1][k + 1]) for k in range(3)):.2e}"
        if fine:
            line += f" (accuracy 36: {max(abs(end[k + 1] - fine[-1][k + 1]) for k in range(3)):.2e})"
        line += f"; the <m>(t) curves differ by at most {worst:.2e}"
    print(line)
PY
