#!/bin/bash
# Golden tests of passes 1-2: runs every tests/golden/**/NAME.stp through
# the stap binary under test and compares with NAME.expected.  The layout
# and the rules are in README.md next to this script.
#
#   run_golden.sh STAP_BINARY [--update] [FILTER]
#
# --update rewrites the expected files from the current binary (review the
# git diff before committing: never bless output blindly).  FILTER keeps
# the cases whose path (relative to tests/golden) contains it.
#
# Cases run in parallel (one job per CPU); files are read and compared
# with bash builtins, so a process is started only for stap itself and for
# diff when something differs: the whole suite takes seconds.
set -u

usage() {
  echo "usage: $0 STAP_BINARY [--update] [FILTER]" >&2
  exit 2
}

[ $# -ge 1 ] || usage
stap=$(realpath -e "$1" 2>/dev/null) || { echo "$0: no such binary: $1" >&2; exit 2; }
shift
update=0
filter=""
for arg in "$@"; do
  case "$arg" in
    --update) update=1 ;;
    -*) usage ;;
    *) filter="$arg" ;;
  esac
done

root=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs_max=$(nproc 2>/dev/null || echo 2)

# slurp VAR FILE: the whole file, trailing newlines included.
slurp() {
  IFS= read -r -d '' "$1" < "$2" || true
}


