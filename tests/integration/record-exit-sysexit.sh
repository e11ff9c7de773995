#!/usr/bin/env bash
# The exit syscall (SYS_exit, 60) as gdb 13 record full treats it (issue
# 14), with every recorder (step, soft, and pt and bts on the simulated
# PMU): a program whose only thread calls syscall(SYS_exit, 3) is stopped
# before it with gdb's words ("The next instruction is syscall exit.  It
# will make the program exit."), at gdb's pc, with gdb's instruction count
# and pcs; continuing lets it exit with code 3.
#
# A thread that is not the last one ending itself with exit stops the
# program before it too, as gdb 13 record full does (it asks the same
# question, answered yes in batch mode): the same words, the thread named
# ('Thread 2 "sysexit" stopped.'), the same frame, pc and instruction
# count as gdb's.  (gdb then hangs in all-stop mode; its reference runs
# with scheduler-locking on, which changes nothing here: main waits in
# pthread_join.)  Continuing lets the thread end and the program go on to
# the stop before main's exit_group; after the exit the worker's kept
# history ends before its exit syscall, with every recorder.
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

# the worker's exit: stopped before it as gdb's record full; then before
# main's exit_group; then the program exits and the kept recording has
# the worker ending before its exit syscall
g=$(gdb -nx -batch -ex 'set pagination off' -ex 'break worker' -ex run -ex 'set scheduler-locking on' \
	-ex 'record full' -ex continue -ex 'echo STOPPED-AT\n' -ex 'p/x $pc' -ex 'info record' \
	--args "$TESTPROGS/sysexit" thread 2>&1)
# the stop, up to the pc (gdb's question cut to what ptdbg says)
stop_block() {
	sed -n '/^The next instruction is syscall exit\./,/^\$1 = /p' |
		sed 's/  Do you want to stop the program?.*//'
}
gb=$(echo "$g" | stop_block)
gn=$(echo "$g" | sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p')
echo "$gb" | qgrep '^Thread 2 "sysexit" stopped\.$' && [ -n "$gn" ] ||
	die "gdb did not stop before the worker's exit: $g"
CMDS=('break worker' run 'record METHOD' continue 'echo STOPPED-AT\n' 'p/x $pc' 'info record'
      'info threads' continue 'info threads' continue 'info threads' 'thread 2' 'p $pc' 'info record'
      'record instruction-history')
drop='^Active record\|^Recording format\|^Buffer size\|^PMU: \|^Trace read: '
for m in full soft pt bts; do
	c=("${CMDS[@]}")
	CMDS=("${c[@]/METHOD/$m}")
	PTDBG_SIMULATE_PMU=$(sim_of $m) ptdbg_batch -- "$TESTPROGS/sysexit" thread | normalize |
		grep -v "$drop" | sed 's/expected=[0-9]*,/expected=TID,/' >"$TMPDIR/thread.$m"
	CMDS=("${c[@]}")
	f=$TMPDIR/thread.$m
	diff -u <(echo "$gb") <(stop_block <"$f") >&2 ||
		{ cat "$f" >&2; die "thread ($m): the stop before the worker's exit differs from gdb's"; }
	pn=$(sed -n 's/^Recorded \([0-9]*\) instructions .* for thread 2 .*/\1/p' "$f" | head -n 1)
	[ "$pn" = "$gn" ] ||
		{ cat "$f" >&2; die "thread ($m): ${pn:-no} instructions recorded up to the worker's exit, gdb $gn"; }
	grep -qx 'The next instruction is syscall exit_group.  It will make the program exit.' "$f" ||
		{ cat "$f" >&2; die "thread ($m): no stop before main's exit_group"; }
	grep -qx 'Thread 1 "sysexit" stopped.' "$f" ||
		{ cat "$f" >&2; die "thread ($m): the stop before main's exit_group does not name thread 1"; }
	grep -Eq '^\* 1 .* in __GI__exit \(' "$f" || { cat "$f" >&2; die "thread ($m): main is not in _exit"; }
	grep -q '^\[Inferior 1 (process PID) exited with code 04\]' "$f" ||
		{ cat "$f" >&2; die "thread ($m): no exit with code 4"; }
	grep -q '^\$2 = .* <syscall+23>$' "$f" ||
		{ cat "$f" >&2; die "thread ($m): the worker's recording does not end at its exit syscall"; }
	tail -n 1 "$f" | qgrep -E '^[0-9]+	   0x[0-9a-f]+ <syscall\+18>:	mov ' ||
		{ cat "$f" >&2; die "thread ($m): the worker's history does not end before its exit syscall"; }
done
for m in soft pt bts; do
	diff -u "$TMPDIR/thread.full" "$TMPDIR/thread.$m" >&2 ||
		die "thread ($m): differs from the step recorder (--- step, +++ $m)"
done
exit 0
