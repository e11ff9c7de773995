#!/usr/bin/env bash
# ptdbg's own writes failing while it holds an attached program stopped
# at a breakpoint under the soft recorder (our int3s in its code): the
# shell's output going to a pipe nobody reads any more (SIGPIPE), a
# `record save` over the file size limit (ulimit -f: SIGXFSZ), and
# ptdbg-report's report written to a closed pipe.  The default actions of
# those signals killed ptdbg there and then, and the kernel let the
# program go with our int3s in it (it died of SIGTRAP).  Now the shell
# leaves it as SIGTERM does and then dies of SIGPIPE; the save fails with
# a message, the recording and the session go on, and a bundle that was
# in the directory is kept whole; ptdbg-report says it cannot write the
# report and detaches.  Every time the program must finish untraced, with
# its CPU masks and code as they were and the checksum of a run nobody
# touched.  And ptdbg-server's launched programs get the signal
# dispositions it was given (it ignored SIGPIPE, and they inherited it).
# Driven through fifos and echo markers; no sleeps.
. "$(dirname "$0")/lib.bash"

need_prereqs busy threads
ncpu=$(nproc)
all_cpus="0-$((ncpu - 1))"

# A run nobody touches gives the checksum to expect.
busy_reference

# start_busy NAME: busy in $TMPDIR/NAME, its pid in $pid, its fifos on 3, 4.
start_busy() {
	d=$TMPDIR/$1
	mkdir -p "$d"; mkfifo "$d/ctl" "$d/go"
	exec 3<>"$d/ctl" 4<>"$d/go"
	taskset -c "$all_cpus" "$TESTPROGS/busy" "$d" >"$d/out" 2>&1 &
	pid=$!
	read -r -t 60 -u 3 p || die "$1: busy did not start"
	[ "$p" = "$pid" ] || die "$1: busy says pid $p, started $pid"
}

# check_busy NAME: the program finishes as if nobody had been there.
check_busy() {
	local line tid mask tracer
	read -r -t 120 -u 3 line || { cat "$d/out" >&2; die "$1: the program did not finish (died?)"; }
	[ "$line" = "$want" ] || die "$1: the program computed '$line', expected '$want'"
	while read -r tid mask tracer; do
		[ "$tracer" = 0 ] || die "$1: thread $tid still traced by $tracer"
		[ "$mask" = "$all_cpus" ] || die "$1: thread $tid runs on CPUs '$mask', it had '$all_cpus'"
	done < <(threads_state "$pid")
	text_intact "$pid" || die "$1: program text changed"
	echo leave >&4
	wait "$pid" || die "$1: the program exited with $?"
	exec 3<&- 4<&-
	note "ok $1"
}

# The shell reads commands from fifo in (fd 5) and writes to fifo out
# (fd 6).  say CMD: sends CMD and an echo marker, keeps what comes back
# up to the marker in $transcript.
say() {
	printf '%s\necho @@DONE\\n\n' "$1" >&5
	echo ">>> $1" >>"$transcript"
	wait_done "$1"
}

wait_done() {
	local line
	while IFS= read -r -t 120 -u 6 line; do
		printf '%s\n' "$line" >>"$transcript"
		[[ $line == *@@DONE* ]] && return 0
	done
	cat "$transcript" >&2
	die "no answer from ptdbg to '$1'"
}

# shell_at_halfway NAME [ulimit -f blocks]: ptdbg attached to busy, recording
# with soft, stopped at halfway() in thread B.
shell_at_halfway() {
	start_busy "$1"
	transcript=$d/transcript
	: >"$transcript"
	mkfifo "$d/sin" "$d/sout"
	(
		[ -n "${2:-}" ] && ulimit -f "$2"
		exec "$PTDBG" -q -p "$pid" <"$d/sin" >"$d/sout" 2>&1
	) &
	ptdbg_pid=$!
	exec 5>"$d/sin" 6<"$d/sout"
	say 'break halfway'
	say 'record soft'
	printf 'continue\necho @@DONE\\n\n' >&5
	echo go >&4
	read -r -t 120 -u 3 line && [ "$line" = started ] || die "$1: busy never started its threads"
	wait_done continue
	grep -q 'Breakpoint 1, halfway' "$transcript" ||
		{ cat "$transcript" >&2; die "$1: the breakpoint was not hit"; }
}

