# Bad input inside a session: each error is one line on stderr (gdb's
# wording) and the session stays usable: the commands after each error
# still work, and the last command's failure sets the exit status.
program: fib 3
info record
reverse-stepi
record
frobnicate
break nosuchfn
break fib
run
reverse-stepi
record goto 5
record instruction-history
record function-call-history
record
record
stepi
record instruction-history abc
record goto 99999
stepi abc
p 1 +
x/2x 0
delete 42
frame 7
info line nosuchfn
record stop
record stop
p 6*7
reverse-finish
