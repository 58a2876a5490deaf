#!/usr/bin/env bash
# Replays the bad-input corpus in tests/fuzz/ against the gridsolve command and checks
# each case's exit code and message. Usage: scripts/fuzz.sh [path/to/gridsolve]
#
# Two kinds of case files:
#   tests/fuzz/*.lines   one case per line:  EXIT | MESSAGE FRAGMENT | ARGUMENTS
#   tests/fuzz/cases/*.case  one case per file, for cases that need a TOML file:
#       args: solve {toml}          ({toml}: the file written from the body below)
#       exit: 2
#       expect: Unexpected token    (a fragment of stdout + stderr; may repeat)
#       generate: BASH              (optional: the body is this command's output)
#       ---
#       the TOML body
# Arguments are split as the shell would ('' is an empty argument). Every case runs in a
# fresh temporary folder with a time limit; a crash, a hang, a wrong exit code or a
# missing fragment fails the case.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$here/build/src/gridsolve}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
corpus="$here/tests/fuzz"
limit="${GRIDSOLVE_FUZZ_TIMEOUT:-30}"
[ -x "$bin" ] || { echo "fuzz: no gridsolve binary at $bin" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/gridsolve-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
total=0
failed=0

# run_case NAME EXPECTED_EXIT ARGS_STRING FRAGMENT...
run_case() {
  local name="$1" want="$2" args="$3"
  shift 3
  local dir="$work/case$total"
  mkdir -p "$dir"
  [ -f "$work/body.toml" ] && mv "$work/body.toml" "$dir/input.toml"
  args="${args//\{toml\}/$dir/input.toml}"
  args="${args//\{dir\}/$dir}"
  local out rc
  out="$(cd "$dir" && eval "set -- $args" && timeout -k 5 "$limit" "$bin" "$@" 2>&1)"
  rc=$?
  total=$((total + 1))
  local why=""
  [ "$rc" = "$want" ] || why="exit $rc, expected $want"
  local f
  for f in "$@"; do
    [ -z "$why" ] && ! grep -qF -- "$f" <<<"$out" && why="message lacks '$f'"
  done
  if [ -n "$why" ]; then
    failed=$((failed + 1))
    echo "FAIL $name: $why"
    echo "     gridsolve $args"
    sed 's/^/     | /' <<<"$out" | head -8
  fi
  rm -rf "$dir"
}

for list in "$corpus"/*.lines; do
  [ -f "$list" ] || continue
  lineno=0
  while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    [[ -z "${line// }" || "$line" =~ ^[[:space:]]*# ]] && continue
    want="$(sed 's/ *|.*//' <<<"$line")"
    rest="${line#*|}"
    fragment="$(sed 's/^ *//; s/ *|.*//' <<<"$rest")"
    args="${rest#*|}"
    args="${args# }"
    run_case "$(basename "$list"):$lineno" "$want" "$args" "$fragment"
  done <"$list"
done

for file in "$corpus"/cases/*.case; do
  [ -f "$file" ] || continue
  args="" want="" generate=""
  fragments=()
  while IFS= read -r line; do
    [ "$line" = "---" ] && break
    case "$line" in
      args:*) args="${line#args: }" ;;
      exit:*) want="${line#exit: }" ;;
      expect:*) fragments+=("${line#expect: }") ;;
      generate:*) generate="${line#generate: }" ;;
    esac
  done <"$file"
  if [ -n "$generate" ]; then
    bash -c "$generate" >"$work/body.toml"
  else
    sed '1,/^---$/d' "$file" >"$work/body.toml"
  fi
  run_case "$(basename "$file")" "$want" "$args" "${fragments[@]}"
done

echo "fuzz: $total cases, $((total - failed)) passed, $failed failed"
[ "$failed" = 0 ]
