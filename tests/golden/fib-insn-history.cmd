# Instruction history listings of fib(2): the last ten, paging backward,
# explicit ranges (N,M  N,+M  N,-M), raw bytes (/r), source (/m), without
# function names (/f), and the => marker at the replay position.
program: fib 2
break fib.c:22
run
record
delete
break fib.c:23
continue
record instruction-history
record instruction-history -
record instruction-history 1,5
record instruction-history 10,+3
record instruction-history 20,-3
record instruction-history /r 1,3
record instruction-history /f 4,6
record instruction-history /m 1,8
record goto 12
record instruction-history 10,14
record instruction-history /p 10,14
