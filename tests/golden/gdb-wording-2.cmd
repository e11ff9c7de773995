# stepi with a bad count and record without a process, and record goto
# with an expression that is not a number (gdb evaluates it), in gdb 13's
# words.
program: fib
stepi abc
record
break fib
run
record
record goto xyz
