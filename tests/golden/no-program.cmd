# Commands that need a program, given none.
program:
run
break main
info record
stepi
