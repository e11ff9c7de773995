#!/usr/bin/env bash
# The exit syscall (SYS_exit, 60) as gdb 13 record full treats it (issue
# 14), with every recorder (step, soft, and pt and bts on the simulated
# PMU): a program whose only thread calls syscall(SYS_exit, 3) is stopped
# before it with gdb's words ("The next instruction is syscall exit.  It
# will make the program exit."), at gdb's pc, with gdb's instruction count
# and pcs; continuing lets it exit with code 3.
#
# A thread that is not the last one ending itself with exit does not stop
# the program: gdb 13 asks the same question there (and stops in batch
# mode, then hangs), but the program does not exit and the thread's
# history is kept anyway.  Its history ends before its exit syscall with
# every recorder, and the program is stopped before main's exit_group.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/exit-stop.bash"
need_prereqs sysexit
need_gdb
# pt and bts record on the simulated PMU
sim_of() { case $1 in pt | bts) echo "$1" ;; esac; }

for m in full soft pt bts; do
	exit_oracle sysexit $m main "$TESTPROGS/sysexit"
	CMDS=('break main' run "record $m" continue continue)
	p=$(PTDBG_SIMULATE_PMU=$(sim_of $m) ptdbg_batch -- "$TESTPROGS/sysexit") ||
		die "ptdbg ($m) failed: $p"
	echo "$p" | qgrep '^\[Inferior 1 (process [0-9]*) exited with code 03\]' ||
		die "record $m: no exit with code 3 after the stop: $p"
done

# the worker's exit: no stop there; stopped before main's exit_group;
# then the program exits and the kept recording has the worker ending
# before its exit syscall
CMDS=('break worker' run 'record METHOD' continue 'info threads' continue 'info threads'
      'thread 2' 'p $pc' 'info record' 'record instruction-history')
drop='^Active record\|^Recording format\|^Buffer size\|^PMU: \|^Trace read: '
for m in full soft pt bts; do
	c=("${CMDS[@]}")
	CMDS=("${c[@]/METHOD/$m}")
	PTDBG_SIMULATE_PMU=$(sim_of $m) ptdbg_batch -- "$TESTPROGS/sysexit" thread | normalize |
		grep -v "$drop" >"$TMPDIR/thread.$m"
	CMDS=("${c[@]}")
	f=$TMPDIR/thread.$m
	grep -q '^The next instruction is syscall exit\.' "$f" &&
		{ cat "$f" >&2; die "thread ($m): stopped at the worker's exit"; }
	grep -qx 'The next instruction is syscall exit_group.  It will make the program exit.' "$f" ||
		{ cat "$f" >&2; die "thread ($m): no stop before main's exit_group"; }
	grep -Eq '^\* 1 .* in __GI__exit \(' "$f" || { cat "$f" >&2; die "thread ($m): main is not in _exit"; }
	grep -q '^\[Inferior 1 (process PID) exited with code 04\]' "$f" ||
		{ cat "$f" >&2; die "thread ($m): no exit with code 4"; }
	grep -q '^\$1 = .* <syscall+23>$' "$f" ||
		{ cat "$f" >&2; die "thread ($m): the worker's recording does not end at its exit syscall"; }
	grep -q '^Recorded [1-9][0-9]* instructions .* for thread 2 ' "$f" ||
		{ cat "$f" >&2; die "thread ($m): the worker's history is gone"; }
	tail -n 1 "$f" | qgrep -E '^[0-9]+	   0x[0-9a-f]+ <syscall\+18>:	mov ' ||
		{ cat "$f" >&2; die "thread ($m): the worker's history does not end before its exit syscall"; }
done
for m in soft pt bts; do
	diff -u "$TMPDIR/thread.full" "$TMPDIR/thread.$m" >&2 ||
		die "thread ($m): differs from the step recorder (--- step, +++ $m)"
done
exit 0
