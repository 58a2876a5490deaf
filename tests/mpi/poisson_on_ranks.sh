#!/usr/bin/env bash
# `mpiexec -np K gridsolve poisson` against one process: the same answer to the solver's
# tolerance, one summary printed (rank 0's) with the ranks in it, the same summary.json
# keys plus ranks and ranks_grid; multigrid-preconditioned CG with the one-process iteration
# count; the magnet's design; flow (cavity, channel); refusals (a solver or a command that does not split, a
# wrong --ranks-grid) end every rank with exit 2, never a hang.
# Usage: poisson_on_ranks.sh path/to/gridsolve path/to/mpiexec K
set -uo pipefail
gridsolve=$1 mpiexec=$2 np=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "poisson_on_ranks ($np ranks): $*" >&2; exit 1; }
launch=("$mpiexec" -np "$np" --oversubscribe)
problem=(poisson --n 33 --sides periodic --k variable --solver pcg --tol 1e-10 --device cpu)

"$gridsolve" "${problem[@]}" --out "$work/one" >"$work/one.txt" 2>&1 || fail "one process: $(cat "$work/one.txt")"
timeout 60 "${launch[@]}" "$gridsolve" "${problem[@]}" --out "$work/many" >"$work/many.txt" 2>&1 ||
  fail "exit $?: $(cat "$work/many.txt")"
[ "$(grep -c '^gridsolve poisson' "$work/many.txt")" -eq 1 ] || fail "not one summary: $(cat "$work/many.txt")"
if [ "$np" -gt 1 ]; then grep -q "^  ranks       $np (process grid " "$work/many.txt" || fail "no ranks line"; fi

# A number of summary.json.
value() { grep -o "\"$2\": *[^,}]*" "$1/summary.json" | head -1 | sed 's/.*: *//; s/"//g'; }
[ "$(value "$work/many" ranks)" = "$np" ] || fail "summary.json ranks is '$(value "$work/many" ranks)'"
[ -n "$(value "$work/many" ranks_grid)" ] || fail "summary.json has no ranks_grid"
[ "$(value "$work/many" converged)" = true ] || fail "not converged"
one=$(value "$work/one" max_error) many=$(value "$work/many" max_error)
# The max error against the exact solution is discretization error (about 1e-3 here); the
# two solves differ by the solver tolerance, far below it.
awk -v a="$one" -v b="$many" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-6 * a) }' ||
  fail "max error $many on $np ranks, $one on one"
for key in $(grep -o '"[a-z_]*":' "$work/one/summary.json" | tr -d '":' | sort -u); do
  grep -q "\"$key\":" "$work/many/summary.json" || fail "summary.json lacks $key"
done

# A solver that does not split: exit 2 on every rank, with the reason, within the timeout.
if [ "$np" -gt 1 ]; then
  timeout 60 "${launch[@]}" "$gridsolve" poisson --n 17 --solver buneman --device cpu >"$work/bcr.txt" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "buneman on ranks: exit $code, want 2: $(cat "$work/bcr.txt")"
  grep -q "does not run on several ranks" "$work/bcr.txt" || fail "buneman on ranks: $(cat "$work/bcr.txt")"
  # fft on a grid split across its transformed axis: exit 2, naming the grid to use.
  timeout 60 "${launch[@]}" "$gridsolve" poisson --n 17 --solver fft --device cpu \
    --ranks-grid "${np}x1" >"$work/fft.txt" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "fft on ${np}x1: exit $code, want 2: $(cat "$work/fft.txt")"
  grep -q -- "--ranks-grid 1x$np" "$work/fft.txt" || fail "fft on ${np}x1: $(cat "$work/fft.txt")"
  timeout 60 "${launch[@]}" "$gridsolve" poisson --n 17 --solver cg --device cpu \
    --ranks-grid "$((np + 1))x1" >"$work/grid.txt" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "a wrong --ranks-grid: exit $code, want 2: $(cat "$work/grid.txt")"
  # A command that runs on one process only: refused, not run N times over the same files.
  timeout 60 "${launch[@]}" "$gridsolve" sort /dev/null --device cpu >"$work/sort.txt" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "sort on ranks: exit $code, want 2: $(cat "$work/sort.txt")"
  grep -q "sort runs on one process" "$work/sort.txt" || fail "sort: $(cat "$work/sort.txt")"
