#!/usr/bin/env bash
# pt and bts stop before exit_group as gdb 13 record full does (issue 14),
# on the simulated PMU (PTDBG_SIMULATE_PMU), where they run free as on
# hardware: the thread stops on its way out (PTRACE_O_TRACEEXIT) with its
# registers and memory still there, and is shown before its syscall.  The
# same words, pc, instruction count and pcs as gdb's log; reverse motions
# and backtraces from there land in gdb's frames; continuing lets the
# program exit with its code and keeps the recording; with threads every
# thread is there at the stop, also when a worker calls exit().
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/frames.bash"
. "$(dirname "$0")/exit-stop.bash"
need_prereqs fib busy sysexit
need_gdb

at=$(line_of fib.c 'return 0;')
for m in pt bts; do
	exit_oracle fib $m "$at" "$TESTPROGS/fib"

	# reverse motions and backtraces from the stop, as gdb's
	CMDS=("break $at" run "record full" continue "echo @@ at the exit\n" bt)
	for c in reverse-stepi reverse-stepi reverse-next reverse-finish reverse-finish; do
		CMDS+=("$c" "echo @@ $c\n" bt)
	done
	CMDS+=(reverse-continue "echo @@ back at the breakpoint\n" bt)
	[ -s "$TMPDIR/gdb.frames" ] || gdb_batch -- "$TESTPROGS/fib" | norm_frames >"$TMPDIR/gdb.frames"
	CMDS[2]="record $m"
	p=$(PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$TESTPROGS/fib") || die "ptdbg ($m) failed: $p"
	norm_frames <<<"$p" >"$TMPDIR/$m.frames"
	grep -Eq '^#?[1-9]' "$TMPDIR/gdb.frames" || die "gdb printed no backtrace"
	diff -u "$TMPDIR/gdb.frames" "$TMPDIR/$m.frames" >&2 ||
		die "record $m: backtraces differ from gdb record full (--- gdb, +++ ptdbg)"

	# registers and memory are there: rax holds exit_group's number, the
	# stack is readable
	CMDS=("break $at" run "record $m" continue 'p $rax' 'x/2xb $pc' 'p *(long *)$sp != 0')
	p=$(PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$TESTPROGS/fib") || die "ptdbg ($m) failed: $p"
	echo "$p" | qgrep -x '\$1 = 231' || die "record $m: rax is not exit_group's number: $p"
	echo "$p" | qgrep '0x0f	0x05$' || die "record $m: the pc is not at a syscall instruction: $p"
	echo "$p" | qgrep -x '\$2 = 1' || die "record $m: the stack cannot be read: $p"

	# continuing lets it exit; the recording is kept and still ends at
	# the syscall
	pn=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$TMPDIR/fib.$m.log" | head -n 1)
	CMDS=("break $at" run "record $m" continue continue "info record" "x/i \$pc")
	p=$(PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$TESTPROGS/fib") || die "ptdbg ($m) failed: $p"
	echo "$p" | qgrep '^\[Inferior 1 (process [0-9]*) exited normally\]' ||
		die "record $m: no exit after the stop: $p"
	echo "$p" | qgrep '^The recorded history is kept' || die "record $m: the recording was not kept: $p"
	pn2=$(echo "$p" | sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p')
	[ "$pn2" = "$pn" ] || die "record $m: $pn2 instructions kept after the exit, $pn before"
	echo "$p" | tail -n 1 | qgrep 'syscall' || die "record $m: the kept recording does not end at the syscall: $p"

	# threads and an exit code: busy returns 2 without its fifos while
	# its worker waits in a barrier (killed by the exit_group, it stays
	# until the stop)
	CMDS=("break main" "run /nonexistent" "record $m" continue "info threads" continue)
	p=$(PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$TESTPROGS/busy") || die "ptdbg ($m) failed: $p"
	echo "$p" | qgrep '^Process record: inferior program stopped.' ||
		die "record $m: busy did not stop before exit_group: $p"
	echo "$p" | qgrep -E '^\* 1 .* in __GI__exit \(' || die "record $m: thread 1 is not in _exit: $p"
	echo "$p" | qgrep -E '^  2 ' || die "record $m: the worker thread is gone: $p"
	echo "$p" | qgrep '^\[Inferior 1 (process [0-9]*) exited with code 02\]' ||
		die "record $m: busy did not exit with its code 2: $p"
done

# A worker ends the program with exit(5) while main waits in
# pthread_join (gdb 13 asks the same question there, and then hangs, so
# the step recorder is the reference): the worker is stopped at its
# exit_group, main is there too, each thread's history is step's.
CMDS=('break worker' run 'record METHOD' continue 'info threads' 'p $pc' 'info record'
      'reverse-stepi' 'p $pc' 'thread 1' 'info record' continue)
for m in full pt bts; do
	c=("${CMDS[@]}")
	CMDS=("${c[@]/METHOD/$m}")
	PTDBG_SIMULATE_PMU=$([ $m = full ] || echo $m) ptdbg_batch -- "$TESTPROGS/sysexit" group |
		normalize | sed -E 's/expected=[0-9]+/expected=TID/' >"$TMPDIR/group.$m" # (pthread_join waits on the tid)
	CMDS=("${c[@]}")
	grep -qx 'The next instruction is syscall exit_group.  It will make the program exit.' \
		"$TMPDIR/group.$m" || { cat "$TMPDIR/group.$m" >&2; die "group ($m): no stop before exit_group"; }
	grep -Eq '^\* 2 .* in __GI__exit \(' "$TMPDIR/group.$m" ||
		{ cat "$TMPDIR/group.$m" >&2; die "group ($m): the worker is not stopped in _exit"; }
	grep -Eq '^  1 .*futex|^  1 .*pthread' "$TMPDIR/group.$m" ||
		{ cat "$TMPDIR/group.$m" >&2; die "group ($m): main is not there, waiting for the worker"; }
	grep -q '^\[Inferior 1 (process PID) exited with code 05\]' "$TMPDIR/group.$m" ||
		{ cat "$TMPDIR/group.$m" >&2; die "group ($m): no exit with code 5"; }
done
for m in pt bts; do
	# (thread 1 sat in pthread_join's futex all along and ran nothing;
	# step's info record says 1 instruction for it, its tail)
	drop='^Recorded .* thread 1 \|^Active record\|^Recording format\|^Buffer size\|^PMU: \|^Trace read: '
	diff -u <(grep -v "$drop" "$TMPDIR/group.full") <(grep -v "$drop" "$TMPDIR/group.$m") >&2 ||
		die "group ($m): differs from the step recorder (--- step, +++ $m)"
done
exit 0
