#!/usr/bin/env bash
# perf.data out and in, checked against perf's own Intel PT decoder (an
# implementation independent of libipt): every test program is recorded
# with the soft recorder (trace format pt) from main to _exit, saved with
# `record save --perf-data`, and
#   1. `perf script --itrace=i0ns -F tid,ip` (one sample per instruction)
#      must list, for every thread, exactly the instruction addresses of
#      ptdbg's `record instruction-history` over the whole history;
#   2. `ptdbg --load` of that perf.data must give the same history again,
#      for every thread.
# The vdso program's calls into the vdso are in both: perf reads the vdso
# as this kernel has it, ptdbg --load from perf's build-id cache, where
# record save --perf-data stored it.
. "$(dirname "$0")/lib.bash"

# program | continues after `break main; run; record` to reach _exit
progs=("fib|1" "loops|1" "funcptr|1" "switch|1" "switch-O2|1" "tailcall-O2|1" "signal|2" "threads|1" "vdso|1")
need_prereqs fib loops funcptr switch switch-O2 tailcall-O2 signal threads vdso
# The vdso goes into perf's build-id cache (as perf record puts it there):
# a private one here.
export PERF_BUILDID_DIR=$TMPDIR/buildid-cache

PERF=$(find_perf) || die "no working perf (install linux-perf: it is the oracle here)"
note "using $($PERF --version) ($PERF)"

# Numbered listing lines -> bare hex addresses; gap lines verbatim.
listing_pcs() {
	awk '/^[0-9]+\t/ {
		if (match($0, /^[0-9]+\t *(=> )? *0x[0-9a-f]+/)) {
			s = substr($0, RSTART, RLENGTH); sub(/.*0x0*/, "", s); print s
		} else print "ITEM: " $0
	}'
}

thread_cmds() { # the commands that list every thread's history; $1: tids
	local t i=1
	for t in $1; do
		CMDS+=("thread $i" "echo THREAD-LISTING $t\\n" 'record instruction-history /f' 'echo END-LISTING\n')
		i=$((i + 1))
	done
}