fi

# Flow on the ranks against one process: the steady cavity (its vortex and Ghia deviation),
# DFG 2D-1 stepped by PISO with frames (its drag); one summary, ranks in summary.json.
cavity=(cavity --re 100 --n 24 --device cpu --no-plots --tol 1e-6)
"$gridsolve" "${cavity[@]}" --out "$work/cv1" >"$work/cv1.txt" 2>&1 || fail "cavity one process: $(cat "$work/cv1.txt")"
timeout 60 "${launch[@]}" "$gridsolve" "${cavity[@]}" --out "$work/cvn" >"$work/cvn.txt" 2>&1 ||
  fail "cavity: exit $?: $(cat "$work/cvn.txt")"
[ "$(grep -c '^  wrote .*summary.json' "$work/cvn.txt")" -eq 1 ] || fail "cavity: not one report: $(cat "$work/cvn.txt")"
[ "$(value "$work/cvn" ranks)" = "$np" ] || fail "cavity summary.json ranks is '$(value "$work/cvn" ranks)'"
for key in psi_min ghia_mean_deviation iterations; do
  a=$(value "$work/cv1" "$key") b=$(value "$work/cvn" "$key")
  awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; exit !(d <= 1e-9 * m) }' ||
    fail "cavity $key $b on $np ranks, $a on one"
done
channel=(channel --case dfg-2d-1 --cpd 4 --device cpu --no-plots --coupling piso --t-end 0.2 --frames 2)
"$gridsolve" "${channel[@]}" --out "$work/ch1" >"$work/ch1.txt" 2>&1 || fail "channel one process: $(cat "$work/ch1.txt")"
timeout 60 "${launch[@]}" "$gridsolve" "${channel[@]}" --out "$work/chn" >"$work/chn.txt" 2>&1 ||
  fail "channel: exit $?: $(cat "$work/chn.txt")"
[ -s "$work/chn/frames/fields_0001.h5" ] && [ -s "$work/chn/series.xdmf" ] || fail "channel: no frames"
a=$(value "$work/ch1" c_d_final) b=$(value "$work/chn" c_d_final)
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-9 * a) }' ||
  fail "channel c_d $b on $np ranks, $a on one"
# The PISO step and the projection step on these ranks: a strong and a weak row each,
# beside rank 0 alone.
if [ "$np" -gt 1 ]; then
  timeout 60 "${launch[@]}" "$gridsolve" bench flow --device cpu --n 32 --repeats 3 \
    --out "$work/bflow" >"$work/bflow.txt" 2>&1 || fail "bench flow: exit $?: $(cat "$work/bflow.txt")"
  for row in "piso cavity +strong" "piso cavity +weak" "projection tg +strong" "projection tg +weak"; do
    grep -qE "^$row +$np " "$work/bflow.txt" || fail "bench flow has no '$row' row: $(cat "$work/bflow.txt")"
  done
  grep -q "\"ranks\": *$np" "$work/bflow/bench.json" || fail "bench flow json: $(cat "$work/bflow/bench.json")"
  # Bad input on ranks: exit 2 on every rank with the reason, never a hang.
  timeout 60 "${launch[@]}" "$gridsolve" bench flow --device cpu --n 32 --dims 4 >"$work/bdims.txt" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "bench flow --dims 4: exit $code, want 2: $(cat "$work/bdims.txt")"
  grep -q -- "--dims must be 2 or 3" "$work/bdims.txt" || fail "bench flow --dims 4: $(cat "$work/bdims.txt")"
  timeout 60 "${launch[@]}" "$gridsolve" cavity --n 4 --device cpu -q >"$work/tiny.txt" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "cavity --n 4 on $np ranks: exit $code, want 2: $(cat "$work/tiny.txt")"
  grep -q "does not split over $np ranks" "$work/tiny.txt" || fail "cavity --n 4: $(cat "$work/tiny.txt")"
fi

# Checkpoints: stopped on these ranks and restarted on them, bit for bit the uninterrupted
# run on them; a one-process checkpoint restarted here, and this one restarted as one
# process, the same answer to rounding.
channel=(channel --case dfg-2d-1 --cpd 4 --device cpu --no-plots --coupling piso --t-end 0.3 --frames 0 -q)
timeout 60 "${launch[@]}" "$gridsolve" "${channel[@]}" --out "$work/ckn" >/dev/null 2>&1 ||
  fail "channel to t = 0.3 on $np ranks: exit $?"
