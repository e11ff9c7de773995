#!/usr/bin/env bash
# The decode fast path (src/decode/fastpt.c) on real programs: each test
# program is recorded with `record soft pt` (real PT written by ptsynth)
# from main to exit (or the fatal signal) and saved as a bundle; `ptdbg
# --load` then lists the history (info record, the whole function-call
# history, instructions with their numbers at the start, middle and end)
# once with the fast path and once with
# PTDBG_DECODE=libipt (the plain libipt path).  The listings must be
# identical, and the fast path must have decoded something.
. "$(dirname "$0")/lib.bash"

total=0
progs=("fib 21" "loops" "funcptr" "switch" "tailcall" "longjmp" "signal" "segfault" "abort")
for p in "${progs[@]}"; do
	set -- $p
	name=$1
	shift
	b="$TMPDIR/$name.bundle"
	"$PTDBG" -batch -ex 'break main' -ex run -ex 'record soft pt' -ex 'break exit' -ex continue -ex delete \
		-ex "record save $b" --args "$TESTPROGS/$name" "$@" >"$TMPDIR/$name.rec" 2>&1 ||
		true # (segfault and abort end in a signal; the save is checked below)
	grep -q "Saved the recording to $b" "$TMPDIR/$name.rec" ||
		{ cat "$TMPDIR/$name.rec" >&2; die "$name: no bundle saved"; }
	n=$("$PTDBG" -batch --load "$b" -ex 'info record' | sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p')
	[ -n "$n" ] && [ "$n" -gt 100 ] || die "$name: no instructions recorded ($n)"
	# every call, and instructions at the start, middle and end
	m=$((n / 2))
	cmds=(-ex 'info record' -ex 'record function-call-history 1,1000000'
		-ex "record instruction-history 1,3000" -ex "record instruction-history $m,$((m + 3000))"
		-ex "record instruction-history $((n > 3000 ? n - 3000 : 1)),$n")
	PTDBG_FASTPT_STATS=1 "$PTDBG" -batch --load "$b" "${cmds[@]}" >"$TMPDIR/$name.fast" 2>"$TMPDIR/$name.stats"
	fast=$(sed -n 's/^fastpt: \([0-9]*\) segments handled.*/\1/p' "$TMPDIR/$name.stats")
	[ -n "$fast" ] || { cat "$TMPDIR/$name.stats" >&2; die "$name: no fast path figures"; }
	total=$((total + fast))
	PTDBG_DECODE=libipt "$PTDBG" -batch --load "$b" "${cmds[@]}" >"$TMPDIR/$name.libipt" 2>&1
	[ "$(grep -c '^[0-9]' "$TMPDIR/$name.fast")" -ge 3000 ] || die "$name: short listing"
	diff -u "$TMPDIR/$name.libipt" "$TMPDIR/$name.fast" >&2 ||
		die "$name: the fast path's history differs from libipt's"
	note "$name: $n instructions, the same; $(cat "$TMPDIR/$name.stats")"
done
# (most programs are one PSB segment with syscalls in it, ending with an
# asynchronous disable, which the fast path takes; a signal is left to
# libipt; fib's recursion spans several segments)
[ "$total" -gt 0 ] || die "the fast path decoded no segment of any program"
echo "fastpt-testprogs: ok ($total segments through the fast path)"
