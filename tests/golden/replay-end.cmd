# Replaying forward to the end of the history while the program is live
# goes on live without a stop: the recorder simply records on (gdb's
# record full stops there with "No more reverse-execution history.";
# ptdbg's choice, in ptd_session_motion and man/ptdbg.1).  Back to the
# start of the history, then continue replays it and runs the program to
# the exit_group syscall, where it stops as under gdb's record full, with
# nothing lost or repeated on the way (info record); continuing from there
# lets it exit and the recording is kept after the exit (info record).
program: loops
break main
run
record
break loops.c:41
continue
delete
reverse-continue
info record
continue
info record
continue
info record
