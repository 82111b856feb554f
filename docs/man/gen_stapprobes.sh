#!/usr/bin/env bash
# Writes stapprobes(3stap): every probe point pattern this build's
# providers accept (stap --dump-probe-types) and every public probe alias
# of the tapset library (stap --dump-probe-aliases), so the page cannot
# drift from the code.  Run at build time:
#   gen_stapprobes.sh STAP TAPSET_DIR VERSION OUT
set -euo pipefail
stap=$1 tapsets=$2 version=$3 out=$4

types=$(STAP_BPF_TAPSETS=$tapsets SYSTEMTAP_DIR=/nonexistent "$stap" --dump-probe-types)
aliases=$(STAP_BPF_TAPSETS=$tapsets SYSTEMTAP_DIR=/nonexistent "$stap" --dump-probe-aliases)
[ -n "$types" ] && [ -n "$aliases" ] || { echo "gen_stapprobes: empty dump from $stap" >&2; exit 1; }

# Text for a roff line: backslashes escaped, a leading '.' or "'" guarded.
roff_escape() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\\&&/"; }

# The family a pattern belongs to, named by its first component.
family_of() {
  case "$1" in
    begin* | end* | error* | never) echo "session" ;;
    timer.*) echo "timer" ;;
    kernel.trace*) echo "trace" ;;
    kernel.data* | process.data*) echo "watch" ;;
    kernel.* | module* | kprobe.*) echo "kfunc" ;;
    process*) echo "process" ;;
    perf.*) echo "perf" ;;
    procfs*) echo "procfs" ;;
    netfilter*) echo "netfilter" ;;
    *) echo "other" ;;
  esac
}

