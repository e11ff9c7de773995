#!/usr/bin/env bash
# until and advance backward (set exec-direction reverse) and in a
# recording the program no longer runs, against gdb 13 record full:
#  - backward from the end of a live recording and in the recorded past:
#    until LOCATION stops there in the same frame (a recursion's sibling
#    call counts as the same frame, as gdb's frame ids have it), advance in
#    any frame, both at the caller's return address when the code there ran
#    earlier in the caller (a loop), at a breakpoint met first, or at the
#    start of the history; until without argument goes back over the
#    function's lines before the current one and stops in the caller;
#    step/next/finish/stepi/nexti go backward too, reverse-* are refused
#    ("Already in reverse mode"), show exec-direction says which;
#  - forward, until without argument steps into a recursive call (the
#    range is the function's code up to the end of the line, any frame);
#  - in a recording kept after the program exited and in a loaded bundle
#    of it (ptdbg --load): the same stops, both ways, as gdb's replay of
#    the same span (gdb cannot record fib's printf: its history ends
#    before it, and the commands compared stay before it); forward past
#    that, ptdbg's history goes on to the exit, where until/advance end
#    with "No more reverse-execution history.".
# Frame lines are compared without argument values (another part of the
# shell prints them).
. "$(dirname "$0")/lib.bash"
need_prereqs fib loops
need_gdb

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^Go backward to insn number' -e '^Go forward to insn number' |
		sed -E 's/^(Breakpoint [0-9]+, |Temporary breakpoint [0-9]+, |#[0-9]+ +(0x[0-9a-f]+ in )?|0x[0-9a-f]+ in )?([A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1\3 () at /'
}

# compare WHAT PROG: runs CMDS in both, compares from the line "@@" on
# (the whole output when there is none)
compare() {
	local what=$1 prog=$2 pt gd
	pt=$(ptdbg_batch "${PTOPTS[@]}" -- "${PTPROG[@]}" | clean)
	[ $? -le 1 ] || die "ptdbg crashed ($what)"
	gd=$(gdb_batch -- "$TESTPROGS/$prog" | clean)
	if grep -qx '@@' <<<"$gd"; then
		pt=$(sed -n '/^@@$/,$p' <<<"$pt")
		gd=$(sed -n '/^@@$/,$p' <<<"$gd")
	fi
	note "ptdbg ($what):"; note "$pt"
	[ "$(wc -l <<<"$pt")" -gt 4 ] || die "ptdbg printed (almost) nothing for $what"
	diff -u <(echo "$gd") <(echo "$pt") >&2 || die "$what differs from gdb (--- gdb, +++ ptdbg)"
	printf '%s\n' "$pt"
}

# backward from the end of a live recording, in a recursion
PTOPTS=(); PTPROG=("$TESTPROGS/fib")
CMDS=("break fib" run "record full" continue continue continue "set exec-direction reverse"
      "show exec-direction" until 'p $pc' until "advance 14" bt "until 21" "advance main" 'p $pc')
out=$(compare "until and advance backward in a recursion" fib) || exit 1
echo "$out" | qgrep -x 'Reverse.' || die "show exec-direction does not say Reverse.: $out"
echo "$out" | qgrep -x 'No more reverse-execution history.' || die "advance did not run into the start: $out"
CMDS=("break fib" run "record full" continue continue "set exec-direction reverse" delete
      until 'p $pc' until 'p $pc' until 'p $pc' next step finish reverse-next stepi continue
      "set exec-direction forward" "show exec-direction" next 'p $pc')
compare "until without argument backward" fib >/dev/null || exit 1

# a loop: the caller's return address is met again going back
PTPROG=("$TESTPROGS/loops")
CMDS=("break fill" run "record full" "break weigh" c c c c delete next "set exec-direction reverse"
      "until 15" 'p $pc' bt "advance 15" 'p $pc' bt "until 26" 'p $pc' "advance 24" 'p $pc'
      until until until 'p $pc' finish next stepi nexti step reverse-step
      "set exec-direction forward" until until "advance 28" "until 15" 'p $pc')
out=$(compare "until and advance backward in a loop" loops) || exit 1
echo "$out" | qgrep '^fill () at loops.c:28' || die "no stop at the caller's return address: $out"
echo "$out" | qgrep "^Already in reverse mode.  Use 'step' or 'set exec-dir forward'." ||
	die "reverse-step was not refused in reverse mode: $out"

