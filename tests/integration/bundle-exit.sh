#!/usr/bin/env bash
# A bundle saved at the stop before exit_group (issue 14) loads as the
# live history it was saved from: pt and bts on the simulated PMU, where
# the thread stops on its way out with its PT showing the exit syscall
# executed while its history ends before it (the syscall is the tail, the
# instruction not executed yet).  `info record` and the whole instruction
# history (numbers and pcs, the tail marked) are equal live and loaded,
# for fib (one thread) and for busy (main's exit_group kills a worker
# waiting in a barrier, which is still there at the stop).
. "$(dirname "$0")/lib.bash"
need_prereqs fib busy

at=$(line_of fib.c 'return 0;')
# the history as both show it: info record without the lines that name
# the recorder or the trace's bytes, the instruction history, the pc
show=('info record' 'record instruction-history 1,100000' 'x/i $pc')
# (a thread the exit_group killed in a syscall: the live pc is where the
# kernel holds it, after that syscall; its history ends before it as the
# main thread's does, which is what is compared)
show2=('info record' 'record instruction-history 1,100000')
keep() { grep -E '^Recorded |^[0-9]+	(   |=> )0x|^=> ' | sed -E 's/ \((process|LWP) [0-9]+\)/ (PID)/'; }
for m in pt bts; do
	for prog in fib busy; do
		if [ $prog = fib ]; then
			CMDS=("break $at" run "record $m" continue)
			args=()
		else
			CMDS=("break main" "run" "record $m" continue)
			args=(/nonexistent)
		fi
		CMDS+=("${show[@]}")
		[ $prog = busy ] && CMDS+=("thread 2" "${show2[@]}")
		b="$TMPDIR/$prog.$m"
		rm -rf "$b"
		CMDS+=("record save $b")
		live=$(PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$TESTPROGS/$prog" "${args[@]}") ||
			die "$prog ($m): ptdbg failed: $live"
		echo "$live" | qgrep '^The next instruction is syscall exit_group' ||
			die "$prog ($m): no stop before exit_group: $live"
		echo "$live" | qgrep "^Saved the recording to $b" || die "$prog ($m): not saved: $live"
		CMDS=("${show[@]}")
		[ $prog = busy ] && CMDS+=("thread 2" "${show2[@]}")
		loaded=$(ptdbg_batch --load "$b") || die "$prog ($m): loading failed: $loaded"
		keep <<<"$live" >"$TMPDIR/live"
		keep <<<"$loaded" >"$TMPDIR/loaded"
		n=$(grep -c '^Recorded ' "$TMPDIR/live")
		[ "$n" -eq "$([ $prog = busy ] && echo 2 || echo 1)" ] ||
			die "$prog ($m): $n info record answers: $live"
		# (the pc, not executed yet, is the exit syscall)
		grep '^=> ' "$TMPDIR/live" | head -n 1 | qgrep -E '	syscall *$' ||
			die "$prog ($m): the live pc is not the syscall: $(tail -n 3 "$TMPDIR/live")"
		diff -u "$TMPDIR/live" "$TMPDIR/loaded" >&2 ||
			die "$prog ($m): the loaded history differs from the live one (--- live, +++ loaded)"
		note "ok $prog ($m): $(grep '^Recorded ' "$TMPDIR/live" | head -n 1)"
	done
done
exit 0
