#!/usr/bin/env bash
# A signal storm under the recorders: 10,000 signals (5,000 raised, 5,000
# sent by another thread into a blocked system call) to a program recorded
# with soft, fewer with soft writing PT and with step (to keep the test
# short, also sanitized).  The program's counts must be exact, the
# recording without gaps, and main's history must hold every handler
# call: one on_alrm segment per SIGALRM, two on_winch segments per SIGWINCH
# (before and after the write() it calls).
. "$(dirname "$0")/lib.bash"
need_prereqs sigstorm

line=$(line_of sigstorm.c 'printf("signals=')
for mn in "soft 5000" "soft 2000 pt" "step 300"; do
	read -r m n f <<<"$mn"
	log=$TMPDIR/storm.$m${f:-}.log
	"$PTDBG" -batch -ex 'break main' -ex run -ex "record $m ${f:-}" -ex 'set record stop-at-thread-exit off' -ex "break $line" \
		-ex continue -ex 'info record' -ex 'echo CALLS\n' \
		-ex 'record function-call-history 1,10000000' -ex continue -ex continue \
		--args "$TESTPROGS/sigstorm" "$n" >"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "$m: ptdbg failed"; }
	grep -qx "signals=$((2 * n)) alrm=$n winch=$n work=$((n * (14 + 28)))" "$log" ||
		{ grep -v $'^[0-9]*\t' "$log" | tail -n 10 >&2; die "$m ${f:-}: wrong output"; }
	grep -q '^Recorded [0-9]* instructions in [0-9]* functions (0 gaps) for thread 1' "$log" ||
		die "$m ${f:-}: no recording, or one with gaps"
	a=$(sed -n '/^CALLS$/,$p' "$log" | grep -c $'\ton_alrm$')
	w=$(sed -n '/^CALLS$/,$p' "$log" | grep -c $'\ton_winch$')
	[ "$a" = "$n" ] && [ "$w" = $((2 * n)) ] ||
		die "$m ${f:-}: the history holds $a on_alrm and $w on_winch segments, not $n and $((2 * n))"
	grep -q 'exited normally' "$log" || die "$m ${f:-}: the program did not exit normally"
	note "ok $m ${f:-}: $((2 * n)) signals"
done
echo ok
