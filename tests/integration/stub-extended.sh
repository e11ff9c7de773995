#!/usr/bin/env bash
# gdb's target extended-remote through ptdbg-server --multi: the
# connection outlives the process.  run (vRun) with and without arguments,
# kill and run again, the exit; then attach (vAttach) to a running process
# and detach: it runs on, untraced; the server ends when gdb does.  With
# --method, the programs run are recorded and reverse execution works.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
need_gdb
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"

/bin/sleep 600 &
victim=$!
on_exit "kill -9 $victim 2>/dev/null"
out=$TMPDIR/ext.out
gdb -nx -batch -ex 'set pagination off' -ex 'set confirm off' \
	-ex "target extended-remote | $SERVER --multi --stdio" \
	-ex "file $TESTPROGS/fib" -ex "set remote exec-file $TESTPROGS/fib" \
	-ex 'break fib' -ex run -ex 'p n' -ex kill -ex 'run 3' -ex 'p n' -ex delete -ex continue \
	-ex "attach $victim" -ex 'info threads' -ex detach -ex 'info inferiors' >"$out" 2>&1
cat "$out" >&2
grep -q '^Breakpoint 1, fib (n=10) at ' "$out" || die "run: no breakpoint stop"
grep -Eq '^\[Inferior 1 \(process [0-9]+\) killed\]$' "$out" || die "kill"
grep -q '^Breakpoint 1, fib (n=3) at ' "$out" || die "run 3: no breakpoint stop with the new argument"
grep -q '^fib(3) = 2$' "$out" || die "run 3: program output"
grep -Eq '^\[Inferior 1 \(process [0-9]+\) exited normally\]$' "$out" || die "run 3: exit"
grep -Eq "^\\[Inferior 1 \\(process $victim\\) detached\\]$" "$out" || die "attach/detach"
grep -Eq "^\\* 1    Thread $victim\\.$victim " "$out" || die "attach: info threads"
[ -e "/proc/$victim" ] || die "the attached process is gone"
grep -q '^TracerPid:[[:space:]]*0$' "/proc/$victim/status" || die "still traced after detach"
! grep -Eq '^State:[[:space:]]*[tT] ' "/proc/$victim/status" || die "left stopped after detach"
note "ok extended-remote: run, kill, run with arguments, attach, detach"

# --multi with a recording method: gdb learns of reverse execution when it
# connects, before any program is there (qSupported is asked once); a
# program it runs is recorded and reverse-next goes back.
out=$TMPDIR/ext-rec.out
gdb -nx -batch -ex 'set pagination off' -ex 'set confirm off' \
	-ex "target extended-remote | $SERVER --multi --method soft --stdio" \
	-ex "file $TESTPROGS/fib" -ex "set remote exec-file $TESTPROGS/fib" \
	-ex 'start 4' -ex 'echo START\n' -ex 'p/x $pc' -ex next -ex reverse-next -ex 'echo BACK\n' -ex 'p/x $pc' \
	-ex kill >"$out" 2>&1
cat "$out" >&2
grep -q 'does not support this command' "$out" && die "--multi --method soft: no reverse execution"
start=$(sed -n '/^START$/{n;s/^\$[0-9]* = //p;}' "$out")
back=$(sed -n '/^BACK$/{n;s/^\$[0-9]* = //p;}' "$out")
[ -n "$start" ] && [ "$start" = "$back" ] || die "--multi --method soft: reverse-next went to '$back', not back to $start"
note "ok extended-remote with --method soft: reverse-next back to $start"
