#!/usr/bin/env bash
# muMAG standard problem 4 beside mumax3, term by term, on one GPU:
#   1. gridsolve relaxes the film and runs field 1 to 0.2 ns and to 1 ns (float and double),
#      saving m and B_demag, B_exch, B_eff, torque at each stage's end (and field 2, float);
#   2. mumax3 loads those m files and saves its own B_demag, B_exch, B_eff, torque of them,
#      with its demag kernel at its default accuracy (DemagAccuracy 6) and at higher ones;
#   3. mumax3 runs the problem itself: as its own test does (MaxErr 1e-5, accuracy 6), with a
#      100x tighter step error (MaxErr 1e-7), and at the higher kernel accuracies;
#   4. gridsolve computes its fields of mumax3's relaxed m.
# Then scripts/peers/compare_ovf.py compares the fields pairwise (terms.csv) and the <m>
# lines are gathered into summary.txt. Every output lands in OUT.
# Usage: scripts/peers/sp4_terms.sh --gridsolve BIN --mumax3 DIR [--out DIR]
#                                   [--accuracies "12 18 24"]
#   DIR of mumax3: a folder with bin/mumax3 (the prebuilt peer's layout).
# Needs a GPU; python3 with numpy for the comparison (skipped with a note without it).
set -uo pipefail
gs=""
mx=""
out=sp4-terms
accuracies="12 18 24"
while [ $# -gt 0 ]; do
  case "$1" in
    --gridsolve) gs=$2; shift 2 ;;
    --mumax3) mx=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --accuracies) accuracies=$2; shift 2 ;;
    *) echo "sp4_terms: unknown argument '$1' (valid: --gridsolve, --mumax3, --out, --accuracies)" >&2
       exit 2 ;;
  esac
done
[ -x "$gs" ] || { echo "sp4_terms: --gridsolve must name the gridsolve binary" >&2; exit 2; }
[ -x "$mx/bin/mumax3" ] || { echo "sp4_terms: no mumax3 at $mx/bin/mumax3" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
mx=$(cd "$mx" && pwd)
mkdir -p /tmp/kc
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-/tmp/mumax3-nvjit}
export LD_LIBRARY_PATH="$mx/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
field1="-24.6e-3, 4.3e-3, 0"
field2="-35.5e-3, -6.3e-3, 0"

# gridsolve: relax, then FIELD to 0.2 ns and on to 1 ns.
gs_case() {  # NAME PRECISION FIELD
  cat > "$out/$1.toml" <<EOF
[mesh]
cells = [128, 32, 1]
size = [500e-9, 125e-9, 3e-9]
[material]
Ms = 8.0e5
A = 1.3e-11
alpha = 0.02
[initial]
state = "uniform"
direction = [1, 0.1, 0]
[solver]
method = "rk45"
tolerance = 1e-5
precision = "$2"
device = "cuda"
[output]
dir = "$out/$1"
table_interval = 1e-12
fields = ["B_demag", "B_exch", "B_eff", "torque"]
hdf5 = false
plots = false
[[stage]]
kind = "relax"
[[stage]]
kind = "run"
time = 0.2e-9
B = [$3]
[[stage]]
kind = "run"
time = 0.8e-9
EOF
  "$gs" micromag "$out/$1.toml" > "$out/$1.log" 2>&1
  echo "gridsolve $1 (exit $?): $(grep -E '^stage' "$out/$1.log" | sed 's/  max torque.*//' | tr '\n' ';')"
}

mx_run() {  # NAME SCRIPT-TEXT
  printf '%s\n' "$2" > "$out/$1.mx3"
  (cd "$out" && timeout 300 "$mx/bin/mumax3" -http "" -f -cache /tmp/kc -o "$out/$1.out" "$1.mx3") \
    > "$out/$1.log" 2>&1
  echo "mumax3 $1 (exit $?): $(grep -aE '^//(relaxed|t02|t1|E )' "$out/$1.log" | tr '\n' ';')"
}

geometry='setgridsize(128, 32, 1)
setcellsize(500e-9/128, 125e-9/32, 3e-9)
Msat = 800e3
Aex = 13e-12
alpha = 0.02'

