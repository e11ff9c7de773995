#!/usr/bin/env bash
# 1,024 threads created and exiting in waves while the soft recorder runs:
# no hang, no crash, the program's output right, and every thread's
# history there (saved with the trace format pt and loaded again: each
# worker's history holds its one call of thread_sum).  Then 300 threads
# alive at once (more than the fixed table of 256 the shell once had and
# overran), and a smaller wave with step.
. "$(dirname "$0")/lib.bash"
need_prereqs manythreads

log=$TMPDIR/mt.log
# (no stop before each of the 1,024 threads' exits, as gdb record full
# makes: set record stop-at-thread-exit off)
"$PTDBG" -batch -ex 'break main' -ex run -ex 'set record stop-at-thread-exit off' \
	-ex 'record soft pt' -ex 'break all_done' \
	-ex continue -ex 'info record' -ex "record save $TMPDIR/bundle" -ex continue -ex continue \
	--args "$TESTPROGS/manythreads" 32 32 >"$log" 2>&1 || { tail -n 20 "$log" >&2; die "ptdbg failed"; }
grep -qx 'threads=1024 total=3146752' "$log" || { tail -n 20 "$log" >&2; die "wrong output"; }
grep -q '^Recorded [0-9]* instructions in [0-9]* functions (0 gaps) for thread 1' "$log" ||
	die "main's recording is missing or has gaps"
grep -q 'exited normally' "$log" || die "the program did not exit normally"
n=$(ls "$TMPDIR/bundle" | grep -c '^pt-')
[ "$n" = 1025 ] || die "the bundle holds $n thread traces, not 1025"

# Every thread of the bundle: workers are threads 2..1025.
for ((i = 2; i <= 1025; i++)); do
	printf 'thread %d\nrecord function-call-history 1,100000\n' "$i"
done >"$TMPDIR/cmds"
"$PTDBG" -batch --load "$TMPDIR/bundle" -ex 'info threads' -x "$TMPDIR/cmds" \
	>"$TMPDIR/load.log" 2>&1 || { tail -n 20 "$TMPDIR/load.log" >&2; die "loading the bundle failed"; }
n=$(grep -c '^[ *] [0-9]' "$TMPDIR/load.log")
[ "$n" = 1025 ] || die "info threads lists $n threads of the bundle, not 1025"
n=$(grep -c $'\tthread_sum$' "$TMPDIR/load.log")
[ "$n" = 1024 ] || die "$n worker histories hold thread_sum, not 1024"
# and none has a gap: all the workers of a wave pass the barrier's futex
# call while one of them steps it with its int3 out; the run after it was
# not armed then, so most workers ran on unseen and lost their path to
# the next int3 (getpagesize in start_thread), now and then before
# thread_sum
n=$(grep -c '\[overflow\]' "$TMPDIR/load.log")
[ "$n" = 0 ] || die "$n gaps in the workers' histories"

# 300 workers alive together at wave_ready with soft; 40 with step (whose
# single-stepping of each thread's start and exit is slow).
for mw in "soft 2 300 1080600" "step 1 40 4840"; do
	read -r m waves per total <<<"$mw"
	log=$TMPDIR/alive.$m.log
	"$PTDBG" -batch -ex 'break main' -ex run -ex 'set record stop-at-thread-exit off' \
		-ex "record $m" -ex 'break wave_ready' \
		-ex continue -ex 'info threads' -ex delete -ex continue \
		--args "$TESTPROGS/manythreads" "$waves" "$per" >"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "$m: ptdbg failed"; }
	n=$(grep -c '^[ *] [0-9]' "$log")
	[ "$n" = $((per + 1)) ] || die "$m: info threads lists $n threads, not $((per + 1))"
	grep -qx "threads=$((waves * per)) total=$total" "$log" ||
		{ tail -n 5 "$log" >&2; die "$m: wrong output"; }
done
echo ok
