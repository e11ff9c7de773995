#!/usr/bin/env bash
# A backtrace in the past reaches main when the recording started deeper
# (issue 14): the call history is joined with the stack as it was when
# recording started.  Recording starts in fib(8) (called from fib(9),
# fib(10), main); forward out of two frames, then back into them and into
# fib(8) again, with bt at each stop, compared with gdb 13 record full.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/frames.bash"
need_prereqs fib
need_gdb

CMDS=("break fib" run continue continue delete "record full" "echo @@ start\n" bt next next
      "echo @@ next\n" bt finish finish "echo @@ finish finish\n" bt)
for i in 1 2 3 4; do CMDS+=(reverse-step "echo @@ reverse-step $i\n" bt); done
# (no reverse-finish inside the recursion: gdb's goes back to the most
# recent entry of fib, whichever call that was; see oracle-reverse-motions)
CMDS+=(reverse-next "echo @@ reverse-next\n" bt "record goto begin" "echo @@ begin\n" bt)
compare_frames past-bt-outer fib
# the frames reach main: fib(8)'s callers fib(9), fib(10) and main
grep -A4 '^@@ begin' "$TMPDIR/past-bt-outer.ptdbg.frames" | qgrep '^3 0x[0-9a-f]* *fib.c:' ||
	die "bt at the start of the history does not reach main: $(cat "$TMPDIR/past-bt-outer.ptdbg.frames")"
exit 0