timeout 60 "${launch[@]}" "$gridsolve" "${channel[@]}" --out "$work/cks" --stop-after 3 >/dev/null 2>&1
code=$?
[ "$code" -eq 3 ] || fail "channel --stop-after 3 on $np ranks: exit $code, want 3"
timeout 60 "${launch[@]}" "$gridsolve" "${channel[@]}" --out "$work/cks" \
  --restart "$work/cks/checkpoint.gsflow" >/dev/null 2>&1 || fail "restart on $np ranks: exit $?"
[ "$(value "$work/cks" c_d_final)" = "$(value "$work/ckn" c_d_final)" ] ||
  fail "restarted on $np ranks: c_d $(value "$work/cks" c_d_final), uninterrupted $(value "$work/ckn" c_d_final)"
"$gridsolve" "${channel[@]}" --out "$work/ck1" --stop-after 3 >/dev/null 2>&1
timeout 60 "${launch[@]}" "$gridsolve" "${channel[@]}" --out "$work/ck1" \
  --restart "$work/ck1/checkpoint.gsflow" >/dev/null 2>&1 || fail "one process's checkpoint on $np ranks: exit $?"
"$gridsolve" "${channel[@]}" --out "$work/ckr" --restart "$work/cks/checkpoint.gsflow" >/dev/null 2>&1 ||
  fail "this checkpoint as one process: exit $?"
for d in ck1 ckr; do
  a=$(value "$work/ckn" c_d_final) b=$(value "$work/$d" c_d_final)
  awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-12 * a) }' ||
    fail "$d: c_d $b, on $np ranks uninterrupted $a"
done

# The same for a periodic case (Taylor-Green on the shipped case file, which checkpoints
# every 50 steps): a periodic axis's parts hold the image past the period, and gathering
# them must not write past the whole field. The history's last row (continuity, largest
# change, divergence) bit for bit after a restart on these ranks; as one process the same
# to 1e-10 (the pressure solves round differently on other rank counts).
tg=(flow "$(dirname "$0")/../../examples/flow/taylor_green_periodic.toml" --device cpu --no-plots
  --t-end 0.3 --frames 0 -q)
last_row() { tail -1 "$1/history.csv" | cut -d, -f1-6; }
timeout 60 "${launch[@]}" "$gridsolve" "${tg[@]}" --out "$work/tgn" >"$work/tgn.txt" 2>&1 ||
  fail "periodic flow on $np ranks: exit $?: $(tail -3 "$work/tgn.txt")"
timeout 60 "${launch[@]}" "$gridsolve" "${tg[@]}" --out "$work/tgs" --stop-after 3 >/dev/null 2>&1
code=$?
[ "$code" -eq 3 ] || fail "periodic flow --stop-after 3 on $np ranks: exit $code, want 3"
cp -r "$work/tgs" "$work/tg1"
timeout 60 "${launch[@]}" "$gridsolve" "${tg[@]}" --out "$work/tgs" \
  --restart "$work/tgs/checkpoint.gsflow" >/dev/null 2>&1 || fail "periodic restart on $np ranks: exit $?"
[ "$(last_row "$work/tgs")" = "$(last_row "$work/tgn")" ] ||
  fail "periodic restart on $np ranks: $(last_row "$work/tgs"), uninterrupted $(last_row "$work/tgn")"
"$gridsolve" "${tg[@]}" --out "$work/tg1" --restart "$work/tg1/checkpoint.gsflow" >/dev/null 2>&1 ||
  fail "the periodic checkpoint of $np ranks as one process: exit $?"
paste -d, <(last_row "$work/tgn") <(last_row "$work/tg1") | awk -F, '{
  if ($1 != $7) exit 1
  for (c = 4; c <= 5; ++c) { d = $c - $(c + 6); if (d < 0) d = -d; if (d > 1e-10 * ($c < 0 ? -$c : $c)) exit 1 }
}' || fail "periodic checkpoint of $np ranks as one process: $(last_row "$work/tg1"), on the ranks $(last_row "$work/tgn")"

