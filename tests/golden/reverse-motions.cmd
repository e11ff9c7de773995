# Reverse execution over loops and calls: record main of loops up to the
# printf, then go backward with reverse-next, reverse-step, reverse-stepi
# and reverse-nexti, reverse-continue to a breakpoint, reverse-finish out
# of it back to the call, reverse-continue to the start of the history,
# then forward again through the replay with next, step and finish (which
# is refused in main, the outermost frame).  Reaching the end of the
# history going forward: golden/pending/replay-end.
program: loops
break main
run
record
break loops.c:41
continue
reverse-next
reverse-next
reverse-step
reverse-stepi
reverse-nexti
break weigh
reverse-continue
reverse-finish
reverse-step
reverse-step
reverse-continue
info breakpoints
delete
reverse-continue
reverse-stepi
next
step
step
finish
next
info record
