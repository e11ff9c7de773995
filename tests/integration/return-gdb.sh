#!/usr/bin/env bash
# return [EXPR]: the selected frame (innermost, or one chosen with up)
# returns to its caller at once, with EXPR as its value (cast to the
# function's return type), every register the unwinder knows for the
# caller put back; then the program runs on with that value.  Compared
# line for line with gdb 13 on testprogs/fib, with the exit code of a
# main made to return 77 (gdb's octal "exited with code 0115").  In the
# recorded past it is refused (gdb drops the recording instead).
. "$(dirname "$0")/lib.bash"

need_prereqs fib
need_gdb
norm() {
	grep -v -e libthread_db -e '^\[Thread debugging' | normalize |
		sed -e 's/argv=0x[0-9a-f]*/argv=ARGV/g' -e 's/stack_end=0x[0-9a-f]*/stack_end=S/g'
}
compare() { compare_gdb "$@"; }

CMDS=('return' 'break fib if n == 1' 'run' 'return 40' 'bt' 'info registers rax' 'continue'
	'up' 'return' 'bt' 'delete' 'continue')
compare values "$TESTPROGS/fib" 3
qgrep '^rax *0x28 *40$' "$TMPDIR/values.ptdbg" || die "values: the forced value is not in rax"

CMDS=('break main' 'run' 'next' 'return 77' 'bt 1' 'continue')
compare main "$TESTPROGS/fib" 3
qgrep '^\[Inferior 1 (process PID) exited with code 0115\]$' "$TMPDIR/main.ptdbg" || die "main: exit code"

CMDS=('break fib' 'run' 'record' 'stepi' 'reverse-stepi' 'return' 'record goto end' 'return 5'
	'bt 1')
ptdbg_batch -- "$TESTPROGS/fib" 3 >"$TMPDIR/past" 2>&1
qgrep 'Cannot force a return in the recorded history' "$TMPDIR/past" || { cat "$TMPDIR/past" >&2; die "past: not refused"; }
qgrep '^#0  0x[0-9a-f]* in main (' "$TMPDIR/past" || { cat "$TMPDIR/past" >&2; die "past: no return at the end of the history"; }
note "past: refused in the history, done at its end"
