# Replaying forward to the end of the history stops there, as gdb does
# (record full and record btrace alike): "No more reverse-execution
# history." at the position where the recording is live again; only the
# next continue runs the program on.
program: loops
break main
run
record
break loops.c:41
continue
delete
reverse-continue
continue
info record
continue
