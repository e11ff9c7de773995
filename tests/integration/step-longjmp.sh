#!/usr/bin/env bash
# `step` at the line `longjmp(env, v);` of testprogs/longjmp, against gdb
# 13.  The call goes through the program's PLT entry (unbound: through
# the dynamic linker's resolver; bound with LD_BIND_NOW=1) into
# siglongjmp; gdb's longjmp breakpoint at siglongjmp's entry (this libc
# has no longjmp probe) takes the stop there, its "stepped into
# subroutine" check comes one instruction late and puts its step-resume
# breakpoint at siglongjmp's entry, behind the pc: the step is lost and
# the program runs on.  ptdbg does the same, live and in the recorded
# past, with the PLT entry unbound and bound:
#  - live: to the breakpoint after setjmp's second return (the same
#    output as gdb's, bt included), or without one to the program's exit;
#  - recording with every recorder (step, soft; pt and bts on the
#    simulated PMU): the same breakpoint stop; reverse-continue to the
#    start of the history (the line) and `step` replays to the end of the
#    history ("No more reverse-execution history." there, as gdb's record
#    full, whose log holds the same number of instructions).
. "$(dirname "$0")/lib.bash"
need_prereqs longjmp
need_gdb

prog=$TESTPROGS/longjmp
l16=$(line_of longjmp.c 'longjmp(env, v);')
l37=$(line_of longjmp.c 'rounds++;')
# gdb's thread-library lines apart, the outputs are compared line by line
clean() { grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' | normalize; }

for bind in lazy now; do
	if [ $bind = now ]; then export LD_BIND_NOW=1; else unset LD_BIND_NOW; fi

	# live, with a breakpoint where the longjmp lands
	CMDS=("break $l16" run "break $l37" step bt next)
	gd=$(gdb_batch -- "$prog" | clean)
	pt=$(ptdbg_batch -- "$prog") || die "ptdbg failed: $pt"
	pt=$(echo "$pt" | clean)
	note "ptdbg ($bind):"; note "$pt"
	echo "$gd" | qgrep "^Breakpoint 2, main () at longjmp.c:" ||
		die "($bind) gdb's step did not run on to the breakpoint: $gd"
	diff -u <(echo "$gd") <(echo "$pt") >&2 || die "($bind) live step at the longjmp line differs from gdb"

	# live, nothing to stop it: the program exits
	CMDS=("break $l16" run step)
	gd=$(gdb_batch -- "$prog" | clean)
	pt=$(ptdbg_batch -- "$prog") || die "ptdbg failed: $pt"
	pt=$(echo "$pt" | clean)
	echo "$gd" | qgrep '^\[Inferior 1 (process PID) exited normally\]' ||
		die "($bind) gdb's step did not run to the exit: $gd"
	diff -u <(echo "$gd") <(echo "$pt") >&2 ||
		die "($bind) live step at the longjmp line (to the exit) differs from gdb"

	# recording: the live step and its replay
	CMDS=("break $l16" run "record full" "break $l37" step reverse-continue step "info record")
	gd=$(gdb_batch -- "$prog" | clean)
	gn=$(echo "$gd" | sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p')
	[ -n "$gn" ] || die "($bind) gdb record full did not record the span: $gd"
	[ "$(echo "$gd" | grep -c '^No more reverse-execution history.')" = 2 ] ||
		die "($bind) gdb's replayed step did not run to the end of the history: $gd"
	echo "$gd" | grep -v -e '^Active record target' -e '^Record mode' -e 'recorded instruction number' \
		-e '^Log contains' -e '^Max logged' >"$TMPDIR/gdb.out"
	for m in step soft pt bts; do
		CMDS[2]="record $m"
		case $m in
		pt | bts) pt=$(PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$prog") ;;
		*) pt=$(ptdbg_batch -- "$prog") ;;
		esac || die "ptdbg ($m) failed: $pt"
		pt=$(echo "$pt" | clean)
		note "ptdbg ($bind, $m):"; note "$pt"
		pn=$(echo "$pt" | sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p')
		[ "$pn" = "$gn" ] || die "($bind) record $m: $pn instructions recorded where gdb's log has $gn"
		echo "$pt" | grep -v -e '^Active record target' -e '^Recording format' -e '^Buffer size' \
			-e '^Recorded ' -e '^Trace ' -e 'PMU' -e '^Replay' >"$TMPDIR/$m.out"
		past_args "$TMPDIR/gdb.out" "$TMPDIR/$m.out" ||
			die "($bind) record $m: step at the longjmp line differs from gdb record full"
	done
done
exit 0
