# stap -L lists each tracepoint of a pattern with its fields and their C
# types; compared with the kernel's own format files (common_* fields are
# not script variables; "char x[16]" -> char[16], "__data_loc char[] x" ->
# char[], "const char * x" -> const char*).
tracing=/sys/kernel/tracing
[ -r $tracing/available_events ] || mount -t tracefs nodev $tracing
$STAP -L 'kernel.trace("sched:*")' > $CASE_TMP/listed
for event in $(grep '^sched:' $tracing/available_events | LC_ALL=C sort -u); do
  line="kernel.trace(\"$event\")"
  while IFS= read -r decl; do
    case "$decl" in
      *" common_"*) continue ;;
      "__data_loc "*) decl=${decl#__data_loc }; name=${decl##* }; type=${decl% *} ;;
      *"["*"]") name=${decl##* }; idx="[${name#*[}"; name=${name%%[*}; type="${decl% *}$idx" ;;
      *) name=${decl##* }; type=${decl% *} ;;
    esac
    line+=" \$$name:${type// \*/*}"
  done < <(sed -n 's/^\tfield:\([^;]*\);.*/\1/p' $tracing/events/${event/://}/format)
  echo "$line"
done > $CASE_TMP/expected
if [ -s $CASE_TMP/expected ] && cmp -s $CASE_TMP/listed $CASE_TMP/expected; then
  echo "same fields"
else
  diff $CASE_TMP/expected $CASE_TMP/listed
fi
# An alias over a tracepoint lists the alias name, its locals, then the
# fields; '$$' forms are not listed.
cat > $CASE_TMP/golden_tp.stp <<'STP'
probe tp.switch = kernel.trace("sched:sched_switch") { prev = $prev_comm; next_pid = $next_pid; all = $$vars }
STP
$STAP -I $CASE_TMP -L 'tp.*'
