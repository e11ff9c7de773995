#!/usr/bin/env bash
# Attaching to a program with 1,100 live threads: ptdbg once listed only
# the first 1,024 thread ids at attach (the rest ran on untraced) and kept
# only 512 in the session.  Every thread must be seized and shown, and
# after detach every one must be untraced and the program go on.
. "$(dirname "$0")/lib.bash"
need_prereqs manythreads

fifo=$TMPDIR/out
mkfifo "$fifo"
"$TESTPROGS/manythreads" 1 1100 hold >"$fifo" &
pid=$!
on_exit "kill -9 $pid 2>/dev/null"
exec 3<"$fifo"
# The program says "ready" once its 1,100 holding threads exist.
while read -r line <&3; do [ "$line" = ready ] && break; done
[ "${line:-}" = ready ] || die "the program did not get ready"
[ "$(ls /proc/$pid/task | wc -l)" = 1101 ] || die "the program does not have 1101 threads"

log=$TMPDIR/attach.log
"$PTDBG" -batch -p "$pid" -ex 'info threads' -ex detach >"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "ptdbg failed"; }
n=$(grep -c '^[ *] [0-9]' "$log")
[ "$n" = 1101 ] || die "info threads lists $n threads, not 1101"
traced=0
for t in /proc/$pid/task/*; do
	tp=$(sed -n 's/^TracerPid:[[:space:]]*//p' "$t/status")
	[ "$tp" = 0 ] || traced=$((traced + 1))
done
[ "$traced" = 0 ] || die "$traced threads are still traced after detach"
[ "$(ls /proc/$pid/task | wc -l)" = 1101 ] || die "threads were lost"
# A signal it has no handler for ends it: it was not left stopped.
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" = $((128 + 15)) ] || die "the program ended with $rc, not by SIGTERM"
echo ok