# mumax3's fields of gridsolve's states (relaxed; field 1 at 0.2 ns).
mx_load() {  # NAME ACCURACY
  mx_run "$1" "$geometry
DemagAccuracy = $2
m.LoadFile(\"$out/gs_f1_float/m_stage1_relax.ovf\")
saveas(B_demag, \"B_demag_relax\")
saveas(B_exch, \"B_exch_relax\")
saveas(B_eff, \"B_eff_relax\")
saveas(torque, \"torque_relax\")
print(\"E relax\", E_total, E_demag, E_exch)
B_ext = vector($field1)
m.LoadFile(\"$out/gs_f1_float/m_stage2_run.ovf\")
saveas(B_demag, \"B_demag_t02\")
saveas(B_exch, \"B_exch_t02\")
saveas(B_eff, \"B_eff_t02\")
saveas(torque, \"torque_t02\")
print(\"E t02\", E_total, E_demag, E_exch)"
}

# mumax3's own run: relax, FIELD to 0.2 ns, on to 1 ns.
mx_sp4() {  # NAME FIELD ACCURACY MAXERR
  mx_run "$1" "$geometry
DemagAccuracy = $3
MaxErr = $4
m = uniform(1, .1, 0)
relax()
print(\"relaxed\", m.average())
saveas(m, \"m_relax\")
saveas(B_demag, \"B_demag_relax\")
tableautosave(1e-12)
B_ext = vector($2)
run(0.2e-9)
print(\"t02\", m.average())
saveas(m, \"m_t02\")
run(0.8e-9)
print(\"t1\", m.average(), \"steps\", step)"
}

gs_case gs_f1_float float "$field1"
gs_case gs_f1_double double "$field1"
gs_case gs_f2_float float "$field2"
mx_load mx_load_acc6 6
mx_sp4 mx_f1 "$field1" 6 1e-5
mx_sp4 mx_f1_maxerr7 "$field1" 6 1e-7
mx_sp4 mx_f2 "$field2" 6 1e-5
for acc in $accuracies; do
  mx_load mx_load_acc$acc "$acc"
  mx_sp4 mx_f1_acc$acc "$field1" "$acc" 1e-5
  mx_sp4 mx_f2_acc$acc "$field2" "$acc" 1e-5
done

# gridsolve's fields of mumax3's relaxed m (a run of 1e-18 s: m unchanged to 1e-8).
sed -e "s#state = \"uniform\"#state = \"file\"\nfile = \"$out/mx_f1.out/m_relax.ovf\"#" \
    -e '/^direction/d' -e "s#dir = \"$out/gs_f1_float\"#dir = \"$out/gs_of_mx\"#" \
    "$out/gs_f1_float.toml" | awk '/^\[\[stage\]\]/{exit} {print}' > "$out/gs_of_mx.toml"
printf '[[stage]]\nkind = "run"\ntime = 1e-18\n' >> "$out/gs_of_mx.toml"
"$gs" micromag "$out/gs_of_mx.toml" > "$out/gs_of_mx.log" 2>&1
echo "gridsolve of mumax3's relaxed m (exit $?)"

if python3 -c "import numpy" 2>/dev/null; then
  c="$out/terms.csv"
  rm -f "$c"
  cmp() { python3 "$here/compare_ovf.py" "$1" "$2" --label "$3" --csv "$c"; }
  for q in B_demag B_exch B_eff torque; do
    for acc in 6 $accuracies; do
      cmp "$out/gs_f1_float/${q}_stage1_relax.ovf" "$out/mx_load_acc$acc.out/${q}_relax.ovf" \
        "$q relaxed, gridsolve float vs mumax3 acc $acc"
      cmp "$out/gs_f1_float/${q}_stage2_run.ovf" "$out/mx_load_acc$acc.out/${q}_t02.ovf" \
        "$q 0.2 ns, gridsolve float vs mumax3 acc $acc"
    done
  done
  for acc in $accuracies; do
    cmp "$out/mx_load_acc6.out/B_demag_relax.ovf" "$out/mx_load_acc$acc.out/B_demag_relax.ovf" \
      "B_demag relaxed, mumax3 acc 6 vs acc $acc"
  done
  cmp "$out/gs_of_mx/B_demag_stage1_run.ovf" "$out/mx_f1.out/B_demag_relax.ovf" \
    "B_demag of mumax3's relaxed m, gridsolve vs mumax3"
  cmp "$out/gs_f1_float/m_stage1_relax.ovf" "$out/mx_f1.out/m_relax.ovf" \
    "m relaxed, gridsolve float vs mumax3"
  cmp "$out/gs_f1_double/m_stage1_relax.ovf" "$out/mx_f1.out/m_relax.ovf" \
    "m relaxed, gridsolve double vs mumax3"
  for acc in $accuracies; do
    cmp "$out/mx_f1_acc$acc.out/m_relax.ovf" "$out/mx_f1.out/m_relax.ovf" \
      "m relaxed, mumax3 acc $acc vs acc 6"
  done
else
  echo "sp4_terms: no python3 with numpy here: compare with compare_ovf.py elsewhere"
fi