failed=0
for s in "${progs[@]}"; do
	IFS='|' read -r prog ncont <<<"$s"
	pd="$TMPDIR/$prog.data"
	log="$TMPDIR/$prog.live"
	CMDS=('break main' run record 'set record stop-at-thread-exit off' 'break _exit' 'delete 1')
	for ((i = 0; i < ncont; i++)); do CMDS+=(continue); done
	CMDS+=("record save --perf-data $pd" "record save $TMPDIR/$prog.bundle" 'info record'
	       'set record instruction-history-size unlimited'
	       'echo THREAD-LISTING main\n' 'record instruction-history /f')
	ptdbg_batch --method=soft --trace-format=pt -- "$TESTPROGS/$prog" >"$log"
	grep -q "^Saved the recording to $pd\.$" "$log" || { tail -n 20 "$log" >&2; die "$prog: record save --perf-data failed"; }
	grep -q '(0 gaps)' "$log" || { tail -n 20 "$log" >&2; die "$prog: the live recording has gaps"; }
	main_tid=$(sed -n 's/^Recorded .* for thread 1 (process \([0-9]*\)).*/\1/p' "$log")
	[ -n "$main_tid" ] || die "$prog: no main thread id in the log"

	# perf's decoder: one line per instruction, "TID ADDR"
	"$PERF" script -i "$pd" --itrace=i0ns -F tid,ip >"$TMPDIR/$prog.perf" 2>"$TMPDIR/$prog.perf.err" ||
		{ cat "$TMPDIR/$prog.perf.err" >&2; die "$prog: perf script failed"; }
	if grep -qi 'error\|warning' "$TMPDIR/$prog.perf" "$TMPDIR/$prog.perf.err"; then
		head "$TMPDIR/$prog.perf.err" >&2
		grep -i 'error' "$TMPDIR/$prog.perf" | head >&2
		die "$prog: perf reports decode errors"
	fi
	tids=$(awk '{ print $1 }' "$TMPDIR/$prog.perf" | awk '!seen[$1]++')
	[ -n "$tids" ] || die "$prog: perf decoded no instruction"

	# the main thread live against perf
	sed -n '/^THREAD-LISTING main$/,$p' "$log" | listing_pcs >"$TMPDIR/$prog.live.pcs"
	awk -v t="$main_tid" '$1 == t { print $2 }' "$TMPDIR/$prog.perf" >"$TMPDIR/$prog.perf.pcs"
	n=$(wc -l <"$TMPDIR/$prog.live.pcs")
	[ "$n" -ge 100 ] || die "$prog: only $n instructions live"
	if ! diff -u "$TMPDIR/$prog.live.pcs" "$TMPDIR/$prog.perf.pcs" >"$TMPDIR/$prog.diff1"; then
		head -n 30 "$TMPDIR/$prog.diff1" >&2
		note "FAIL $prog: perf's decoder and ptdbg's live history differ"
		failed=1
		continue
	fi

	# every thread: ptdbg --load of the perf.data against perf
	CMDS=('info record' 'set record instruction-history-size unlimited')
	thread_cmds "$("$PTDBG" -batch --load "$pd" -ex 'info threads' 2>&1 |
		sed -n 's/^[* ] *[0-9][0-9]* *LWP \([0-9]*\).*/\1/p')"
	ptdbg_batch --load "$pd" >"$TMPDIR/$prog.load" || { tail -n 20 "$TMPDIR/$prog.load" >&2; die "$prog: --load of the perf.data failed"; }
	# the same recording saved as a bundle: what ptdbg recorded, gaps and
	# all, for the round trip through the perf.data to be held against
	ptdbg_batch --load "$TMPDIR/$prog.bundle" >"$TMPDIR/$prog.bload" || { tail -n 20 "$TMPDIR/$prog.bload" >&2; die "$prog: --load of the bundle failed"; }
	# where the main thread stands: where the live session stopped (the
	# trace ends with FUP and TIP.PGD at _exit, the tail)
	grep -Eq '^\* 1 *LWP [0-9]* *(__GI_)?_exit \(status=<unavailable>\) ' <("$PTDBG" -batch --load "$pd" -ex 'info threads' 2>&1) ||
		die "$prog: the loaded perf.data's main thread is not at _exit"
	nth=0
	for t in $tids; do
		nth=$((nth + 1))
		awk -v t="$t" '$1 == t { print $2 }' "$TMPDIR/$prog.perf" >"$TMPDIR/$prog.perf.$t"
		# The perf.data gives back exactly what ptdbg recorded, gaps
		# included (the bundle of the same recording)...
		sed -n "/^THREAD-LISTING $t\$/,/^END-LISTING\$/p" "$TMPDIR/$prog.load" | listing_pcs >"$TMPDIR/$prog.loadall.$t"
		sed -n "/^THREAD-LISTING $t\$/,/^END-LISTING\$/p" "$TMPDIR/$prog.bload" | listing_pcs >"$TMPDIR/$prog.bundle.$t"
		[ -s "$TMPDIR/$prog.loadall.$t" ] || { note "FAIL $prog: thread $t is not in the loaded perf.data"; failed=1; continue; }
		if ! diff -u "$TMPDIR/$prog.bundle.$t" "$TMPDIR/$prog.loadall.$t" >"$TMPDIR/$prog.diff3"; then
			head -n 30 "$TMPDIR/$prog.diff3" >&2
			note "FAIL $prog: thread $t: the perf.data and the bundle of the same recording differ"
			failed=1
			continue
		fi
		# ...and perf's own decoder lists the same instructions.  perf
		# lists no gap lines: a "[disabled]" gap (tracing resumed
		# elsewhere, signal delivery) and a gap the recording itself has
		# (said in the log) are left out of this comparison only.
		grep -v '^ITEM: ' "$TMPDIR/$prog.loadall.$t" >"$TMPDIR/$prog.load.$t"
		grep '^ITEM: ' "$TMPDIR/$prog.loadall.$t" | grep -v -x 'ITEM: [0-9]*	\[disabled\]' |
			sed "s/^/note: $prog thread $t: the recording has a gap: /" >&2
		if ! diff -u "$TMPDIR/$prog.perf.$t" "$TMPDIR/$prog.load.$t" >"$TMPDIR/$prog.diff2"; then
			head -n 30 "$TMPDIR/$prog.diff2" >&2
			note "FAIL $prog: thread $t: perf and ptdbg --load of the perf.data differ"
			failed=1
		fi
	done
	case $prog in threads) [ "$nth" -ge 3 ] || die "threads: perf shows $nth threads (want 3)" ;; esac
	note "ok $prog: $n instructions in the main thread, $nth thread(s): perf = ptdbg live = ptdbg --load"
done
[ "$failed" = 0 ] || exit 1
echo ok