# The projection scheme's vortex (the transform pressure; the parts are slabs along y) on
# these ranks: one process's steps, times and velocity changes.
tgp=(flow "$(dirname "$0")/../../examples/flow/taylor_green_projection.toml" --device cpu
  --no-plots --t-end 0.3 --frames 0 -q)
"$gridsolve" "${tgp[@]}" --out "$work/tgp1" >"$work/tgp1.txt" 2>&1 ||
  fail "projection vortex, one process: $(tail -3 "$work/tgp1.txt")"
timeout 60 "${launch[@]}" "$gridsolve" "${tgp[@]}" --out "$work/tgpn" >"$work/tgpn.txt" 2>&1 ||
  fail "projection vortex on $np ranks: exit $?: $(tail -3 "$work/tgpn.txt")"
paste -d, <(last_row "$work/tgpn") <(last_row "$work/tgp1") | awk -F, '{
  if ($1 != $7 || $2 != $8) exit 1
  d = $5 - $11; if (d < 0) d = -d; if (d > 1e-10 * ($5 < 0 ? -$5 : $5)) exit 1
}' || fail "projection vortex on $np ranks: $(last_row "$work/tgpn"), one process $(last_row "$work/tgp1")"

# Multigrid-preconditioned CG on the same ranks and problem: the same answer and the same
# iteration count as one process.
mgcg=(poisson --n 65 --sides periodic --k variable --solver mgcg --tol 1e-10 --device cpu)
"$gridsolve" "${mgcg[@]}" --out "$work/mg1" >"$work/mg1.txt" 2>&1 || fail "mgcg one process: $(cat "$work/mg1.txt")"
timeout 60 "${launch[@]}" "$gridsolve" "${mgcg[@]}" --out "$work/mgn" >"$work/mgn.txt" 2>&1 ||
  fail "mgcg: exit $?: $(cat "$work/mgn.txt")"
[ "$(value "$work/mg1" iterations)" = "$(value "$work/mgn" iterations)" ] ||
  fail "mgcg: $(value "$work/mgn" iterations) iterations on $np ranks, $(value "$work/mg1" iterations) on one"
one_mg=$(value "$work/mg1" max_error) many_mg=$(value "$work/mgn" max_error)
awk -v a="$one_mg" -v b="$many_mg" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-6 * a) }' ||
  fail "mgcg: max error $many_mg on $np ranks, $one_mg on one"

# The magnet on the same ranks: the same current and wires as one process (every rank
# designs from the whole potential; rank 0 alone writes).
magnet=(magnet --h 0.01 --device cpu --no-plots)
"$gridsolve" "${magnet[@]}" --out "$work/mag1" >"$work/mag1.txt" 2>&1 || fail "magnet one process: $(cat "$work/mag1.txt")"
timeout 60 "${launch[@]}" "$gridsolve" "${magnet[@]}" --out "$work/magn" >"$work/magn.txt" 2>&1 ||
  fail "magnet: exit $?: $(cat "$work/magn.txt")"
[ "$(grep -c '^gridsolve magnet' "$work/magn.txt")" -eq 1 ] || fail "magnet: not one report: $(cat "$work/magn.txt")"
[ "$(value "$work/magn" ranks)" = "$np" ] || fail "magnet summary.json ranks is '$(value "$work/magn" ranks)'"
one_i=$(value "$work/mag1" total_current) many_i=$(value "$work/magn" total_current)
awk -v a="$one_i" -v b="$many_i" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-9 * a) }' ||
  fail "magnet: total current $many_i on $np ranks, $one_i on one"
cmp -s <(cut -d, -f1-4 "$work/mag1/wires.csv" | awk -F, 'NR > 1 { printf "%s %s %.9f %.9f\n", $1, $3, $4, $5 }') \
  <(cut -d, -f1-4 "$work/magn/wires.csv" | awk -F, 'NR > 1 { printf "%s %s %.9f %.9f\n", $1, $3, $4, $5 }') ||
  fail "magnet: other wires on $np ranks"

# HYPRE's PFMG-PCG on the same ranks and problem (where the build has it): the same answer.
if "$gridsolve" info | grep -q "hypre-pfmg"; then
  timeout 60 "${launch[@]}" "$gridsolve" poisson --n 33 --sides periodic --k variable \
    --solver hypre-pfmg --tol 1e-10 --device cpu --out "$work/hypre" >"$work/hypre.txt" 2>&1 ||
    fail "hypre-pfmg: exit $?: $(cat "$work/hypre.txt")"
  theirs=$(value "$work/hypre" max_error)
  awk -v a="$one" -v b="$theirs" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-6 * a) }' ||
    fail "max error $theirs by hypre-pfmg on $np ranks, $one by pcg on one"
