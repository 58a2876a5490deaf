# Sourced by the peer scripts that run a gridsolve example beside mumax3 (sp5.sh,
# spin_valve.sh, dmi_skyrmion.sh): reads --gridsolve BIN --mumax3 DIR [--out DIR]
# [--device D] into gs, mx, out and device, checks them, makes out and mx absolute, and
# sets here (the scripts' folder). The caller sets `name` and the default `out` first.
gs=""
mx=""
device=cuda
while [ $# -gt 0 ]; do
  case "$1" in
    --gridsolve) gs=$2; shift 2 ;;
    --mumax3) mx=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    *) echo "$name: unknown argument '$1' (valid: --gridsolve, --mumax3, --out, --device)" >&2; exit 2 ;;
  esac
done
[ -x "$gs" ] || { echo "$name: --gridsolve must name the gridsolve binary" >&2; exit 2; }
[ -x "$mx/bin/mumax3" ] || { echo "$name: no mumax3 at $mx/bin/mumax3" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out" /tmp/kc
out=$(cd "$out" && pwd)
mx=$(cd "$mx" && pwd)
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-/tmp/mumax3-nvjit}
