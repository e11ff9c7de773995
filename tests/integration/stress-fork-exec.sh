#!/usr/bin/env bash
# fork, vfork and exec following each other while the program is recorded
# (testprogs/forkchain: at each level a forked child computes, a vforked
# child execs the program as a leaf, then the program execs itself one
# level down).  The children must run clean of our breakpoints (their exit
# statuses are right), and soft, in both trace formats, must record what
# step records, function by function.
. "$(dirname "$0")/lib.bash"
need_prereqs forkchain

line=$(line_of forkchain.c 'if (level <= 1)')
line=${line%:*}:$((${line#*:} + 1))
calls_of() { # method format levels -> info record and the call history on stdout
	local log=$TMPDIR/fc.$1.${2:-blocks}.log
	"$PTDBG" -batch -ex 'break main' -ex run -ex "record $1 $2" -ex delete -ex "break $line" \
		-ex continue -ex 'info record' -ex 'echo CALLS\n' \
		-ex 'record function-call-history /i 1,10000000' -ex continue -ex continue \
		--args "$TESTPROGS/forkchain" "$3" >"$log" 2>&1 || { tail -n 15 "$log" >&2; return 1; }
	# a child that ran into an int3 would end with 1000 + SIGTRAP
	for ((l = $3; l >= 1; l--)); do
		grep -qx "level $l: fork child \([0-9]*\) (want \1), vfork child $((l + 1))" "$log" ||
			{ grep '^level' "$log" >&2; die "$1 $2: level $l's children went wrong"; }
	done
	[ "$(grep -c 'is executing new program: .*/forkchain$' "$log")" = $(($3 - 1)) ] ||
		die "$1 $2: the execs were not all announced"
	grep -q 'exited normally' "$log" || die "$1 $2: the program did not exit normally"
	grep '^Recorded ' "$log" | sed 's/ for thread .*//'
	sed -n '/^CALLS$/,/exited normally/p' "$log" | grep -v 'exited normally'
}

# step is slow: compare it with soft over two levels, soft's formats over three.
calls_of step "" 2 >"$TMPDIR/step2" || die "step recording failed"
grep -q '(0 gaps)' "$TMPDIR/step2" || die "the step recording has gaps"
grep -q $'\tcompute\tinst ' "$TMPDIR/step2" || die "no call of compute in the history"
calls_of soft "" 2 >"$TMPDIR/soft2" || die "soft recording failed"
diff -u "$TMPDIR/step2" "$TMPDIR/soft2" >&2 || die "record soft differs from record step"
calls_of soft "" 3 >"$TMPDIR/soft3" || die "soft recording failed"
calls_of soft pt 3 >"$TMPDIR/softpt3" || die "soft pt recording failed"
diff -u "$TMPDIR/soft3" "$TMPDIR/softpt3" >&2 || die "record soft pt differs from record soft"
echo ok
