#!/usr/bin/env bash
# What step and next print, live, backward and forward in the replay,
# against gdb 13's record full on testprogs/fib, in a recursion: stepping
# out of a function into the middle of its caller's line prints only the
# source line where the step stops when the caller is the same function
# (gdb steps on in the caller's frame, and prints the location only for
# another function: "main (...) at fib.c:22"); a return that lands right
# at the start of a line stops there with the location; stepping back
# into a callee's end prints its location.  Frame arguments as in
# frame-args-past.sh (past_args).
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb
prog=$TESTPROGS/fib

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^Go forward to insn number' -e '^Go backward to insn number' |
		norm_stack
}
for motion in step next; do
	cmds=('break fib' 'condition 1 n==1' run delete RECORD)
	for i in 1 2 3 4 5 6 7 8; do cmds+=("$motion"); done
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cmds+=("reverse-$motion"); done
	# and forward again, replaying the history
	for i in 1 2 3 4 5 6 7; do cmds+=("$motion"); done
	CMDS=("${cmds[@]/RECORD/record full}")
	gdb_batch -- "$prog" | clean >"$TMPDIR/gdb.$motion"
	grep -q '^No more reverse-execution history' "$TMPDIR/gdb.$motion" ||
		{ cat "$TMPDIR/gdb.$motion" >&2; die "gdb did not get back to the start ($motion)"; }
	CMDS=("${cmds[@]/RECORD/record}")
	for m in step soft; do
		ptdbg_batch --method=$m -- "$prog" | clean >"$TMPDIR/$m.$motion"
		note "ptdbg ($m, reverse-$motion):"; note "$(cat "$TMPDIR/$m.$motion")"
		past_args "$TMPDIR/gdb.$motion" "$TMPDIR/$m.$motion" ||
			die "$m: reverse-$motion prints other lines than gdb's"
	done
done
# (the sessions cover a step back out into the same function)
[ "$(grep -c '^14	' "$TMPDIR/step.step")" -ge 2 ] || die "no reverse-step back into a caller's line"
exit 0