# Shapes the parser takes only to refuse them with a message.
refused() {
  case "$1" in
    process*.callee\(* | process*.callees | process*.callees\(*) return 1 ;;
    *.callee\(* | *.callee | *.callees | *.callees\(* | *.label\(* | *.insn | *.insn.*) return 0 ;;
    kernel.*.absolute | kprobe.*.absolute) return 0 ;;
  esac
  return 1
}

section() {  # FAMILY TITLE TEXT
  echo ".SS $2"
  echo "$3"
  echo ".PP"
  local first=1 p
  while IFS= read -r p; do
    [ "$(family_of "$p")" = "$1" ] || continue
    refused "$p" && continue
    [ $first -eq 1 ] || echo ".br"
    first=0
    printf '\\fB%s\\fR\n' "$(printf '%s' "$p" | roff_escape)"
  done <<<"$types"
}

# One ".TP" per public alias: its name, then what it expands to, with the
# library's internal aliases (names with a "__" component) replaced by
# their own points, so a fallback chain shows its real probe points.
alias_entries() {
  awk '
    # The top-level points of a list into P[level, 1..n] (a global array:
    # mawk mishandles local arrays passed down in a recursion).
    function split_points(text, level,    n, i, c, depth, quote, cur) {
      n = 0; depth = 0; quote = 0; cur = ""
      for (i = 1; i <= length(text); i++) {
        c = substr(text, i, 1)
        if (quote) { cur = cur c; if (c == "\\") { i++; cur = cur substr(text, i, 1) } else if (c == "\"") quote = 0; continue }
        if (c == "\"") quote = 1
        else if (c == "(") depth++
        else if (c == ")") depth--
        else if (c == "," && depth == 0) { n++; sub(/^ +/, "", cur); P[level, n] = cur; cur = ""; continue }
        cur = cur c
      }
      n++; sub(/^ +/, "", cur); P[level, n] = cur
      return n
    }
    function expand(text, level,    n, i, name, rest, out) {
      n = split_points(text, level)
      out = ""
      for (i = 1; i <= n; i++) {
        name = P[level, i]; rest = ""
        if (match(name, /[ ?!].*$/)) { rest = substr(name, RSTART); name = substr(name, 1, RSTART - 1) }
        if (level < 8 && (name in internal)) name = expand(internal[name], level + 1)
        out = out (i > 1 ? ", " : "") name rest
      }
      return out
    }
    {
      eq = index($0, " = "); op = " = "
      pe = index($0, " += "); if (pe && (!eq || pe < eq)) { eq = pe; op = " += " }
      name = substr($0, 1, eq - 1); points = substr($0, eq + length(op))
      if (name ~ /(^|\.)__/ || name ~ /^_/) { if (name in internal) points = internal[name] ", " points; internal[name] = points; next }
      order[++count] = name; def[count] = points
    }
    END {
      for (i = 1; i <= count; i++) {
        print "@@TP"
        print "@@B" order[i]
        print expand(def[i], 0)
      }
    }' <<<"$aliases" | roff_escape | sed -e 's/^@@TP$/.TP/' -e 's/^@@B\(.*\)$/\\fB\1\\fR/'
}

{
  cat <<EOF
.TH STAPPROBES 3stap "December 2026" "stap-bpf $version" "stap-bpf probe points"
.nh
.ad l
.SH NAME
stapprobes \- the probe points and tapset aliases of stap\-bpf
.SH DESCRIPTION
This page lists what
.BR stap (1)
of stap\-bpf accepts after \fBprobe\fR, as this build has it: the
patterns come from the engine's probe providers
(\fBstap \-\-dump\-probe\-types\fR) and the aliases from its tapset
library (\fBstap \-\-dump\-probe\-aliases\fR), both read when the page was
built.
In a pattern, \fB(string)\fR is a string literal, wildcards allowed
where the family matches names on the system, and \fB(number)\fR a
number.
A point may end in \fB?\fR (optional: dropped when it matches nothing),
\fB!\fR (the same, and the next point of the list is tried only when this
one matches nothing) and \fBif (\fIexpr\fB)\fR.
.PP
\fBstap \-l \fIPOINT\fR lists what a point matches on this system;
\fBstap \-L \fIPOINT\fR adds its variables.
What each family needs of the kernel is in
.BR stap (1).
.SH PATTERNS
EOF
  section session "Session" "In user space, in the runtime: before the first and after the last probe, on a run\-time error, never."
  section timer "Timers" "Interval timers run in user space; \\fBtimer.profile.tick\\fR is a perf event on every CPU."
  section trace "Trace events" "A trace event \\fB\"\\fISYSTEM\\fB:\\fIEVENT\\fB\"\\fR, wildcards allowed; its fields are \\fB\$\\fIfield\\fR."
  section kfunc "Kernel functions" "Kernel and module functions and statements, by fentry/fexit, kprobe.multi or kprobes."
  section process "User space" "Processes, their functions, statements, PLT entries and USDT marks (uprobes), and process events."
  section perf "Perf events" "A perf event of any type and config, sampled by count or frequency."
  section procfs "Files" "Files the script serves, as FIFOs under \\fB/var/tmp/systemtap\\-\$USER/\\fIMODULE\\fR (\\fIPATH\\fR \\fBcommand\\fR when left out): a reader gets what the read probe assigns to \\fB\$value\\fR; a write probe gets each piece written as \\fB\$value\\fR.  \\fBprocfs(\"__stdin\")\\fR is the script's standard input (\\fBinput.char\\fR, \\fBinput.line\\fR)."
  section watch "Hardware watchpoints" "A perf breakpoint event on 1, 2, 4 or 8 aligned bytes (\\fB.length(\\fIN\\fB)\\fR, 1 by default), firing on stores (\\fB.write\\fR) or on loads and stores (\\fB.rw\\fR): \\fBkernel.data\\fR on every CPU, an address or a kallsyms symbol; \\fBprocess.data\\fR in the \\fB\\-c\\fR/\\fB\\-x\\fR target.  The debug registers (4 on x86) are the limit."
  section netfilter "Netfilter hooks" "A BPF netfilter program for every packet of a protocol family at a hook (Linux 6.4+; IPv4 and IPv6): \\fB\$skb\\fR, \\fB\$in\\fR, \\fB\$out\\fR, \\fB\$hooknum\\fR, \\fB\$okfn\\fR, and \\fB\$verdict\\fR, written under \\fB\\-g\\fR."
  cat <<'EOF'
.SS Refused
These shapes are parsed as SystemTap parses them and then refused with
a message: \fB.callee\fR and \fB.callees\fR of kernel functions, \fB.label\fR, \fB.insn\fR,
and kernel addresses (\fB.statement(\fINUMBER\fB).absolute\fR).
.SH SYSTEM CALLS
\fBsyscall.\fINAME\fR, \fBsyscall.\fINAME\fB.return\fR,
\fBnd_syscall.\fINAME\fR and \fBnd_syscall.\fINAME\fB.return\fR are
aliases generated from the running kernel's syscall trace events when a
script names them, one pair per call, with \fBname\fR, \fBargstr\fR,
\fBretstr\fR, one variable per argument and the \fB$\fIfield\fR of the
event.
\fBstap \-l \(aqsyscall.*\(aq\fR lists those of this kernel.
.SH TAPSET ALIASES
Each alias with the points it stands for.
Where an alias falls back (\fB!\fR) from kernel functions to a trace
event, both are shown.
EOF
  alias_entries
  cat <<'EOF'
.SH SEE ALSO
.BR stap (1),
.BR stapbpf (8)
EOF
} >"$out.tmp"
mv "$out.tmp" "$out"
