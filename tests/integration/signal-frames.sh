#!/usr/bin/env bash
# A signal handler's backtrace goes through gdb's "<signal handler
# called>" frame to the frame the signal interrupted, shown at the pc it
# resumes at (looked up there, not at pc - 1 as a caller's return address
# is), live and in the recorded past; compared with gdb 13 record full on
# testprogs/sigframe (SIGUSR1 sent by an inline tgkill in deliver()).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/frames.bash"
need_prereqs sigframe
need_gdb

CMDS=("break deliver" run "record full" "break handler" continue continue "echo @@ live\n" bt
      stepi stepi reverse-stepi "echo @@ past\n" bt reverse-stepi "echo @@ handler entry\n" bt
      reverse-stepi "echo @@ before the signal\n" bt)
KEEP_NAMES=1 compare_frames signal-frames sigframe
grep -A2 '^@@ past' "$TMPDIR/signal-frames.ptdbg" | qgrep '^#1  <signal handler called>$' ||
	die "no signal trampoline frame in the past: $(cat "$TMPDIR/signal-frames.ptdbg")"
exit 0
