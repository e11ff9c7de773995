#!/usr/bin/env bash
# Attach (-p) to a running program that is blocked in read(), set a
# breakpoint, record, release the program, and look back from the
# breakpoint: reverse-stepi, the call history (the recording starts in
# read, then main, then step), a backtrace; then detach.  The program must
# finish on its own with the right checksum and exit status 0.  ptdbg is
# driven at its prompt through a pipe; each command is followed by an
# `echo` marker so the test knows when its output is complete (no sleeps).
. "$(dirname "$0")/lib.bash"

need_prereqs waiter
want=0
for ((i = 0; i < 10; i++)); do want=$(((want * 31 + i) & 0xffffffff)); done

# send CMD: runs CMD at the prompt; its output goes to the transcript.
send() { pt_send "$@"; }

expect_line() { # pattern (grep -E) that the transcript must contain
	grep -qE -- "$1" "$transcript" || { cat "$transcript" >&2; die "($m) expected a line matching: $1"; }
}

methods=$(ptdbg_methods) || exit 1 # step and soft must be among them
for m in $methods; do
	d=$TMPDIR/$m
	transcript=$d/transcript
	mkdir -p "$d"
	mkfifo "$d/ctl" "$d/go"
	exec 3<>"$d/ctl" 4<>"$d/go"
	"$TESTPROGS/waiter" "$d" >"$d/out" 2>&1 &
	pid=$!
	on_exit "kill -9 $pid 2>/dev/null"
	# The program has run its first round and blocks reading go.
	read -r -t 30 -u 3 p || die "($m) waiter did not start"
	[ "$p" = "$pid" ] || die "($m) waiter says pid $p, started $pid"

	coproc PT { "$PTDBG" -q --method="$m" -p "$pid" 2>&1; }
	: >"$transcript"
	send 'info threads'
	expect_line "^Attaching to process $pid\$"
	send 'break step'
	send 'record'
	echo go >&4
	send 'continue'
	expect_line '^Breakpoint 1, step \(x=[0-9]+\) at .*waiter\.c:[0-9]+$'
	send 'reverse-stepi'
	send 'record function-call-history'
	send 'backtrace'
	expect_line '^#1  0x[0-9a-f]+ in main \(argc=[^,]+, argv=[^)]+\) at .*waiter\.c:[0-9]+$'
	# The last two call segments: main, then step (the recording began in
	# read, where the program was blocked).
	calls=$(sed -n '/^>>> record function-call-history$/,/@@DONE/p' "$transcript" |
		sed 's/^(ptdbg) //' | awk -F'\t' '/^[0-9]+\t/ { print $2 }' | tr '\n' ' ')
	case "$calls" in
	*"main step ") ;;
	*) cat "$transcript" >&2; die "($m) call history ends in '$calls', expected '... main step'" ;;
	esac
	send 'detach'
	expect_line "\[Inferior 1 \(process $pid\) detached\]"
	printf 'quit\n' >&"${PT[1]}"
	wait "$PT_PID" 2>/dev/null
	read -r -t 30 -u 3 line || die "($m) the program did not finish after detach"
	[ "$line" = "sum $want" ] || die "($m) program sent '$line', expected 'sum $want'"
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] || die "($m) program exited with $rc"
	grep -qx "waiter done $want" "$d/out" || die "($m) program output wrong: $(cat "$d/out")"
	exec 3<&- 4<&-
	note "ok attach ($m)"
done
