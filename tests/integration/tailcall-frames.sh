#!/usr/bin/env bash
# gdb's tail call frames in bt (issue 14): at -O2, top jumps to middle and
# middle to leaf; gdb shows the jumpers as frames of their own from the
# DWARF call sites (DW_AT_call_tail_call), between leaf and main, live and
# in record full's past (where the history has the jumps, the frames are
# the same).  And in libc: abort's raise reaches __pthread_kill_
# implementation through pthread_kill's tail call, a frame gdb names by
# the function inlined there.  Compared with gdb 13, names kept.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/frames.bash"
need_prereqs tailcall-O2 abort
need_gdb
export KEEP_NAMES=1

CMDS=("break main" run "record full" "break leaf" continue "echo @@ live\n" bt
      reverse-stepi "echo @@ reverse-stepi\n" bt reverse-stepi "echo @@ reverse-stepi 2\n" bt
      stepi stepi "echo @@ stepi 2\n" bt "record goto begin" "echo @@ begin\n" bt)
compare_frames tailcall-frames tailcall-O2
# (the tail call frames are there: middle and top between leaf and main)
grep -A4 '^@@ live' "$TMPDIR/tailcall-frames.ptdbg.frames" | tr '\n' ' ' |
	qgrep -E '^@@ live 0 +tailcall.c:[0-9]+ leaf 1 0x[0-9a-f]+ +tailcall.c:[0-9]+ middle 2 0x[0-9a-f]+ +tailcall.c:[0-9]+ top 3 ' ||
	die "no tail call frames: $(cat "$TMPDIR/tailcall-frames.ptdbg.frames")"

CMDS=(run "echo @@ SIGABRT\n" bt)
compare_frames tailcall-abort abort
grep -A2 '^@@ SIGABRT' "$TMPDIR/tailcall-abort.ptdbg.frames" | qgrep -E '^1 0x[0-9a-f]+ .*__pthread_kill_internal$' ||
	die "no tail call frame in pthread_kill: $(cat "$TMPDIR/tailcall-abort.ptdbg.frames")"
exit 0
