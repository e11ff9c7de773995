#!/usr/bin/env bash
# The program killed with SIGKILL in the middle of a recording (by a child
# of its own, while a second thread spins): ptdbg says so, does not crash,
# and keeps what was recorded, browsable like a loaded trace (both
# threads, their calls, reverse motions) until the next run, which must
# start afresh.  Kept with the trace format pt, it can be saved as a
# bundle that loads with the same histories.
. "$(dirname "$0")/lib.bash"
need_prereqs selfkill

for mf in "soft" "soft pt" "step"; do
	read -r m f <<<"$mf"
	log=$TMPDIR/kill.$m${f:-}.log
	save=()
	[ "${f:-}" = pt ] && save=(-ex 'echo SAVED\n' -ex 'thread 1' -ex 'info record' -ex 'thread 2'
				  -ex 'info record' -ex "record save $TMPDIR/bundle")
	"$PTDBG" -batch -ex 'break main' -ex run -ex "record $m ${f:-}" -ex continue "${save[@]}" \
		-ex 'thread 1' -ex 'info record' -ex 'info threads' -ex 'echo CALLS1\n' \
		-ex 'record function-call-history 1,1000000' -ex 'thread 2' -ex 'echo CALLS2\n' \
		-ex 'record function-call-history 1,1000000' -ex 'echo REVERSE\n' -ex 'reverse-stepi' \
		-ex 'info record' -ex 'echo RUN-AGAIN\n' -ex run -ex continue -ex 'info record' \
		--args "$TESTPROGS/selfkill" >"$log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || { tail -n 20 "$log" >&2; die "$m ${f:-}: ptdbg failed (status $rc)"; }
	what="$m ${f:-}"
	[ "$(grep -c '^Program terminated with signal SIGKILL, Killed\.$' "$log")" = 2 ] ||
		{ tail -n 20 "$log" >&2; die "$what: the kill was not reported twice"; }
	[ "$(grep -c '^The recorded history is kept' "$log")" = 1 ] ||
		die "$what: ptdbg does not say the history is kept (once, for the recorded run)"
	grep -q '^Recorded [0-9]* instructions in [0-9]* functions (0 gaps) for thread 1' "$log" ||
		die "$what: no recording kept for thread 1"
	n=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$log" | head -n 1)
	[ "$n" -gt 1000 ] || die "$what: only $n instructions kept"
	[ "$(sed -n '/^  Id /,/^CALLS1$/p' "$log" | grep -c '^[ *] [0-9]')" = 2 ] ||
		die "$what: info threads does not show both threads"
	sed -n '/^CALLS1$/,/^CALLS2$/p' "$log" | qgrep $'\tmain$' || die "$what: main's calls are gone"
	sed -n '/^CALLS2$/,/^REVERSE$/p' "$log" | qgrep $'\tspin$' ||
		die "$what: the second thread's calls are gone"
	sed -n '/^REVERSE$/,/^RUN-AGAIN$/p' "$log" | qgrep '^Replay in progress' ||
		die "$what: reverse-stepi did not move into the kept history"
	sed -n '/^RUN-AGAIN$/,$p' "$log" | qgrep '^No recording is currently active' ||
		die "$what: the next run did not start afresh"
	if [ "${f:-}" = pt ]; then
		sed -n '/^SAVED$/,/^Saved the recording/p' "$log" | grep '^Recorded' >"$TMPDIR/kept"
		[ "$(wc -l <"$TMPDIR/kept")" = 2 ] || die "$what: no info record of both threads"
		"$PTDBG" -batch --load "$TMPDIR/bundle" -ex 'thread 1' -ex 'info record' -ex 'thread 2' \
			-ex 'info record' >"$TMPDIR/load.log" 2>&1 ||
			{ cat "$TMPDIR/load.log" >&2; die "$what: the saved bundle does not load"; }
		grep '^Recorded' "$TMPDIR/load.log" | diff -u "$TMPDIR/kept" - >&2 ||
			die "$what: the saved bundle differs from the kept recording"
	fi
	note "ok $what: $n instructions kept"
done
echo ok
