#!/usr/bin/env bash
# The manual pages of the build render without a single groff warning
# (-ww: every kind, also the undefined macros -w all leaves out; as
# man(1) formats them, at 80 columns), lexgrog finds their NAME line, and
# the generated stapprobes(3stap) lists every probe pattern the providers
# accept and every public tapset alias:
#   man_pages.sh STAP MAN_DIR
set -uo pipefail
stap=$1 dir=$2
command -v groff >/dev/null || { echo "SKIP: groff is missing (apt-get install groff-base)"; exit 77; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }
for page in stap.1 stapbpf.8 stapprobes.3stap; do
  f=$dir/$page
  [ -s "$f" ] || { fail "$f is missing"; continue; }
  [ -s "$f.gz" ] && cmp -s <(gzip -dc "$f.gz") "$f" || fail "$f.gz is not $f compressed"
  warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -rLL=80n -ww -z "$f" 2>&1)
  [ -z "$warnings" ] || fail "$page: groff warns:"$'\n'"$warnings"
  if command -v lexgrog >/dev/null; then
    lexgrog "$f" | grep -q ": \"${page%%.*} - " || fail "$page: lexgrog finds no NAME line: $(lexgrog "$f")"
  fi
  grep -q '@[A-Z_]*@' "$f" && fail "$page: an unsubstituted @VARIABLE@"
done

# stapprobes is generated: each pattern (but the refused shapes) and each
# public alias name is on it.
probes=$dir/stapprobes.3stap
text=$(LC_ALL=C.UTF-8 MANWIDTH=200 groff -man -Tutf8 -rLL=200n "$probes" 2>/dev/null | sed 's/.\x08//g')
n=0
while IFS= read -r p; do
  case $p in *callee* | *.label* | *.insn* | kernel.*absolute | kprobe.*absolute) continue ;; esac
  grep -qF -- "$p" <<<"$text" || fail "stapprobes lacks the pattern $p"
  n=$((n + 1))
done < <(SYSTEMTAP_DIR=/nonexistent "$stap" --dump-probe-types)
[ "$n" -gt 100 ] || fail "only $n patterns from --dump-probe-types"
a=0
while IFS= read -r name; do
  grep -qE -- "^ *$name( |$)" <<<"$text" || fail "stapprobes lacks the alias $name"
  a=$((a + 1))
done < <(SYSTEMTAP_DIR=/nonexistent "$stap" --dump-probe-aliases | sed 's/ +\{0,1\}= .*//' |
         grep -v -e '^_' -e '\.__' | sort -u | sed 's/\./\\./g')
[ "$a" -gt 50 ] || fail "only $a aliases from --dump-probe-aliases"
# A fallback chain shows its real points, not the library's internal names.
internal='(^|[ ,])__[A-Za-z0-9_]+\.[A-Za-z]'
grep -qE "$internal" <<<"$text" && fail "stapprobes shows internal alias names: $(grep -E "$internal" <<<"$text" | head -3)"
[ $failed -eq 0 ] && echo "man pages: 3 pages render cleanly; stapprobes lists $n patterns and $a aliases: PASS"
exit $failed
