#!/usr/bin/env bash
# dlopen and dlclose in a loop while recording (testprogs/dlloop): the
# plugin's code is mapped, run and unmapped again and again, mostly at the
# same address, so a recorder that trusts what it learnt of the old
# mapping misses branches of the new one.  soft in both trace formats must
# record exactly what step records, function by function, and the program
# must print the right sum.
. "$(dirname "$0")/lib.bash"
need_prereqs dlloop

line=$(line_of dlloop.c 'printf("dlloop')
calls_of() { # method format -> info record and the call history on stdout
	local log=$TMPDIR/dl.$1.${2:-blocks}.log
	"$PTDBG" -batch -ex 'break main' -ex run -ex "record $1 $2" -ex "break $line" \
		-ex continue -ex 'info record' -ex 'echo CALLS\n' \
		-ex 'record function-call-history /i 1,10000000' -ex continue \
		--args "$TESTPROGS/dlloop" 12 >"$log" 2>&1 || { tail -n 15 "$log" >&2; return 1; }
	grep -qx 'dlloop n=12 sum=730' "$log" || { tail -n 5 "$log" >&2; die "$1 $2: wrong output"; }
	grep '^Recorded ' "$log" | sed 's/ for thread .*//'
	sed -n '/^CALLS$/,$p' "$log" | grep -v -e 'exited normally' -e '^dlloop n='
}

calls_of step "" >"$TMPDIR/ref" || die "step recording failed"
grep -q '(0 gaps)' "$TMPDIR/ref" || die "the step recording has gaps"
# plugin_compute, called from main, is a leaf; its library is gone when the
# history is listed, so it has no name there ("??" between two main).
n=$(awk -F'\t' '$2 == "??" && prev == "main" { cand = 1; prev = $2; next }
	cand && $2 == "main" { n++ } { cand = 0; prev = $2 } END { print n + 0 }' "$TMPDIR/ref")
[ "$n" = 12 ] || die "$n of the 12 calls into the plugin are in the history"
for f in "" pt; do
	calls_of soft "$f" >"$TMPDIR/got" || die "soft $f recording failed"
	diff -u "$TMPDIR/ref" "$TMPDIR/got" >&2 || die "record soft $f differs from record step"
done
echo ok
