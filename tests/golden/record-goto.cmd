# record goto begin/end/N and what can be examined while replaying: the
# frame printed by each goto, info record's replay position, a backtrace
# rebuilt from the call history, and registers (only rip is known in the
# past).
program: fib 3
break fib.c:22
run
record
delete
break fib.c:23
continue
record goto begin
info record
record goto 30
record instruction-history 29,31
backtrace
info registers rip
info registers rax
record goto end
info record
record goto 0
