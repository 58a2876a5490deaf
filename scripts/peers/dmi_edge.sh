#!/usr/bin/env bash
# The DMI edge tilt of examples/micromag/dmi_edge_1d.toml (interfacial DMI), and the same
# strip with bulk DMI (Dbulk; periodic in z too, as its boundary condition acts on the top
# and bottom surfaces), beside mumax3 on one GPU: both minimize the strip (mumax3: Dind or
# Dbulk, EnableDemag = false, the same periodic axes), save m, and
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
example="$here/../../examples/micromag/dmi_edge_1d.toml"
for kind in interfacial bulk; do
  if [ $kind = bulk ]; then key=Dbulk pbc="0, 1, 1" periodic="false, true, true" comp=1
  else key=Dind pbc="0, 1, 0" periodic="false, true, false" comp=0; fi
  for p in double float; do
    sed -e "s/precision = \"double\"/precision = \"$p\"/" -e "s/^Dind = /$key = /" \
        -e "s/^periodic = .*/periodic = [$periodic]/" "$example" > "$out/gs_${kind}_$p.toml"
    "$gs" micromag "$out/gs_${kind}_$p.toml" --out "$out/gs_${kind}_$p" > "$out/gs_${kind}_$p.log" 2>&1
    echo "gridsolve $kind $p (exit $?): $(grep -E '^stage' "$out/gs_${kind}_$p.log")"
  done
  cat > "$out/mx_$kind.mx3" <<MX
SetGridSize(100, 1, 1)
SetCellSize(1e-9, 1e-9, 1e-9)
SetPBC($pbc)
Msat = 0.86e6
Aex = 13e-12
$key = 2e-3
Ku1 = 0.4e6
AnisU = vector(0, 0, 1)
alpha = 0.5
EnableDemag = false
m = uniform(0.01, 0.01, 1)
minimize()
saveas(m, "m_minimized")
print("E", E_total, E_exch, E_anis)
MX
  (cd "$out" && LD_LIBRARY_PATH="$mx/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" timeout 200 \
    "$mx/bin/mumax3" -http "" -f -cache /tmp/kc -o "$out/mx_$kind.out" "mx_$kind.mx3") > "$out/mx_$kind.log" 2>&1
  echo "mumax3 $kind (exit $?): $(grep -aE '^//E' "$out/mx_$kind.log")"
  if python3 -c "import numpy" 2>/dev/null; then
    for p in double float; do
      python3 "$here/compare_ovf.py" "$out/gs_${kind}_$p/m_stage1_minimize.ovf" \
        "$out/mx_$kind.out/m_minimized.ovf" --label "$kind, m, gridsolve $p vs mumax3" \
        --csv "$out/compare.csv"
    done
    PYTHONPATH="$here" python3 -c "
from compare_ovf import read_ovf
a = read_ovf('$out/gs_${kind}_double/m_stage1_minimize.ovf')[0, 0, :, $comp]
b = read_ovf('$out/mx_$kind.out/m_minimized.ovf')[0, 0, :, $comp]
print('$kind: m[$comp] of the first cells, gridsolve double:', ' '.join('%.5f' % v for v in a[:4]))
print('$kind: m[$comp] of the first cells, mumax3:          ', ' '.join('%.5f' % v for v in b[:4]))
"
  fi
done
