# Replaying forward to the end of the history while the program is live
# stops there as gdb's record full does ("No more reverse-execution
# history." and the frame line), also when the end is at a breakpoint
# that was deleted meanwhile; the next continue runs live, recording on.
# Back to the start of the history, then continue replays it to its end,
# and the next one runs the program to the exit_group syscall, where it
# stops as under gdb's record full, with nothing lost or repeated on the
# way (info record); continuing from there lets it exit and the recording
# is kept after the exit (info record).
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
continue
info record
