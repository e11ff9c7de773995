#!/usr/bin/env bash
# Reverse execution through ptdbg-server (`bs`, `bc`), against gdb 13's
# own `record full` over the same span of testprogs/fib: the stub records
# from the first instruction (--record, methods step and soft); gdb
# breaks at `r = fib(n);`, continues to the printf, then
#  - reverse-continue three times to a breakpoint in fib: the same pcs as
#    gdb record full's three reverse-continues;
#  - forward through the history to the printf again (its end: "No more
#    reverse-execution history.", as gdb record full says there), then reverse-stepi
#    back to `r = fib(n);` one instruction at a time: the same pcs, in the
#    same order, as gdb record full's log of the span;
#  - reverse-continue with no breakpoint: "No more reverse-execution
#    history." at the program's first instruction (replaylog:begin);
#  - continue: forward through the whole history to its end, where it
#    stops as gdb's record full does ("No more reverse-execution
#    history.", replaylog:end, at the printf); the next continue runs
#    live and stops before the exit_group, as gdb record full's does
#    ("Program stopped."), where reverse-stepi works; the next continue
#    lets the program exit.
# Then threads: reverse-stepi moves the thread gdb selected.
. "$(dirname "$0")/lib.bash"

need_prereqs fib threads
need_gdb
SERVER=$BD/bin/ptdbg-server
[ -x "$SERVER" ] || die "ptdbg-server not built: $SERVER"

a=$(bp_addr fib "$(line_of fib.c 'r = fib(n);')") || exit 1
b=$(bp_addr fib "$(line_of fib.c 'printf(')") || exit 1
# pcs printed after the marker lines "RC" in log $1
rc_pcs() { sed -n '/^RC$/{n;s/^\$[0-9]* = //p;}' "$1"; }

# gdb record full: the span's instructions and three reverse-continues.
ref=$TMPDIR/fib.gdb
gdb_pcs "$ref" "$a" "$b" 1 "$TESTPROGS/fib" 4 || exit 1
CMDS=("break *$a" run 'record full' delete "break *$b" continue 'break fib')
for i in 1 2 3; do CMDS+=(reverse-continue 'echo RC\n' 'p/x $pc'); done
gdb_batch -- "$TESTPROGS/fib" 4 >"$TMPDIR/rc.gdb.log"
rc_pcs "$TMPDIR/rc.gdb.log" >"$TMPDIR/rc.gdb"
[ "$(wc -l <"$TMPDIR/rc.gdb")" = 3 ] || { cat "$TMPDIR/rc.gdb.log" >&2; die "gdb record full: no three reverse-continues"; }

