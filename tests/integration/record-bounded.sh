#!/usr/bin/env bash
# A bounded recording (set record soft|step buffer-size) drops the oldest
# part of the history and says so: with a 64K bound, fib's history starts
# with a gap numbered 1 that counts the dropped instructions, "info
# record" shows the bound and the count, the kept instructions are exactly
# the newest ones of an unbounded recording of the same run (numbered
# lower by the dropped count, less the gap's number), nothing else is
# lost, and replay goes back to the gap and forward again.  For soft and
# step, with both trace formats.
. "$(dirname "$0")/lib.bash"
need_prereqs fib

stop=$(line_of fib.c 'printf("fib(')

# record METHOD FORMAT BOUND N EXTRA...: records fib N from main to the
# printf under buffer-size BOUND and runs the extra commands.
record() {
	local m=$1 f=$2 bound=$3 n=$4
	shift 4
	local ex=()
	for c in "$@"; do ex+=(-ex "$c"); done
	"$PTDBG" -batch -ex "set record $m buffer-size $bound" -ex 'break main' -ex run \
		-ex "record $m $f" -ex "break $stop" -ex continue -ex 'info record' "${ex[@]}" \
		--args "$TESTPROGS/fib" "$n" 2>&1
}

# The instruction lines of a listing without their numbers.
strip_numbers() { grep -P '^\d+\t +0x' | cut -f2-; }

check() {
	local m=$1 f=$2 n=$3 out full dropped kept total gapline pc3 pc
	out=$(record "$m" "$f" 64K "$n" 'record instruction-history 1,40' 'record goto begin' \
		'reverse-stepi' 'stepi' 'info registers rip') || die "$m $f: ptdbg failed: $out"
	grep -q '^Buffer size: 64kB\.$' <<<"$out" || die "$m $f: info record shows no bound: $out"
	dropped=$(sed -n 's/^The oldest \([0-9]*\) instructions were dropped.*/\1/p' <<<"$out")
	[ -n "$dropped" ] && [ "$dropped" -gt 0 ] || die "$m $f: nothing was dropped with a 64K bound: $out"
	kept=$(sed -n 's/^Recorded \([0-9]*\) instructions in .* (1 gaps).*/\1/p' <<<"$out")
	[ -n "$kept" ] || die "$m $f: no 'Recorded N instructions ... (1 gaps)' line: $out"
	gapline=$(grep -P '^1\t' <<<"$out" | head -n 1)
	[ "$gapline" = "1	[$dropped older instructions dropped: record $m buffer-size 65536 reached]" ] ||
		die "$m $f: the history does not start with the gap: '$gapline'"
	# Replay: back to the start, which is instruction 2 after the gap;
	# there is nothing before the gap; forward to instruction 3.
	grep -q 'No more reverse-execution history\.' <<<"$out" ||
		die "$m $f: reverse-stepi at the start did not stop at the gap: $out"
	pc3=$(grep -P '^3\t +0x' <<<"$out" | grep -oE '0x[0-9a-f]{16}' | head -n 1)
	pc=$(sed -n 's/^rip *\(0x[0-9a-f]*\).*/\1/p' <<<"$out" | tail -n 1)
	[ -n "$pc3" ] && [ $((pc)) -eq $((pc3)) ] ||
		die "$m $f: stepi after the gap is at '$pc', instruction 3 is at '$pc3'"

	# The same run unbounded: the bounded history is its newest part.
	local first=$((dropped + 1)) last=$((dropped + 39))
	full=$(record "$m" "$f" unlimited "$n" "record instruction-history $first,$last") ||
		die "$m $f: unbounded ptdbg failed: $full"
	grep -q '^Buffer size: unlimited\.$' <<<"$full" || die "$m $f: no 'Buffer size: unlimited': $full"
	grep -q 'were dropped' <<<"$full" && die "$m $f: an unbounded recording dropped: $full"
	total=$(sed -n 's/^Recorded \([0-9]*\) instructions in .* (0 gaps).*/\1/p' <<<"$full")
	[ -n "$total" ] || die "$m $f: no 'Recorded N instructions ... (0 gaps)' line: $full"
	[ $((kept + dropped)) -eq "$total" ] ||
		die "$m $f: kept $kept + dropped $dropped != recorded unbounded $total"
	diff -u <(strip_numbers <<<"$full") <(strip_numbers <<<"$out") >&2 ||
		die "$m $f: the kept instructions 2..40 are not the unbounded $first..$last"
	if [ "$m" = soft ]; then
		# soft knows every register where it trapped (a conditional
		# jump or a return) also after the drop: the same as unbounded.
		local k rb ru
		k=$(grep -P '^\d+\t +0x[0-9a-f]+ <[^>]*>:\t(j(?!mp)[a-z]+|ret)\b' <<<"$out" | head -n 1 | cut -f1)
		[ -n "$k" ] || die "$m $f: no conditional jump or return among instructions 2..40"
		rb=$(record "$m" "$f" 64K "$n" "record goto $k" 'info registers rsp rbp' | grep -E '^(rsp|rbp) ')
		ru=$(record "$m" "$f" unlimited "$n" "record goto $((k + dropped - 1))" 'info registers rsp rbp' |
			grep -E '^(rsp|rbp) ')
		grep -q unavailable <<<"$rb" && die "$m $f: registers at trap $k not known after the drop: $rb"
		[ "$(wc -l <<<"$rb")" -eq 2 ] && [ "$rb" = "$ru" ] ||
			die "$m $f: registers at $k are '$rb', unbounded '$ru'"
	fi
	note "ok: $m $f: fib $n: $dropped dropped, $kept kept of $total"
}

check soft pt 20
check soft blocks 20
check step pt 16
check step blocks 18