# Splits the case's "#! args:" line (shell quoting allowed) into the
# arrays opts (stap options) and script_args (after "--").
read_args() {
  local file=$1 rel=$2 line words=() w seen_dashes=0 has_pass=0
  opts=()
  script_args=()
  IFS= read -r line < "$file" || line=""
  if [[ "$line" == "#! args:"* ]]; then
    eval "words=(${line#\#! args:})" || return 1
  fi
  for w in "${words[@]}"; do
    if [ $seen_dashes = 1 ]; then
      script_args+=("$w")
    elif [ "$w" = "--" ]; then
      seen_dashes=1
    else
      [[ "$w" == -p* ]] && has_pass=1
      opts+=("$w")
    fi
  done
  if [ $has_pass = 0 ]; then
    case "$rel" in
      list/*) ;;  # -l/-L refuse -p
      parse/*) opts=(-p1 "${opts[@]}") ;;
      *) opts=(-p2 "${opts[@]}") ;;
    esac
  fi
  return 0
}

# True when the options stop after pass 1.
is_pass1() {
  local i
  for ((i = 0; i < ${#opts[@]}; i++)); do
    [ "${opts[i]}" = "-p1" ] && return 0
    [ "${opts[i]}" = "-p" ] && [ "${opts[i + 1]:-}" = "1" ] && return 0
  done
  return 1
}

# compose PRIMARY OTHER LABEL: the expected-file text, in $composed: the
# primary stream, then the other one under a marker line when not empty.
compose() {
  composed=$1
  if [ -n "$2" ]; then
    [ -z "$composed" ] || [[ "$composed" == *$'\n' ]] || composed+=$'\n'
    composed+="--- $3"$'\n'"$2"
  fi
}

# strip_headers TEXT: TEXT without the "# parse tree dump" and "# file"
# lines, in $stripped.
strip_headers() {
  local line
  stripped=""
  while IFS= read -r line || [ -n "$line" ]; do
    [[ "$line" == "# parse tree dump" || "$line" == "# file "* ]] && continue
    stripped+="$line"$'\n'
  done <<< "$1"
  # The here-string added one newline at the end; drop it again.
  [[ "$1" == *$'\n' ]] || stripped=${stripped%$'\n'}
}

# fail REL WHY: reports a failed case (run_case stops at the first).
fail() {
  echo "FAIL: $1: $2"
  echo fail > "$scratch/status"
}

indent() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    echo "    $line"
  done <<< "$1"
}

# Reprints the -p1 output through `stap -p1 -` and requires the same body.
check_round_trip() {
  local rel=$1 body reprinted err2
  strip_headers "$out_text"
  body=$stripped
  printf '%s' "$body" > "$scratch/body"
  # The reparse needs -g when the case had it (@const, @kregister).
  local guru=() w
  for w in "${opts[@]}"; do [ "$w" = -g ] && guru=(-g); done
  if ! timeout 10 "$stap" -p1 "${guru[@]}" - < "$scratch/body" > "$scratch/out2" 2> "$scratch/err2"; then
    fail "$rel" "round trip: reparsing the -p1 output failed"
    slurp err2 "$scratch/err2"
    indent "$err2"
    return 1
  fi
  slurp reprinted "$scratch/out2"
  strip_headers "$reprinted"
  if [ "$stripped" != "$body" ]; then
    fail "$rel" "round trip: printing the reparsed -p1 output differs"
    printf '%s' "$stripped" > "$scratch/body2"
    diff -u --label printed --label reprinted "$scratch/body" "$scratch/body2"
    return 1
  fi
  return 0
}

run_case() {
  local case_file=$1 rel=${1#"$root"/} dir name expected rc want_fail=0 expected_text
  dir=${case_file%/*}
  name=${case_file##*/}
  name=${name%.stp}
  expected="$dir/$name.expected"
  [[ "$name" == fail_* ]] && want_fail=1
  if ! read_args "$case_file" "$rel"; then
    fail "$rel" "cannot read its '#! args:' line"
    return
  fi
  (cd "$dir" && exec timeout 10 "$stap" "${opts[@]}" "$name.stp" "${script_args[@]}") \
    > "$scratch/out" 2> "$scratch/err"
  rc=$?
  slurp out_text "$scratch/out"
  slurp err_text "$scratch/err"
  if [ $want_fail = 1 ]; then
    compose "$err_text" "$out_text" stdout
  else
    compose "$out_text" "$err_text" stderr
  fi
  [ $update = 1 ] && printf '%s' "$composed" > "$expected"

  if [ $want_fail = 1 ] && [ $rc -ne 1 ]; then
    fail "$rel" "expected exit 1 (a fail_ case), got $rc"
    indent "$composed"
    return
  fi
  if [ $want_fail = 0 ] && [ $rc -ne 0 ]; then
    fail "$rel" "expected exit 0, got $rc"
    indent "$composed"
    return
  fi
  # Errors in a tapset that is then skipped do not fail a run (stap's rule).
  if [ $want_fail = 0 ] && [[ "$err_text" =~ (^|$'\n')([[:alnum:] ]*error:|ERROR) ]] &&
     [[ "$err_text" != *"has errors, and will be skipped"* ]]; then
    fail "$rel" "exit 0 but stderr reports an error"
    indent "$err_text"
    return
  fi
  if [ ! -f "$expected" ]; then
    fail "$rel" "no expected file (run with --update, then review it)"
    return
  fi
  slurp expected_text "$expected"
  if [ "$expected_text" != "$composed" ]; then
    fail "$rel" "output differs"
    printf '%s' "$composed" > "$scratch/actual"
    diff -u --label "$rel expected" --label "$rel actual" "$expected" "$scratch/actual"
    return
  fi
  if [ $want_fail = 0 ] && is_pass1; then
    check_round_trip "$rel" || return
  elif [ $want_fail = 0 ] && [[ "$rel" != list/* ]]; then
    # Every ok case round-trips: pass-2 cases are printed with -p1 first.
    # (A -l/-L listing is not a program.)
    local p1opts=() o
    for o in "${opts[@]}"; do [ "$o" = -p2 ] && o=-p1; p1opts+=("$o"); done
    if ! (cd "$dir" && exec timeout 10 "$stap" "${p1opts[@]}" "$name.stp" \
          "${script_args[@]}") > "$scratch/out1" 2>/dev/null; then
      fail "$rel" "round trip: -p1 of this case failed"
      return
    fi
    slurp out_text "$scratch/out1"
    check_round_trip "$rel" || return
  fi
  echo pass > "$scratch/status"
}

# Cases run in parallel (one job per CPU), each in its own scratch
# directory; their reports are printed afterwards in case order.
cases=()
while IFS= read -r case_file; do
  rel=${case_file#"$root"/}
  [ -z "$filter" ] || [[ "$rel" == *"$filter"* ]] || continue
  cases+=("$case_file")
done < <(find "$root" -name '*.stp' -not -path "$root/tapsets/*" | LC_ALL=C sort)

running=0
for i in "${!cases[@]}"; do
  if [ $running -ge "$jobs_max" ]; then
    wait -n
    running=$((running - 1))
  fi
  scratch="$work/$i"
  mkdir "$scratch"
  run_case "${cases[i]}" > "$scratch/report" 2>&1 &
  running=$((running + 1))
done
wait

passed=0
failed=0
failures=()
for i in "${!cases[@]}"; do
  scratch="$work/$i"
  cat "$scratch/report"
  status=fail
  [ -f "$scratch/status" ] && IFS= read -r status < "$scratch/status"
  if [ "$status" = pass ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("${cases[i]#"$root"/}")
  fi
done

if [ ${#failures[@]} -gt 0 ]; then
  echo "failed cases:"
  printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $((passed + failed)) -gt 0 ]
