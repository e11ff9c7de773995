#!/usr/bin/env bash
# until, advance, jump and starti against gdb 13:
#  - until without argument steps like next but runs a loop to its end
#    (testprogs/loops), until/advance LOCATION stop there or when the frame
#    returns, with gdb's location lines;
#  - in a recursion (testprogs/fib) `until LINE` stops in the same frame and
#    `advance LINE` in the first frame that gets there, also while
#    recording (record full in gdb), and the recorded instruction count
#    equals gdb's;
#  - jump resumes elsewhere (fib's "return n" makes fib(10) return 10), and
#    a breakpoint at the target stops at once (tbreak L; jump L);
#  - until/advance LOCATION in the recorded past (record goto begin)
#    replay forward as gdb's record full does: the same stops in the same
#    frames, a breakpoint on the way, the end of the history;
#  - starti stops at the first instruction with "Program stopped.", and
#    stepi from there moves as gdb's does.
# Frame arguments are compared too; in the past ptdbg's <unavailable>
# (the step recorder keeps no registers there) stands for any of gdb's
# values (past_args).
. "$(dirname "$0")/lib.bash"
need_prereqs fib loops
need_gdb

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^Go backward to insn number' |
		norm_stack
}

compare() {
	local what=$1 prog=$2 pt gd
	ptdbg_batch -- "$TESTPROGS/$prog" | clean >"$TMPDIR/pt"
	[ "${PIPESTATUS[0]}" -le 1 ] || die "ptdbg crashed ($what)"
	gdb_batch -- "$TESTPROGS/$prog" | clean >"$TMPDIR/gd"
	note "ptdbg ($what):"; note "$(cat "$TMPDIR/pt")"
	[ -s "$TMPDIR/pt" ] || die "ptdbg printed nothing for $what"
	past_args "$TMPDIR/gd" "$TMPDIR/pt" || die "$what differs from gdb"
}

ret=$(line_of loops.c 'return odd;'); ret=${ret#loops.c:}
pr=$(line_of loops.c 'printf("odd'); pr=${pr#loops.c:}
# (the last frame is in libc, whose file names another part shows)
CMDS=("break fill" run next next next next next until until until until "until $ret" until
      "advance $pr" "advance nosuch" "until 99" advance)
compare "until and advance in loops" loops

rec=$(line_of fib.c 'return fib(n - 1)'); rec=${rec#fib.c:}
CMDS=("break fib" run delete "until $rec" bt "advance $rec" bt)
compare "until and advance in a recursion" fib
CMDS=("break fib" run "record full" delete "until $rec" bt "advance $rec" bt "info record")
pt=$(ptdbg_batch -- "$TESTPROGS/fib") || die "ptdbg failed: $pt"
gd=$(gdb_batch -- "$TESTPROGS/fib")
note "ptdbg (recorded):"; note "$pt"
diff -u <(echo "$gd" | clean | grep -E '^(#|fib|main)') <(echo "$pt" | clean | grep -E '^(#|fib|main)') >&2 ||
	die "until/advance while recording stop elsewhere than gdb's"
n_gdb=$(echo "$gd" | sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p')
n_pt=$(echo "$pt" | sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p')
[ -n "$n_gdb" ] && [ "$n_gdb" = "$n_pt" ] ||
	die "recorded $n_pt instructions over until/advance, gdb $n_gdb"

# in the recorded past (gdb cannot record fib's printf: stop before it)
ret_n=$(line_of fib.c 'return n;'); ret_n=${ret_n#fib.c:}
pf=$(line_of fib.c 'printf('); pf=${pf#fib.c:}
CMDS=("break fib" run "record full" delete "tbreak $pf" continue "record goto begin"
      "advance $rec" bt "until $ret_n" bt 'p $pc' "record goto begin" "advance $ret_n" bt
      "until $rec" bt "advance $ret_n" bt 'p $pc' "break $ret_n" "advance $pf" bt 'p $pc' delete
      "advance $ret_n" 'p $pc' "record goto begin" "until $pf" 'p $pc'
      "record goto begin" "break $ret_n" "advance $pf" 'p $pc' delete "until $pf" 'p $pc'
      "advance $pf" 'p $pc' "record goto begin" "advance 13" bt
      "record goto begin" "until $pf" "advance $ret_n" 'p $pc')
compare "until and advance in the recorded past" fib
CMDS+=('info record')
out=$(ptdbg_batch -- "$TESTPROGS/fib")
echo "$out" | qgrep -x 'No more reverse-execution history.' || die "advance did not run into the end: $out"
echo "$out" | qgrep '^Replay in progress' && die "advance at the end of the history left it replaying: $out"


CMDS=("break fib" run delete "jump $ret_n")
compare "jump" fib
CMDS=("break fib" run delete "jump $ret_n")
out=$(ptdbg_batch -- "$TESTPROGS/fib")
echo "$out" | qgrep -x 'fib(10) = 10' || die "jump did not resume at 'return n': $out"
CMDS=("break fib" run "tbreak $rec" "jump $rec" bt "info breakpoints" jump "jump nosuch")
compare "jump to a breakpoint" fib

# starti: the first instruction, in the dynamic linker
CMDS=(starti 'p/x $pc' "info sharedlibrary")
pt=$(ptdbg_batch -- "$TESTPROGS/fib") || die "ptdbg failed: $pt"
gd=$(gdb_batch -- "$TESTPROGS/fib")
note "ptdbg (starti):"; note "$pt"
echo "$pt" | sed -n 2p | qgrep -x 'Program stopped.' || die "starti does not say 'Program stopped.'"
[ "$(echo "$pt" | grep '^\$1 = ')" = "$(echo "$gd" | grep '^\$1 = ')" ] ||
	die "starti stops at another pc than gdb"
# and stepi from there runs the first instruction (the program is not
# left inside execve, where a single-step would not move)
CMDS=(starti stepi 'p/x $pc' stepi 'p/x $pc')
pt=$(ptdbg_batch -- "$TESTPROGS/fib" | grep '^\$[0-9]* = ')
gd=$(gdb_batch -- "$TESTPROGS/fib" | grep '^\$[0-9]* = ')
[ -n "$gd" ] && [ "$pt" = "$gd" ] || die "stepi after starti: ptdbg at $pt, gdb at $gd"
exit 0
