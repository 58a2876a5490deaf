#!/usr/bin/env bash
# The lid-driven cavity with OpenFOAM's icoFoam (transient PISO, two correctors), the
# peer of `gridsolve cavity`: same unit square, lid u = 1, nu = 1 / Re, n x n cells.
# Runs to --t-end (default 30 for Re 100, 60 for Re 1000: steady by then), times the run,
# and writes the centrelines in gridsolve's CSV form:
#   OUT/centreline_u.csv (y,u on x = 0.5), OUT/centreline_v.csv (x,v on y = 0.5),
#   OUT/wall_seconds.txt, OUT/log.icoFoam.
# Usage: scripts/peers/icofoam_cavity.sh [--re 1000] [--n 128] [--t-end T] [--out DIR]
# icoFoam comes from Debian's package `openfoam`: the script installs it when it is
# missing and it runs as root with apt-get, else says what to install.
set -euo pipefail
re=1000
n=128
t_end=""
out=icofoam-cavity
while [ $# -gt 0 ]; do
  case "$1" in
    --re) re=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --t-end) t_end=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "icofoam_cavity: unknown argument '$1' (valid: --re, --n, --t-end, --out)" >&2; exit 2 ;;
  esac
done
[ -n "$t_end" ] || t_end=$(awk -v r="$re" 'BEGIN { print (r > 500) ? 60 : 30 }')

find_bashrc() { ls /usr/share/openfoam/etc/bashrc /usr/lib/openfoam/openfoam*/etc/bashrc /opt/openfoam*/etc/bashrc 2>/dev/null | head -1; }
bashrc=$(find_bashrc || true)
if [ -z "$bashrc" ] && ! command -v icoFoam >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "icofoam_cavity: installing Debian's openfoam package" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openfoam >/dev/null
    bashrc=$(find_bashrc || true)
  else
    echo "icofoam_cavity: icoFoam not found; install Debian's package 'openfoam'" >&2
    exit 1
  fi
fi
if [ -n "$bashrc" ]; then
  # OpenFOAM's environment script reads unset variables.
  set +u
  # shellcheck disable=SC1090
  # (Debian's copy complains about helper scripts it does not ship; the variables it sets
  # are what blockMesh and icoFoam need.)
  source "$bashrc" 2>/dev/null
  set -u
fi
command -v icoFoam >/dev/null || { echo "icofoam_cavity: icoFoam still not on PATH" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
case_dir=$(mktemp -d)
trap 'rm -rf "$case_dir"' EXIT
cd "$case_dir"
mkdir -p 0 constant system
nu=$(awk -v r="$re" 'BEGIN { printf "%.10g", 1.0 / r }')
dt=$(awk -v n="$n" 'BEGIN { printf "%.10g", 0.4 / n }')  # CFL 0.4 at the lid
header() {
  cat <<H
FoamFile { version 2.0; format ascii; class $1; object $2; }
H
}
{ header dictionary blockMeshDict; cat <<H
convertToMeters 1;
vertices ((0 0 0) (1 0 0) (1 1 0) (0 1 0) (0 0 0.1) (1 0 0.1) (1 1 0.1) (0 1 0.1));
blocks (hex (0 1 2 3 4 5 6 7) ($n $n 1) simpleGrading (1 1 1));
edges ();
boundary
(
  movingWall { type wall; faces ((3 7 6 2)); }
  fixedWalls { type wall; faces ((0 4 7 3) (2 6 5 1) (1 5 4 0)); }
  frontAndBack { type empty; faces ((0 3 2 1) (4 5 6 7)); }
);
mergePatchPairs ();
H
} > system/blockMeshDict
{ header dictionary controlDict; cat <<H
application icoFoam;
startFrom startTime;
startTime 0;
stopAt endTime;
endTime $t_end;
deltaT $dt;
writeControl runTime;
writeInterval $t_end;
purgeWrite 0;
writeFormat ascii;
writePrecision 10;
writeCompression off;
timeFormat general;
timePrecision 6;
runTimeModifiable false;
H
} > system/controlDict
{ header dictionary fvSchemes; cat <<'H'
ddtSchemes { default Euler; }
gradSchemes { default Gauss linear; grad(p) Gauss linear; }
divSchemes { default none; div(phi,U) Gauss linear; }
laplacianSchemes { default Gauss linear orthogonal; }
interpolationSchemes { default linear; }
snGradSchemes { default orthogonal; }
H
} > system/fvSchemes
{ header dictionary fvSolution; cat <<'H'
solvers
{
  p { solver PCG; preconditioner DIC; tolerance 1e-06; relTol 0.05; }
  pFinal { $p; relTol 0; }
  U { solver smoothSolver; smoother symGaussSeidel; tolerance 1e-05; relTol 0; }
}
PISO { nCorrectors 2; nNonOrthogonalCorrectors 0; pRefCell 0; pRefValue 0; }
H
} > system/fvSolution
{ header dictionary transportProperties; echo "nu [0 2 -1 0 0 0 0] $nu;"; } > constant/transportProperties
{ header volVectorField U; cat <<'H'
dimensions [0 1 -1 0 0 0 0];
internalField uniform (0 0 0);
boundaryField
{
  movingWall { type fixedValue; value uniform (1 0 0); }
  fixedWalls { type noSlip; }
  frontAndBack { type empty; }
}
H
} > 0/U
{ header volScalarField p; cat <<'H'
dimensions [0 2 -2 0 0 0 0];
internalField uniform 0;
boundaryField
{
  movingWall { type zeroGradient; }
  fixedWalls { type zeroGradient; }
  frontAndBack { type empty; }
}
H
} > 0/p

blockMesh > log.blockMesh 2>&1
start=$(date +%s.%N)
icoFoam > log.icoFoam 2>&1
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", b - a }' > "$out/wall_seconds.txt"
cp log.icoFoam "$out/log.icoFoam"

# Centrelines at the last time: cell values along x = 0.5 and y = 0.5 (lines through the
# cell centres when n is even, sampled by OpenFOAM's own interpolation).
last=$(foamListTimes -latestTime 2>/dev/null | tail -1)
{ header dictionary sampleDict; cat <<H
type sets;
libs ("libsampling.so");
interpolationScheme cellPoint;
setFormat csv;
fields (U);
sets
(
  vertical { type uniform; axis y; start (0.5 0 0.05); end (0.5 1 0.05); nPoints $((n + 1)); }
  horizontal { type uniform; axis x; start (0 0.5 0.05); end (1 0.5 0.05); nPoints $((n + 1)); }
);
H
} > system/sampleDict
postProcess -func sampleDict -latestTime > log.sample 2>&1 || postProcess -dict system/sampleDict -latestTime > log.sample 2>&1
dir=$(find postProcessing -type d -name "$last" | head -1)
# csv columns: coord, U_0, U_1, U_2
vert=$(ls "$dir"/vertical*.csv | head -1)
horiz=$(ls "$dir"/horizontal*.csv | head -1)
{ echo "y,u"; tail -n +2 "$vert" | awk -F, '{ printf "%s,%s\n", $1, $2 }'; } > "$out/centreline_u.csv"
{ echo "x,v"; tail -n +2 "$horiz" | awk -F, '{ printf "%s,%s\n", $1, $3 }'; } > "$out/centreline_v.csv"
echo "icofoam_cavity: Re $re, ${n}^2 cells, t = $t_end in $(cat "$out/wall_seconds.txt") s; centrelines in $out"
