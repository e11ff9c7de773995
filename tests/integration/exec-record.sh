#!/usr/bin/env bash
# A recording across an exec: every method and trace format must give the
# same history as the step recorder with blocks (the ground truth), in
# count and function by function.  With the trace format pt, the stretch
# that ends with the execve syscall is decoded with the old program's
# image: decoded with the new one it lost the start of the new program
# (ld.so's first ~29,000 instructions) to a "no memory image" gap.
. "$(dirname "$0")/lib.bash"
need_prereqs exec fib

calls_of() { # method format -> function-call history on stdout
	local log=$TMPDIR/exec.$1.$2.log
	"$PTDBG" -batch -ex 'break main' -ex run -ex "record $1 $2" -ex continue -ex 'info record' \
		-ex 'echo CALLS\n' -ex 'record function-call-history /i 1,100000' \
		--args "$TESTPROGS/exec" >"$log" 2>&1 || { tail -n 15 "$log" >&2; return 1; }
	grep -q 'is executing new program: .*/fib$' "$log" || die "$1 $2: no exec announced"
	grep -q '^Breakpoint 1, main (argc=2, argv=0x[0-9a-f]*) at fib.c' "$log" || die "$1 $2: did not stop in the new program"
	grep '^Recorded ' "$log" | sed 's/ for thread .*//'
	sed -n '/^CALLS$/,$p' "$log"
}

calls_of step "" >"$TMPDIR/ref" || die "step recording failed"
grep -q '(0 gaps)' "$TMPDIR/ref" || die "the step recording has gaps"
test "$(grep -c 'inst ' "$TMPDIR/ref")" -ge 1000 || die "short function-call history"
grep -Eq '	(__GI_)?execve	inst ' "$TMPDIR/ref" || die "no execve segment"
grep -q '	_dl_start	inst ' "$TMPDIR/ref" || die "the new program's start is missing"
for mf in "step pt" "soft " "soft pt"; do
	read -r m f <<<"$mf"
	calls_of "$m" "${f:-}" >"$TMPDIR/got" || die "$m ${f:-} recording failed"
	diff -u "$TMPDIR/ref" "$TMPDIR/got" >&2 || die "record $m ${f:-} differs from record step"
done
echo ok
