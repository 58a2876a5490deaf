#!/usr/bin/env bash
# The skyrmion in a disk of examples/micromag/dmi_skyrmion_disk.toml beside mumax3 on one
# GPU: both from a reversed core (gridsolve minimizes; mumax3 relaxes: its minimize() jumps
# over the barrier and loses the skyrmion; Dind, EnableDemag = false, the same
# disk by Circle), save m; scripts/peers/compare_ovf.py compares the states cell by cell and
# scripts/peers/skyrmion_radius.py prints each radius and edge tilt (the continuum
# solution, tests/test_micromag_skyrmion.cpp: radius 9.8685 nm).
# Usage: scripts/peers/dmi_skyrmion.sh --gridsolve BIN --mumax3 DIR [--out DIR] [--device D]
set -uo pipefail
name=dmi_skyrmion
out=dmi-skyrmion-peer
source "$(dirname "${BASH_SOURCE[0]}")/peer_args.sh"
"$gs" micromag "$here/../../examples/micromag/dmi_skyrmion_disk.toml" --out "$out/gs" \
  --device "$device" > "$out/gs.log" 2>&1
echo "gridsolve (exit $?): $(grep -E '^stage 1' "$out/gs.log")"
cat > "$out/mx.mx3" <<MX
SetGridSize(80, 80, 1)
SetCellSize(1e-9, 1e-9, 1e-9)
SetGeom(Circle(80e-9))
Msat = 0.86e6
Aex = 13e-12
Dind = 2.5e-3
Ku1 = 0.4e6
AnisU = vector(0, 0, 1)
alpha = 0.5
EnableDemag = false
m = Uniform(0, 0, 1)
m.SetInShape(Circle(30e-9), Uniform(0, 0, -1))
relax()
saveas(m, "m_minimized")
print("E", E_total)
MX
(cd "$out" && LD_LIBRARY_PATH="$mx/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" timeout 200 \
  "$mx/bin/mumax3" -http "" -f -cache /tmp/kc -o "$out/mx.out" mx.mx3) > "$out/mx.log" 2>&1
echo "mumax3 (exit $?): $(grep -aE '^//E' "$out/mx.log")"
if python3 -c "import numpy" 2>/dev/null; then
  python3 "$here/skyrmion_radius.py" "$out/gs/m_stage1_minimize.ovf" --label "gridsolve: "
  python3 "$here/skyrmion_radius.py" "$out/mx.out/m_minimized.ovf" --label "mumax3:    "
  python3 "$here/compare_ovf.py" "$out/gs/m_stage1_minimize.ovf" "$out/mx.out/m_minimized.ovf" \
    --label "skyrmion in a disk, m, gridsolve vs mumax3"
else
  echo "dmi_skyrmion: numpy is missing; the states are in $out"
fi
