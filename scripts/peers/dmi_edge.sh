#!/usr/bin/env bash
# The DMI edge tilt of examples/micromag/dmi_edge_1d.toml beside mumax3 on one GPU: both
# minimize the same strip (mumax3: Dind, EnableDemag = false, PBC along y), save m, and
# scripts/peers/compare_ovf.py compares the two cell by cell.
# Usage: scripts/peers/dmi_edge.sh --gridsolve BIN --mumax3 DIR [--out DIR]
set -uo pipefail
gs=""
mx=""
out=dmi-edge
while [ $# -gt 0 ]; do
  case "$1" in
    --gridsolve) gs=$2; shift 2 ;;
    --mumax3) mx=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "dmi_edge: unknown argument '$1' (valid: --gridsolve, --mumax3, --out)" >&2; exit 2 ;;
  esac
done
[ -x "$gs" ] || { echo "dmi_edge: --gridsolve must name the gridsolve binary" >&2; exit 2; }
[ -x "$mx/bin/mumax3" ] || { echo "dmi_edge: no mumax3 at $mx/bin/mumax3" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out" /tmp/kc
out=$(cd "$out" && pwd)
mx=$(cd "$mx" && pwd)
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-/tmp/mumax3-nvjit}
for p in double float; do
  sed -e "s/precision = \"double\"/precision = \"$p\"/" "$here/../../examples/micromag/dmi_edge_1d.toml" \
    > "$out/gs_$p.toml"
  "$gs" micromag "$out/gs_$p.toml" --out "$out/gs_$p" > "$out/gs_$p.log" 2>&1
  echo "gridsolve $p (exit $?): $(grep -E '^stage' "$out/gs_$p.log")"
done
cat > "$out/mx.mx3" <<MX
SetGridSize(100, 1, 1)
SetCellSize(1e-9, 1e-9, 1e-9)
SetPBC(0, 1, 0)
Msat = 0.86e6
Aex = 13e-12
Dind = 2e-3
Ku1 = 0.4e6
AnisU = vector(0, 0, 1)
alpha = 0.5
EnableDemag = false
m = uniform(0.01, 0, 1)
minimize()
saveas(m, "m_minimized")
print("E", E_total, E_exch, E_anis)
MX
(cd "$out" && LD_LIBRARY_PATH="$mx/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" timeout 200 \
  "$mx/bin/mumax3" -http "" -f -cache /tmp/kc -o "$out/mx.out" mx.mx3) > "$out/mx.log" 2>&1
echo "mumax3 (exit $?): $(grep -aE '^//E' "$out/mx.log")"
if python3 -c "import numpy" 2>/dev/null; then
  for p in double float; do
    python3 "$here/compare_ovf.py" "$out/gs_$p/m_stage1_minimize.ovf" "$out/mx.out/m_minimized.ovf" \
      --label "m, gridsolve $p vs mumax3" --csv "$out/compare.csv"
  done
  PYTHONPATH="$here" python3 -c "
from compare_ovf import read_ovf
a = read_ovf('$out/gs_double/m_stage1_minimize.ovf')[0, 0, :, 0]
b = read_ovf('$out/mx.out/m_minimized.ovf')[0, 0, :, 0]
print('m_x of the first cells, gridsolve double:', ' '.join('%.5f' % v for v in a[:5]))
print('m_x of the first cells, mumax3:          ', ' '.join('%.5f' % v for v in b[:5]))
"
fi
