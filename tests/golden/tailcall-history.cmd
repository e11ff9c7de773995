# Function-call history across tail calls (tailcall-O2: main calls top,
# which jumps to middle, which jumps to leaf; leaf's ret goes straight
# back to main).  As in gdb's btrace, a function entered by a jump is one
# level deeper than the one that jumped, and the return climbs back to
# main.
program: tailcall-O2
break main
run
record
break tailcall.c:38
continue
set record function-call-history-size unlimited
record function-call-history /ci
record function-call-history /l 1,5