# forward until without argument in a recursion: gdb's range is the
# function's code up to the end of the line in any frame, so it steps into
# fib's recursive calls and stops at the first line past it, in fib(1)
PTPROG=("$TESTPROGS/fib")
CMDS=("break fib" run delete until 'p $pc' until bt until 'p $pc')
out=$(compare "until without argument into a recursion" fib) || exit 1
grep -q '^#9 ' <<<"$out" || die "until did not stop in the innermost fib: $out"

# refusals as gdb's
PTPROG=("$TESTPROGS/fib")
CMDS=("set exec-direction reverse" "set exec-direction foo" "set exec-direction" "break fib" run
      "set exec-direction reverse" until "advance 14")
compare "exec-direction refused without a recording" fib >/dev/null || exit 1

# a kept recording (the program exited) and a bundle of it, against gdb's
# replay of the same span
pf=$(line_of fib.c 'printf('); pf=${pf#fib.c:}
ret=$(line_of fib.c 'return 0;'); ret=${ret#fib.c:}
SPAN=("advance 14" bt "until 13" bt 'p $pc' "set exec-direction reverse" until "advance 12" bt
      "set exec-direction forward" "advance 14" until 'p $pc' bt "until 14" bt
      "set exec-direction reverse" "advance 14" bt until "until 14" 'p $pc' "advance fib" bt)
b=$TMPDIR/bundle
CMDS=("break fib" run "record full" delete continue continue "record save $b" "record goto begin"
      "echo @@\n" "${SPAN[@]}")
gdb_cmds=("break fib" run "record full" delete "tbreak $pf" continue "record goto begin" "echo @@\n"
	  "${SPAN[@]}")
PTOPTS=(); PTPROG=("$TESTPROGS/fib")
pt_cmds=("${CMDS[@]}")
CMDS=("${gdb_cmds[@]}"); g=$(gdb_batch -- "$TESTPROGS/fib")
grep -q 'exited' <<<"$g" && die "gdb's program exited: $g"
kept=$(CMDS=("${pt_cmds[@]}"); ptdbg_batch -- "$TESTPROGS/fib") || die "ptdbg failed: $kept"
grep -q '^The recorded history is kept' <<<"$kept" || die "the recording was not kept: $kept"
[ -d "$b" ] || die "record save wrote no bundle: $kept"
# (the commands before @@ differ between the two: run compare on the span)
cmp_span() {
	local what=$1 pt=$2 gd
	pt=$(clean <<<"$pt" | sed -n '/^@@$/,$p')
	gd=$(clean <<<"$g" | sed -n '/^@@$/,$p')
	note "ptdbg ($what):"; note "$pt"
	[ "$(wc -l <<<"$pt")" -gt 10 ] || die "ptdbg printed (almost) nothing for $what"
	diff -u <(echo "$gd") <(echo "$pt") >&2 || die "$what differs from gdb's replay (--- gdb, +++ ptdbg)"
}
cmp_span "until and advance in a kept recording" "$kept"
CMDS=("record goto begin" "echo @@\n" "${SPAN[@]}")
loaded=$(ptdbg_batch --load "$b") || die "ptdbg --load failed: $loaded"
cmp_span "until and advance in a loaded recording" "$loaded"

# past gdb's end: ptdbg's history goes on to the exit
for how in kept loaded; do
	CMDS=("record goto begin" "advance $ret" "advance $ret" 'p $pc' "advance fib" "echo @@ end\n"
	      "advance fib" "set exec-direction reverse" "advance $pf" 'p $pc' "until")
	if [ $how = kept ]; then
		CMDS=("break fib" run "record full" delete continue continue "${CMDS[@]}")
		out=$(ptdbg_batch -- "$TESTPROGS/fib")
	else
		out=$(ptdbg_batch --load "$b")
	fi
	note "ptdbg ($how, to the exit):"; note "$out"
	grep -Eq "^main \(.*\) at fib.c:$ret" <<<"$out" || die "$how: advance $ret did not get there: $out"
	sed -n '/^@@ end/,$p' <<<"$out" | qgrep '^No more reverse-execution history.' ||
		die "$how: advance to nowhere did not end at the end of the history: $out"
	grep -Eq "^main \(.*\) at fib.c:$pf" <<<"$out" || die "$how: advance $pf backward did not get there: $out"
done
exit 0
