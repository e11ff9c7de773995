#!/usr/bin/env bash
# Frame arguments in the recorded past (issue 14), against gdb 13's
# record full over the same span of testprogs/fib:
#  - a frame line in the past shows what the recorder knew there: an
#    argument in a register the recorder kept (soft: at the start of the
#    recording and at its traps) has its value; one the recorder did not
#    keep (step everywhere; soft between its traps), or one in memory
#    (the present memory may hold another call's value at that address
#    by now), is <unavailable>, as gdb's record btrace prints it -- never
#    a guess; every value shown equals gdb's record full (past_args);
#  - fib -O2 keeps n in a register at its entry: soft shows gdb's n=10 at
#    the start of the recording, step <unavailable>;
#  - back at the end of the history the live values are shown again, and
#    the print frame-arguments modes apply in the past too.
. "$(dirname "$0")/lib.bash"
need_prereqs fib fib-O2
need_gdb
prog=$TESTPROGS/fib

CMDS=('break fib' run RECORD c c delete reverse-continue bt reverse-stepi 'record goto end' bt
      'echo STEP-BACK\n' reverse-step bt)
gdb_cmds=("${CMDS[@]/RECORD/record full}")
ptdbg_cmds=("${CMDS[@]/RECORD/record}")
clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^Go forward to insn number' | norm_stack
}
CMDS=("${gdb_cmds[@]}")
gdb_batch -- "$prog" | clean >"$TMPDIR/gdb"
grep -qx 'fib (n=10) at fib.c:12' "$TMPDIR/gdb" || { cat "$TMPDIR/gdb" >&2; die "gdb did not get back to fib(10)"; }
CMDS=("${ptdbg_cmds[@]}")
for m in soft step; do
	ptdbg_batch --method=$m -- "$prog" | clean >"$TMPDIR/$m"
	note "ptdbg ($m):"; note "$(cat "$TMPDIR/$m")"
	past_args "$TMPDIR/gdb" "$TMPDIR/$m" || die "$m: frame lines in the past differ from gdb's"
	grep -qx 'fib (n=<unavailable>) at fib.c:12' "$TMPDIR/$m" ||
		die "$m: an argument in memory is shown in the past"
	if grep -q '^warning: memory' "$TMPDIR/$m"; then die "$m: a frame line read the present memory"; fi
	# the live end: the values are back
	grep -qx '#2  0x[0-9a-f]* in fib (n=10) at fib.c:14' "$TMPDIR/$m" ||
		die "$m: no live values at the end of the history"
	sed -n '/^STEP-BACK$/,$p' "$TMPDIR/$m" | qgrep '(n=[0-9]' &&
		die "$m: a frame of the past (after reverse-step) shows a value"
done

# -O2: n is in rdi at fib's entry
CMDS=('break fib' run)
gv=$(gdb_batch -- "$TESTPROGS/fib-O2" | grep -m 1 '^Breakpoint 1[.0-9]*, fib ')
[ "${gv#*, }" = 'fib (n=10) at fib.c:12' ] || die "gdb's first stop in fib -O2: $gv"
CMDS=('break fib' run record c delete reverse-continue)
out=$(ptdbg_batch --method=soft -- "$TESTPROGS/fib-O2")
echo "$out" | sed -n '/^No more reverse-execution history\.$/{n;p;}' | qgrep -x 'fib (n=10) at fib.c:12' ||
	{ echo "$out" >&2; die "soft: the register kept at the start of the recording is not shown"; }
out=$(ptdbg_batch --method=step -- "$TESTPROGS/fib-O2")
echo "$out" | sed -n '/^No more reverse-execution history\.$/{n;p;}' | qgrep -x 'fib (n=<unavailable>) at fib.c:12' ||
	{ echo "$out" >&2; die "step: a value where no register is known"; }

# the modes apply in the past too
CMDS=('break fib' run record c delete reverse-continue 'set print frame-arguments none' bt
      'set print frame-arguments presence' bt 'set print frame-arguments all' bt)
out=$(ptdbg_batch --method=step -- "$prog")
for want in '#0  fib (n=...) at fib.c:12' '#0  fib (...) at fib.c:12' '#0  fib (n=<unavailable>) at fib.c:12'; do
	echo "$out" | qgrep -xF "$want" || { echo "$out" >&2; die "missing in the past: $want"; }
done
exit 0