fi

# A results folder that cannot be made: exit 2 before the solve, on every rank, no hang.
if [ "$np" -gt 1 ]; then
  touch "$work/plain-file"
  timeout 60 "${launch[@]}" "$gridsolve" poisson --n 17 --solver cg --device cpu \
    --out "$work/plain-file/sub" >"$work/badout.txt" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "an unwritable --out: exit $code, want 2: $(cat "$work/badout.txt")"
  grep -q "cannot use output directory\|cannot create output directory" "$work/badout.txt" ||
    fail "an unwritable --out: $(cat "$work/badout.txt")"
  if grep -q "^  result" "$work/badout.txt"; then fail "solved before refusing the --out"; fi
fi

# A disk that fills while the ranks write solution.h5 together (a file-size limit on every
# rank): exit 1 with the reason, the previous results left whole, no new file published.
if [ "$np" -gt 1 ]; then
  "$gridsolve" poisson --n 17 --solver cg --device cpu -q --out "$work/full" >/dev/null 2>&1 ||
    fail "the first results: exit $?"
  before=$(cat "$work/full/summary.json")
  # The limit on the ranks alone (the launcher needs its own shared-memory files).
  timeout 60 "${launch[@]}" bash -c "ulimit -f 100; trap '' XFSZ; exec '$gridsolve' poisson \
    --n 129 --solver cg --device cpu -q --out '$work/full'" >"$work/full.txt" 2>&1
  code=$?
  [ "$code" -eq 1 ] || fail "a full disk: exit $code, want 1: $(cat "$work/full.txt")"
  grep -q "solution.h5" "$work/full.txt" || fail "a full disk: no reason naming the file: $(cat "$work/full.txt")"
  [ "$(cat "$work/full/summary.json")" = "$before" ] || fail "a full disk replaced summary.json"
  [ "$(find "$work/full" -maxdepth 1 -name 'solution.h5' -size +100k)" = "" ] ||
    fail "a full disk published a partial solution.h5"
fi

# Ctrl-C (SIGINT to the launcher) in the middle of a long solve: every rank ends, within
# seconds, and no result file is left.
if [ "$np" -gt 1 ]; then
  "${launch[@]}" "$gridsolve" poisson --n 1025 --solver jacobi --tol 1e-14 --device cpu \
    --out "$work/interrupted" >"$work/interrupted.txt" 2>&1 &
  launcher=$!
  sleep 2
  kill -INT "$launcher"
  for _ in $(seq 1 30); do kill -0 "$launcher" 2>/dev/null || break; sleep 1; done
  kill -0 "$launcher" 2>/dev/null && fail "the launcher still runs 30 s after SIGINT"
  wait "$launcher" 2>/dev/null
  for _ in $(seq 1 10); do pgrep -f "$work/interrupted" >/dev/null || break; sleep 1; done
  pgrep -f "$work/interrupted" >/dev/null && fail "ranks still run after SIGINT"
  [ -z "$(ls -A "$work/interrupted" 2>/dev/null)" ] || fail "files left after SIGINT: $(ls -A "$work/interrupted")"
fi

# The scaling benchmark on these ranks: a strong and a weak row, each beside rank 0 alone,
# and its json written once, by rank 0.
timeout 60 "${launch[@]}" "$gridsolve" bench scaling --device cpu --n 65 --per-rank 33 \
  --iterations 5 --repeats 1 --out "$work/scaling" >"$work/scaling.txt" 2>&1 ||
  fail "bench scaling: exit $?: $(cat "$work/scaling.txt")"
for kind in strong weak; do
  grep -qE "^$kind +$np " "$work/scaling.txt" || fail "bench scaling has no $kind row: $(cat "$work/scaling.txt")"
