#!/usr/bin/env bash
# The recording survives the program's exit (issue 14): reverse commands
# work from the end.  gdb 13 record full stops before exit_group ("The
# next instruction is syscall exit_group.  It will make the program exit.
# Do you want to stop the program?", answered yes in batch mode) with the
# syscall as its last recorded instruction; ptdbg lets the program exit
# and keeps the recording, whose last instruction is that syscall.  From
# there the same reverse motions must land in the same frames, and the
# recording must still hold the whole run.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/frames.bash"
need_prereqs fib
need_gdb

at=$(line_of fib.c 'return 0;')
CMDS=("break $at" run "record full" continue "echo @@ at the exit\n" bt)
for m in reverse-stepi reverse-stepi reverse-next reverse-finish reverse-finish; do
	CMDS+=("$m" "echo @@ $m\n" bt)
done
CMDS+=(reverse-continue "echo @@ back at the breakpoint\n" bt)
compare_frames record-exit fib
g=$TMPDIR/record-exit.gdb p=$TMPDIR/record-exit.ptdbg
grep -q '^Process record: inferior program stopped.' "$g" || die "gdb did not stop before exit_group"
grep -q '^\[Inferior 1 (process [0-9]*) exited normally\]' "$p" || die "ptdbg: no exit"
grep -q '^The recorded history is kept' "$p" || die "ptdbg did not keep the recording"
grep -A1 '^@@ back at the breakpoint' "$TMPDIR/record-exit.ptdbg.frames" | grep -qx '0  fib.c:[0-9]*' ||
	die "ptdbg: reverse-continue did not get back to main"

# the same number of instructions: gdb's log (the syscall not executed)
# and ptdbg's history (ending with it)
CMDS=("break $at" run "record full" continue "info record")
gn=$(gdb_batch -- "$TESTPROGS/fib" | sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p')
CMDS=("break $at" run "record" continue "info record")
pn=$(ptdbg_batch -- "$TESTPROGS/fib" | sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p')
[ -n "$gn" ] && [ "$gn" = "$pn" ] || die "instructions recorded up to the exit: gdb ${gn:-none}, ptdbg ${pn:-none}"

# record stop drops the kept recording: no stack any more
CMDS=("break $at" run record continue "record stop" bt "info record")
out=$(ptdbg_batch -- "$TESTPROGS/fib")
echo "$out" | tail -n 2 | head -n 1 | grep -qx 'No stack.' || die "bt after record stop: $out"

# the kept recording is dropped by the next run
CMDS=("break $at" run record continue run "info record")
out=$(ptdbg_batch -- "$TESTPROGS/fib") || die "ptdbg failed: $out"
echo "$out" | tail -n 1 | grep -qx 'No recording is currently active.' ||
	die "the recording outlived the next run: $out"
exit 0
