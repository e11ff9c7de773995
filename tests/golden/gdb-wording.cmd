# Error wording that differs from gdb 13's: start without a program,
# record without a process, record goto with an expression that is not a
# number (gdb evaluates it).
program:
start