done
grep -q "\"ranks\": *$np" "$work/scaling/bench_scaling.json" || fail "bench_scaling.json: $(cat "$work/scaling/bench_scaling.json")"
# Micromagnetics on the same ranks: a film stepped in slabs reaches the state one process
# reaches (the table's last row), rank 0 writes the table, the snapshots and the summary.
film="$(dirname "$0")/../data/micromag_film.toml"
"$gridsolve" micromag "$film" --out "$work/mm1" >"$work/mm1.txt" 2>&1 || fail "micromag one process: $(cat "$work/mm1.txt")"
timeout 60 "${launch[@]}" "$gridsolve" micromag "$film" --out "$work/mmn" >"$work/mmn.txt" 2>&1 ||
  fail "micromag: exit $?: $(cat "$work/mmn.txt")"
[ "$(grep -c '^stage 1 run' "$work/mmn.txt")" -eq 1 ] || fail "micromag: not one report: $(cat "$work/mmn.txt")"
last() { tail -1 "$1/table.csv" | cut -d, -f1-4; }
awk -F, -v a="$(last "$work/mm1")" -v b="$(last "$work/mmn")" 'BEGIN {
  split(a, x, ","); split(b, y, ",");
  for (i = 1; i <= 4; ++i) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 1e-9) exit 1 } }' ||
  fail "micromag: last row $(last "$work/mmn") on $np ranks, $(last "$work/mm1") on one"
[ -s "$work/mmn/m_stage1_run.ovf" ] || fail "micromag: no snapshot"
# Standard problem 4 (field 1, reduced): the relaxed S-state switched, the same last row.
sp4="$(dirname "$0")/../data/sp4_reduced.toml"
"$gridsolve" micromag "$sp4" --out "$work/sp1" -q >"$work/sp1.txt" 2>&1 || fail "SP4 one process: $(cat "$work/sp1.txt")"
timeout 60 "${launch[@]}" "$gridsolve" micromag "$sp4" --out "$work/spn" -q >"$work/spn.txt" 2>&1 ||
  fail "SP4: exit $?: $(cat "$work/spn.txt")"
awk -F, -v a="$(last "$work/sp1")" -v b="$(last "$work/spn")" 'BEGIN {
  split(a, x, ","); split(b, y, ",");
  for (i = 1; i <= 4; ++i) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 1e-9) exit 1 } }' ||
  fail "SP4: last row $(last "$work/spn") on $np ranks, $(last "$work/sp1") on one"
grep -q "\"ranks\": *$np" "$work/mmn/summary.json" || fail "micromag summary.json: no ranks"
# A film too thin for the ranks' slabs: exit 2 on every rank, naming the axis, never a hang.
if [ "$np" -gt 1 ]; then
  sed 's/cells = \[32, 12, 1\]/cells = [32, 3, 1]/' "$film" >"$work/thin.toml"
  timeout 60 "${launch[@]}" "$gridsolve" micromag "$work/thin.toml" --out "$work/mmthin" \
    >"$work/mmthin.txt" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "micromag on a thin film: exit $code, want 2: $(cat "$work/mmthin.txt")"
  grep -q "cells along y, the axis the ranks split" "$work/mmthin.txt" ||
    fail "micromag thin film: $(cat "$work/mmthin.txt")"
fi

# The demag benchmark on these ranks (several ranks only: one process runs the one-GPU
# benchmark): a strong and a weak row; a mesh with fewer cells along the split axis than
# ranks is refused on every rank.
if [ "$np" -gt 1 ]; then
  timeout 60 "${launch[@]}" "$gridsolve" bench micromag --device cpu --mesh 48x24x1 \
    --repeats 1 --out "$work/demag" >"$work/demag.txt" 2>&1 ||
    fail "bench micromag: exit $?: $(cat "$work/demag.txt")"
  for kind in strong weak; do
    grep -qE "^$kind +$np " "$work/demag.txt" || fail "bench micromag has no $kind row: $(cat "$work/demag.txt")"
  done
  grep -q "\"ranks\": *$np" "$work/demag/bench.json" || fail "bench micromag json: $(cat "$work/demag/bench.json")"
  timeout 60 "${launch[@]}" "$gridsolve" bench micromag --device cpu --mesh 16x1x1 \
    >"$work/thin.txt" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "bench micromag on a 16x1x1 mesh: exit $code, want 2: $(cat "$work/thin.txt")"
  grep -q "each rank needs two at least" "$work/thin.txt" || fail "16x1x1: $(cat "$work/thin.txt")"
fi
echo "poisson_on_ranks ($np ranks): same answer as one process"
