#!/usr/bin/env bash
# Oracle (a): fib(n) calls fib exactly 2*F(n+1)-1 times (F(1) = F(2) = 1),
# a count that follows from the program text alone.  Recording from the
# call in main to the line after it, ptdbg's function-call history must
# contain that many segments of fib entered by a call (one level deeper
# than the segment before), and its instruction history that many calls
# to fib.  The expected value is computed here, not taken from ptdbg.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
call_line=$(line_of fib.c 'r = fib(n);')
after_line=$(line_of fib.c 'printf(')

expected_calls() {
	local n=$1 a=0 b=1 i t
	# After the loop a = F(n+1).
	for ((i = 0; i < n + 1; i++)); do t=$((a + b)); a=$b; b=$t; done
	echo $((2 * a - 1))
}

# Sanity of the formula itself on small n (fib(0) and fib(1) are one call,
# fib(2) three, fib(5) fifteen).
[ "$(expected_calls 0)" = 1 ] && [ "$(expected_calls 1)" = 1 ] &&
	[ "$(expected_calls 2)" = 3 ] && [ "$(expected_calls 5)" = 15 ] ||
	die "expected_calls is wrong"

check() {
	local m=$1 n=$2 want got_seg got_insn log
	want=$(expected_calls "$n")
	log=$TMPDIR/fib-$m-$n.log
	CMDS=("break $call_line" run record delete "break $after_line" continue
	      'set record function-call-history-size unlimited'
	      'set record instruction-history-size unlimited'
	      'echo CALLS\n' 'record function-call-history /c'
	      'echo INSNS\n' 'record instruction-history')
	ptdbg_batch --method="$m" -- "$TESTPROGS/fib" "$n" >"$log"
	# /c indents each segment by two spaces per call level after the
	# tab; a fib segment one level deeper than its predecessor was
	# entered by a call (returns go up, the first segment is main).
	got_seg=$(sed -n '/^CALLS$/,/^INSNS$/p' "$log" | awk -F'\t' '
		/^[0-9]+\t/ {
			match($2, /^ */); d = RLENGTH; name = substr($2, d + 1)
			if (seen && d > prev && name == "fib") c++
			prev = d; seen = 1
		}
		END { print c + 0 }')
	got_insn=$(sed -n '/^INSNS$/,$p' "$log" | grep -cE $'^[0-9]+\t.*\tcall +0x[0-9a-f]+ <fib>$')
	if [ "$got_seg" != "$want" ] || [ "$got_insn" != "$want" ]; then
		sed -n '1,30p' "$log" >&2
		die "fib($n) ($m): expected $want calls, function-call history shows $got_seg, instruction history $got_insn"
	fi
	note "ok fib($n) ($m): $want calls"
}

methods=$(ptdbg_methods) || exit 1 # step and soft must be among them
for m in $methods; do
	for n in 0 1 2 5 10 12; do
		check "$m" "$n"
	done
done
