#!/usr/bin/env bash
# A loaded bundle's PT file truncated by another process while ptdbg has
# it mapped (docs/bundle.md): touching the lost pages would raise SIGBUS.
# ptdbg must not crash; the command that runs into it fails with a message
# naming the file, and the session stays usable.  ptdbg is driven at its
# prompt through a pipe, so the file is cut exactly between two commands
# (an `echo` marker after each command says its output is complete).
. "$(dirname "$0")/lib.bash"

need_prereqs fib
b=$TMPDIR/bundle
# fib(21): about 570,000 instructions, a PT file of several PSB segments
# and three pages or more.
out=$("$PTDBG" -batch -ex 'break main' -ex run -ex 'record soft pt' -ex 'break exit' -ex continue \
	-ex "record save $b" --args "$TESTPROGS/fib" 21 2>&1)
grep -q "Saved the recording to $b" <<<"$out" || { echo "$out"; die "cannot save the bundle"; }
pt=$(ls "$b"/pt-*.bin)
size=$(stat -c %s "$pt")
[ "$size" -ge 8192 ] || die "trace too small for several pages: $size bytes"
transcript=$TMPDIR/transcript

send() { pt_send "$@"; }
expect() { # pattern (grep -E) the transcript must contain after marker $2
	sed -n "/^>>> $2\$/,\$p" "$transcript" | qgrep -E -- "$1" ||
		{ cat "$transcript" >&2; die "expected a line matching: $1 (after '$2')"; }
}

for cut in 0 $((size / 2)); do
	: >"$transcript"
	cp "$pt" "$pt.orig"
	coproc PT { "$PTDBG" -q --load "$b" 2>&1; }
	# the newest segment is decoded and its pages touched
	send 'reverse-stepi'
	expect '0x[0-9a-f]+ in ' 'reverse-stepi'
	send 'info record'
	before=$(grep '^Recorded ' "$transcript")
	[ -n "$before" ] || { cat "$transcript" >&2; die "no info record before the cut"; }
	truncate -s "$cut" "$pt"
	# The load decoded and counted every segment and keeps what a trace
	# this small needs (its runs stay decoded, the calls are in the call
	# log), so what follows may never read the file again; where it does
	# (a run evicted and decoded again), it meets the lost pages and says
	# so once (tests/unit/test-bundle.c covers the guard itself).
	send 'info record'
	send 'record goto begin'
	send 'continue'
	send 'reverse-continue'
	send 'record instruction-history 1,3'
	send 'record function-call-history'
	send 'bt'
	printf 'quit\n' >&"${PT[1]}"
	rc=0
	wait "$PT_PID" || rc=$?
	[ "$rc" -lt 128 ] || { cat "$transcript" >&2; die "ptdbg died of signal $((rc - 128)) (file cut to $cut bytes)"; }
	if grep -q 'AddressSanitizer\|runtime error' "$transcript"; then cat "$transcript" >&2; die "sanitizer report"; fi
	nmsg=$(grep -c "the trace file '$pt' was truncated while loaded" "$transcript")
	[ "$nmsg" -le 1 ] || { cat "$transcript" >&2; die "the truncation is reported $nmsg times"; }
	if [ "$nmsg" -eq 0 ]; then
		# nothing was read again: nothing may be lost either
		after=$(awk '/^>>> info record$/ { n++ } n == 2 && /^Recorded / { print; exit }' "$transcript")
		[ "$after" = "$before" ] ||
			{ cat "$transcript" >&2; die "the history changed after the cut without a word: '$after'"; }
		sed -n '/^>>> continue$/,/^>>> reverse-continue$/p' "$transcript" |
			grep -q '^No more reverse-execution history' ||
			{ cat "$transcript" >&2; die "replay from the beginning did not reach the end"; }
	fi
	note "ok: file cut to $cut bytes while loaded, ptdbg exited $rc"
	mv "$pt.orig" "$pt"
done
# The untouched bundle still loads and reports nothing of the kind.
out=$("$PTDBG" -batch --load "$b" -ex 'info record' 2>&1)
grep -q '^Recorded [0-9]* instructions' <<<"$out" || { echo "$out"; die "the bundle does not load"; }
! grep -q 'truncated' <<<"$out" || die "a whole bundle reported as truncated"
echo ok
