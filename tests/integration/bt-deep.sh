#!/usr/bin/env bash
# Backtraces of a recursion 2,000 calls deep (issue 14): no frame limit,
# live and in the recorded past, with gdb's `bt N` (the innermost N
# frames), `bt -N` (the outermost N), `frame N` and `finish` from there
# beyond any fixed array,
# compared with gdb 13 (record full for the past).  In the past the frames
# come from the call history (recording from main) and from the stack as
# it was when recording started (recording from the bottom).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/frames.bash"
need_prereqs deep
need_gdb

# live: every frame, the innermost 3, the outermost 3, frame 1999
CMDS=("break leaf" run "echo @@ live\n" bt "echo @@ bt 3\n" "bt 3" "echo @@ bt -3\n" "bt -3"
      "echo @@ frame 1999\n" "frame 1999" "echo @@ up 2\n" "up 2")
compare_frames bt-deep-live deep
n=$(grep -c '^#' "$TMPDIR/bt-deep-live.ptdbg") || die "no frames"
# (2003 in bt, 3 + 3, 1 + 1)
[ "$n" -eq 2011 ] || die "live: $n frame lines, gdb's $(grep -c '^#' "$TMPDIR/bt-deep-live.gdb")"
grep -A1 '^@@ bt -3' "$TMPDIR/bt-deep-live.ptdbg.frames" | qgrep '^2000 ' ||
	die "bt -3 does not start at frame 2000: $(cat "$TMPDIR/bt-deep-live.ptdbg.frames")"

# the past, recorded from main: the frames of the call history
CMDS=("break main" run "record full" "break leaf" continue reverse-stepi "echo @@ past\n" bt
      "echo @@ bt -2\n" "bt -2" reverse-finish "echo @@ reverse-finish\n" "bt 4")
compare_frames bt-deep-past deep
n=$(sed -n '/^@@ past/,/^@@ bt -2/p' "$TMPDIR/bt-deep-past.ptdbg.frames" | grep -c '^[0-9]')
[ "$n" -eq 2003 ] || die "past: $n frames in bt, gdb shows 2003"

# the past, recorded from the bottom: the stack at the start of the
# recording gives the callers, all 2,001 of them
CMDS=("break leaf" run "record full" finish reverse-stepi "echo @@ outer\n" bt)
compare_frames bt-deep-outer deep
n=$(grep -c '^[0-9]' "$TMPDIR/bt-deep-outer.ptdbg.frames")
[ "$n" -eq 2003 ] || die "outer: $n frames in bt, gdb shows 2003"
# finish from frame 1500 (selected past any fixed frame array) returns
# its value, as gdb's
CMDS=("break leaf" run "frame 1500" finish)
g=$(gdb_batch -- "$TESTPROGS/deep" | grep -E '^(Run till exit|Value returned|down )')
p=$(ptdbg_batch -- "$TESTPROGS/deep") || die "ptdbg failed: $p"
p=$(grep -E '^(Run till exit|Value returned|down )' <<<"$p")
[ -n "$g" ] && [ "$g" = "$p" ] || die "finish from frame 1500: gdb '$g', ptdbg '$p'"
qgrep -x 'Value returned is \$1 = 1500' <<<"$p" || die "finish from frame 1500: $p"
exit 0
