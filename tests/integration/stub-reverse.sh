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
#    live to the program's exit.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
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
	       reverse-continue 'echo BEGIN\n' 'p/x $pc' continue 'echo END\n' 'p/x $pc' continue)
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
	# (the start of the history, and its end twice: the continue to the
	# breakpoint at $b, the end, and this one)
	if [ "$(grep -c '^No more reverse-execution history\.$' "$log")" != 3 ] ||
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
	note "ok stub reverse ($m): 3 reverse-continues, $(wc -l <"$got") reverse-stepis as gdb record full, begin at $first, the end at $b, live to the exit"
done
[ "$failed" = 0 ] || die "reverse execution through the stub differs from gdb record full"
