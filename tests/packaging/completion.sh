#!/usr/bin/env bash
# Drives the bash completion functions as bash does (COMP_LINE,
# COMP_POINT, COMP_WORDS, COMP_CWORD and readline's word as $2) and checks
# COMPREPLY: options (from the binary's --help), option arguments, script
# files, probe points (families, aliases, trace events through stap -l,
# files inside process("), and stapbpf's objects.
#   completion.sh STAP STAPBPF COMPLETION_FILE
set -uo pipefail
stap=$1 stapbpf=$2 file=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts/sub"
touch "$tmp/scripts/trace_me.stp" "$tmp/scripts/notes.txt" "$tmp/scripts/obj.bo"
export SYSTEMTAP_DIR=$tmp/stapdir

# shellcheck source=/dev/null
source "$file" || { echo "FAIL: $file does not load"; exit 1; }
failed=0
# complete CMD LINE WORD: COMPREPLY for LINE with the cursor at its end,
# WORD being what readline completes (the tail after a quote or after a
# COMP_WORDBREAKS character).
complete_line() {
  local fn=$1 line=$2 word=$3
  COMP_LINE=$line
  COMP_POINT=${#line}
  read -r -a COMP_WORDS <<<"$line"
  [[ $line == *' ' ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  "$fn" "${COMP_WORDS[0]}" "$word" "${COMP_WORDS[COMP_CWORD - 1]:-}"
}
has() {  # WHAT WANT: COMPREPLY holds WANT
  local c
  for c in "${COMPREPLY[@]}"; do [[ $c == "$2" ]] && return 0; done
  echo "FAIL: $1: no '$2' in (${COMPREPLY[*]:0:12})"; failed=1
}
lacks() {
  local c
  for c in "${COMPREPLY[@]}"; do
    [[ $c == "$2" ]] && { echo "FAIL: $1: '$2' offered"; failed=1; }
  done
  return 0
}

# Options, read from the binary.
complete_line _stap_bpf_stap "$stap --dump-probe-t" --dump-probe-t
has "long option" --dump-probe-types
[ ${#COMPREPLY[@]} -eq 1 ] || { echo "FAIL: --dump-probe-t: ${COMPREPLY[*]}"; failed=1; }
complete_line _stap_bpf_stap "$stap -" -
has "options" -L; has "options" -e; has "options" --folded=; has "options" --pprof=; has "options" --metrics=; has "options" --format=; has "options" --suppress-handler-errors
complete_line _stap_bpf_stap "$stap -p " ""
[ "${COMPREPLY[*]}" = "1 2 3 4 5" ] || { echo "FAIL: -p: ${COMPREPLY[*]}"; failed=1; }
complete_line _stap_bpf_stap "$stap -D MAXS" MAXS
has "-D" MAXSTRINGLEN=

# Script files: *.stp and directories, nothing else, until a script is named.
complete_line _stap_bpf_stap "$stap -v $tmp/scripts/" "$tmp/scripts/"
has "script" "$tmp/scripts/trace_me.stp"; has "script" "$tmp/scripts/sub"
lacks "script" "$tmp/scripts/notes.txt"
complete_line _stap_bpf_stap "$stap -e 'probe begin {}' $tmp/scripts/n" "$tmp/scripts/n"
has "script argument" "$tmp/scripts/notes.txt"

# Probe points after -l: families from the providers, aliases from the tapsets.
complete_line _stap_bpf_stap "$stap -l 'kernel.tr" "kernel.tr"
has "family" 'kernel.trace("'
complete_line _stap_bpf_stap "$stap -l 'timer.m" "timer.m"
has "family" 'timer.ms('; has "family" 'timer.msec('
complete_line _stap_bpf_stap "$stap -l 'scheduler.ctx" "scheduler.ctx"
has "tapset alias" scheduler.ctxswitch
lacks "internal alias" __scheduler.ctxswitch.kfunc
complete_line _stap_bpf_stap "$stap -L 'process(\"$tmp/scripts/tr" "process(\"$tmp/scripts/tr"
has "process path" "process(\"$tmp/scripts/trace_me.stp"

# Names inside a string, from stap -l on this kernel: trace events.
# (stap mounts tracefs when it is missing; as root it can.)
if [ "$("$stap" -l 'kernel.trace("sched:sched_switch")' 2>/dev/null)" = 'kernel.trace("sched:sched_switch")' ]; then
  complete_line _stap_bpf_stap "$stap -l 'kernel.trace(\"sched:" 'kernel.trace("sched:'
  has "trace event" 'kernel.trace("sched:sched_switch")'
  lacks "trace event" 'kernel.trace("irq:irq_handler_entry")'
  # Unquoted, with COMP_WORDBREAKS splitting at ':': only the tail is replaced.
  complete_line _stap_bpf_stap "$stap -l kernel.trace\\(\\\"sched:sched_swi" 'sched_swi'
  has "after a word break" 'sched_switch")'
  complete_line _stap_bpf_stap "$stap -l 'syscall.ope" 'syscall.ope'
  has "syscall alias" syscall.openat
  trace_checks="trace events, syscalls"
else
  echo "note: stap -l lists no trace events here (not root, or no tracefs): those cases were not run"
  trace_checks="no trace events here"
fi

# stapbpf: options and *.bo objects.
complete_line _stap_bpf_stapbpf "$stapbpf -" -
has "stapbpf option" -T
complete_line _stap_bpf_stapbpf "$stapbpf $tmp/scripts/" "$tmp/scripts/"
has "object" "$tmp/scripts/obj.bo"; lacks "object" "$tmp/scripts/trace_me.stp"

# Registered for both commands.
complete -p stap | grep -q _stap_bpf_stap || { echo "FAIL: stap not registered"; failed=1; }
complete -p stapbpf | grep -q _stap_bpf_stapbpf || { echo "FAIL: stapbpf not registered"; failed=1; }
[ $failed -eq 0 ] && echo "bash completion: options, arguments, scripts, probe points ($trace_checks), stapbpf: PASS"
exit $failed