failed=0
for m in step soft; do
	log=$TMPDIR/stub.$m.log
	got=$TMPDIR/fib.$m
	CMDS=("break *$a" continue delete "break *$b" continue 'break fib')
	for i in 1 2 3; do CMDS+=(reverse-continue 'echo RC\n' 'p/x $pc'); done
	CMDS+=(delete "break *$b" continue 'echo AT-B\n' 'p/x $pc' delete
	       "source $TOP/tests/integration/stub_revpcs.py" "revpcs-to $a $got"
	       reverse-continue 'echo BEGIN\n' 'p/x $pc' continue 'echo END\n' 'p/x $pc' continue
	       'echo EXIT-STOP\n' bt reverse-stepi 'echo EXIT-BACK\n' 'p/x $pc' 'stepi' continue)
	ex=(-ex 'set pagination off' -ex 'set confirm off')
	for c in "${CMDS[@]}"; do ex+=(-ex "$c"); done
	gdb -nx -batch -ex "target remote | $SERVER --method $m --record --stdio -- $TESTPROGS/fib 4" \
		"${ex[@]}" >"$log" 2>&1
	rc_pcs "$log" >"$TMPDIR/rc.$m"
	if ! diff -u "$TMPDIR/rc.gdb" "$TMPDIR/rc.$m" >&2; then
		cat "$log" >&2
		note "($m) reverse-continue stops elsewhere than gdb record full's"
		failed=1
		continue
	fi
	[ "$(sed -n '/^AT-B$/{n;s/^\$[0-9]* = //p;}' "$log")" = "$b" ] ||
		{ cat "$log" >&2; note "($m) forward through the history did not stop at $b"; failed=1; continue; }
	if [ ! -s "$got" ] || ! compare_pcs "$ref" "$got" "stub ($m) reverse-stepi over fib"; then
		cat "$log" >&2
		failed=1
		continue
	fi
	first=$(sed -n 's/^\(0x[0-9a-f]*\) in _start () from .*/\1/p' "$log" | head -n 1)
	begin=$(sed -n '/^BEGIN$/{n;s/^\$[0-9]* = //p;}' "$log")
	if ! grep -q '^No more reverse-execution history\.$' "$log" || [ -z "$first" ] ||
		[ "$((first))" != "$((begin))" ]; then
		cat "$log" >&2
		note "($m) reverse-continue did not end at the first instruction $first (at $begin)"
		failed=1
		continue
	fi
	# (the start of the history, and its end three times: the continue to
	# the breakpoint at $b, the end, this one, and the stepi at the exit)
	if [ "$(grep -c '^No more reverse-execution history\.$' "$log")" != 4 ] ||
		[ "$(sed -n '/^END$/{n;s/^\$[0-9]* = //p;}' "$log")" != "$b" ]; then
		cat "$log" >&2
		note "($m) continue from the start did not stop at the end of the history ($b)"
		failed=1
		continue
	fi
	if ! grep -q '^fib(4) = 3$' "$log" || ! grep -Eq '^\[Inferior 1 \(process [0-9]+\) exited normally\]$' "$log"; then
		cat "$log" >&2
		note "($m) continue from the start of the history did not run the program to its end"
		failed=1
		continue
	fi
	# as gdb's record full, the program stopped before its exit_group,
	# alive, with its history: reverse-stepi and stepi back, then it exits
	if [ "$(grep -c '^Program stopped\.$' "$log")" != 1 ] ||
		! sed -n '/^EXIT-STOP$/{n;p;}' "$log" | qgrep -E '^#0  0x[0-9a-f]+ in (__GI__exit|_exit) ' ||
		[ -z "$(sed -n '/^EXIT-BACK$/{n;s/^\$[0-9]* = //p;}' "$log")" ]; then
		cat "$log" >&2
		note "($m) the recorded program did not stop before its exit"
		failed=1
		continue
	fi
	note "ok stub reverse ($m): 3 reverse-continues, $(wc -l <"$got") reverse-stepis as gdb record full, begin at $first, the end at $b, live to the exit"
done
[ "$failed" = 0 ] || die "reverse execution through the stub differs from gdb record full"

# Threads: gdb's reverse-stepi sends bs for the whole process (Hc p.0,
# sent once and then kept); the thread that moves is the one gdb selected
# (Hg), as gdbserver steps its current thread.  Stopped in a worker at
# sum_range, one reverse-stepi there, then `thread 1` (main, with a
# history of its own) and reverse-stepi: main moves, the worker does not,
# and main stays gdb's thread (before, the stub took the worker, whose
# stop had replaced the thread to resume, and gdb told of a SIGTRAP there).
log=$TMPDIR/stub.threads.log
gdb -nx -batch -ex 'set pagination off' -ex 'set confirm off' \
	-ex "target remote | $SERVER --method soft --stdio -- $TESTPROGS/threads" \
	-ex 'break sum_range' -ex continue -ex reverse-stepi -ex 'echo W1\n' -ex 'p/x $pc' \
	-ex 'thread 1' -ex 'echo M1\n' -ex 'p/x $pc' -ex reverse-stepi -ex 'echo M2\n' -ex 'p/x $pc' \
	-ex 'info threads' -ex 'thread apply all p/x $pc' >"$log" 2>&1
cat "$log" >&2
at() { sed -n '/^'"$1"'$/{n;s/^\$[0-9]* = //p;}' "$log"; }
w1=$(at W1) m1=$(at M1) m2=$(at M2)
[ -n "$w1" ] && [ -n "$m1" ] && [ -n "$m2" ] || die "threads: no pcs"
[ "$m1" != "$m2" ] || die "threads: reverse-stepi in thread 1 did not move it ($m1)"
grep -q 'received signal SIGTRAP' "$log" && die "threads: a SIGTRAP was reported"
grep -Eq '^\* 1 +Thread ' "$log" || die "threads: thread 1 is no longer gdb's thread"
# the worker is where its own reverse-stepi left it
sed -n '/^Thread [23] (/,/^$/p' "$log" | qgrep -E '^\$[0-9]+ = '"$w1"'$' ||
	die "threads: the worker moved from $w1"
note "ok stub reverse-stepi in another thread: thread 1 $m1 -> $m2, the worker stays at $w1"
