#!/usr/bin/env bash
# Code written at run time (testprogs/jit.c: a function regenerated in
# place in a read-write-execute mapping, a trampoline that calls it
# directly, and patches to the program's own text after mprotect): the
# soft recorder must give the step recorder's instruction sequence, with
# no gap, in both trace formats, and the program's output must be what
# it prints unrecorded.
#
# A history lists the instructions of a block by decoding the code in
# memory, and code rewritten in place is gone once it is overwritten.  So
# the program is stopped before each rewrite (put, patch1, patch2)
# and at each stop only what ran since the previous stop is listed, while
# the code that ran is still in memory.  The numbers come from a first
# step recording; every method then lists the same ranges, so any
# difference in what was recorded shows up as a difference.
#
# With --trace-format=pt only the program's output is checked here: the
# stretch's PT is decoded against the ELF file for file-backed text
# (src/decode/image.c), not the patched memory, and the step recorder's
# class cache (src/record/step.c) keeps the old code's classes, so neither
# method lists patched code right in that format yet.
. "$(dirname "$0")/lib.bash"

need_prereqs jit jit-O2

failed=0
for prog in jit jit-O2; do
	P=$TESTPROGS/$prog
	expect=$("$P") || die "$prog does not run on its own"
	grep -q '^jit checksum ' <<<"$expect" || die "$prog printed: $expect"
	stops=('break put' 'break patch1' 'break patch2' 'break _exit')
	nstop=9 # put 6 times, the two patches, _exit

	# The instruction count at each stop, from the step recorder.
	CMDS=('break main' run record 'delete 1' "${stops[@]}")
	for ((i = 0; i < nstop; i++)); do CMDS+=(continue 'info record'); done
	log=$TMPDIR/$prog.counts.log
	ptdbg_batch --method=step -- "$P" >"$log"
	mapfile -t counts < <(sed -n 's/^Recorded \([0-9]*\) instructions .*/\1/p' "$log")
	if [ "${#counts[@]}" != "$nstop" ]; then
		tail -n 20 "$log" >&2
		die "$prog: expected $nstop stops with a recording, got ${#counts[@]}"
	fi
	[ "${counts[$((nstop - 1))]}" -gt 5000 ] || die "$prog: only ${counts[$((nstop - 1))]} instructions"

	for m in step soft; do
		for fmt in blocks pt; do
			CMDS=('break main' run record 'delete 1' "${stops[@]}"
			      'set record instruction-history-size unlimited')
			prev=0
			for ((i = 0; i < nstop; i++)); do
				CMDS+=(continue 'echo HISTORY-LISTING\n'
				       "record instruction-history /f $((prev + 1)),${counts[$i]}")
				prev=${counts[$i]}
			done
			CMDS+=(continue)
			log=$TMPDIR/$prog.$m.$fmt.log
			ptdbg_batch --method=$m --trace-format=$fmt -- "$P" >"$log"
			# Listed instructions as pcs; anything else numbered (a
			# gap) or an error listing is kept, to show in the diff.
			awk '/^HISTORY-LISTING$/ { on = 1; next }
			     on && /^[0-9]+\t/ {
				if (match($0, /0x[0-9a-f]+/)) print substr($0, RSTART, RLENGTH)
				else print "ITEM: " $0
				next }
			     on && /^Cannot|^Breakpoint|^\[Inferior/ { on = 0 }
			     /^Cannot list/ { print "ERROR: " $0 }' "$log" >"$TMPDIR/$prog.$m.$fmt"
			out=$(grep '^jit checksum ' "$log")
			if [ "$out" != "$expect" ]; then
				note "$prog ($m, $fmt): the program printed '$out', unrecorded '$expect'"
				failed=1
			fi
			[ "$fmt" = pt ] && continue
			if grep -q '^ITEM\|^ERROR' "$TMPDIR/$prog.$m.$fmt"; then
				note "$prog ($m, $fmt): gaps or unlistable instructions:"
				grep '^ITEM\|^ERROR' "$TMPDIR/$prog.$m.$fmt" | head -n 5 >&2
				failed=1
			fi
			n=$(wc -l <"$TMPDIR/$prog.$m.$fmt")
			if [ "$n" != "${counts[$((nstop - 1))]}" ]; then
				note "$prog ($m, $fmt): $n instructions listed, step recorded ${counts[$((nstop - 1))]}"
				failed=1
			fi
			if ! cmp -s "$TMPDIR/$prog.step.blocks" "$TMPDIR/$prog.$m.$fmt"; then
				note "$prog ($m, $fmt): differs from step:"
				diff -u "$TMPDIR/$prog.step.blocks" "$TMPDIR/$prog.$m.$fmt" | head -n 20 >&2
				failed=1
			else
				note "ok $prog ($m, $fmt): $n instructions, as step recorded them"
			fi
		done
	done
done
[ "$failed" = 0 ] || die "code written at run time is not recorded as step records it"
