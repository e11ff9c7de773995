# finish prints gdb's "Value returned is $N = V" for an int result,
# live and while recording (with the soft recorder, the default here).
program: fib 4
options: --method=soft
break fib
run
delete
finish
break fib
run
delete
record
finish
info record