# 1. The shell's output goes to a pipe whose reader is gone.
shell_at_halfway pipe
exec 6<&-
printf 'info record\n' >&5
wait "$ptdbg_pid"
st=$?
exec 5>&-
[ "$st" = $((128 + 13)) ] || die "pipe: ptdbg ended with status $st, not by SIGPIPE"
check_busy pipe

# 2. record save over the file size limit: a message, and all goes on.
shell_at_halfway fsize 1
say "record save $d/bundle"
grep -q "cannot write '$d/bundle/.*': File too large" "$transcript" ||
	{ cat "$transcript" >&2; die "fsize: no message for the failed save"; }
[ ! -e "$d/bundle" ] || { ls -la "$d/bundle" >&2; die "fsize: the failed save left $d/bundle behind"; }
say 'info record'
grep -q '^Recorded [1-9][0-9]* instructions' "$transcript" ||
	{ cat "$transcript" >&2; die "fsize: the recording is gone"; }
say detach
grep -q "\[Inferior 1 (process $pid) detached\]" "$transcript" ||
	{ cat "$transcript" >&2; die "fsize: no detach"; }
printf 'quit\n' >&5
wait "$ptdbg_pid" || die "fsize: ptdbg ended with status $?"
exec 5>&- 6<&-
check_busy fsize

# 3. A failed save into a bundle's directory leaves that bundle whole.
rec_line() { grep -m 1 '^Recorded [0-9]* instructions' "$1"; }
b=$TMPDIR/keep
CMDS=('break main' run 'record soft' 'break _exit' continue "record save $b")
ptdbg_batch -- "$TESTPROGS/threads" >"$TMPDIR/keep.1" 2>&1
grep -q "Saved the recording to $b" "$TMPDIR/keep.1" || { cat "$TMPDIR/keep.1" >&2; die "keep: first save failed"; }
CMDS=('info record')
ptdbg_batch --load "$b" >"$TMPDIR/keep.2" || { cat "$TMPDIR/keep.2" >&2; die "keep: the bundle does not load"; }
CMDS=('break main' run 'record soft' 'break _exit' continue "record save $b")
# (the batch's status is the failed save's)
(ulimit -f 4; ptdbg_batch -- "$TESTPROGS/threads") >"$TMPDIR/keep.3" 2>&1
grep -q "cannot write '$b/.*': File too large" "$TMPDIR/keep.3" ||
	{ cat "$TMPDIR/keep.3" >&2; die "keep: no message for the failed save"; }
CMDS=('info record')
ptdbg_batch --load "$b" >"$TMPDIR/keep.4" || { cat "$TMPDIR/keep.4" >&2; die "keep: the first bundle is broken"; }
[ "$(rec_line "$TMPDIR/keep.2")" = "$(rec_line "$TMPDIR/keep.4")" ] ||
	die "keep: the bundle changed: '$(rec_line "$TMPDIR/keep.4")', was '$(rec_line "$TMPDIR/keep.2")'"
! ls "$b" | qgrep '\.tmp$' || { ls -la "$b" >&2; die "keep: the failed save left files"; }
note "ok keep"

# 4. ptdbg-report's report to a closed pipe.
start_busy report
mkfifo "$d/rout" "$d/rerr"
"$BD/bin/ptdbg-report" --method=soft --at=halfway -p "$pid" >"$d/rout" 2>"$d/rerr" &
rp=$!
exec 6<"$d/rout" 7<"$d/rerr"
while IFS= read -r -t 120 -u 7 line; do
	[[ $line == *"recording the process"* ]] && break
done || die "report: never started recording"
exec 6<&-
echo go >&4
read -r -t 120 -u 3 line && [ "$line" = started ] || die "report: busy never started its threads"
wait "$rp"
st=$?
err=$(cat <&7)
exec 7<&-
[ "$st" = 1 ] || { printf '%s\n' "$err" >&2; die "report: ended with status $st, not 1"; }
[[ $err == *"ptdbg-report: cannot write the report to standard output: Broken pipe"* ]] ||
	{ printf '%s\n' "$err" >&2; die "report: no message for the lost report"; }
check_busy report

# 5. ptdbg-server's launched program: the signal dispositions we have.
mine=$(grep '^SigIgn' /proc/self/status)
theirs=$(printf '+%s' "$(rsp_pkt c)" |
	"$BD/bin/ptdbg-server" --stdio -- /bin/grep '^SigIgn' /proc/self/status 2>&1 >/dev/null |
	grep '^SigIgn')
[ "$mine" = "$theirs" ] || die "server: the program started with '$theirs', ours is '$mine'"
note "ok server"
