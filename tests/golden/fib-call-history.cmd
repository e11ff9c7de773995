# Function-call history of fib(4), recorded from the call in main to the
# line after it: plain, indented by call depth (/c), with source lines (/l)
# and instruction ranges (/i), and paged with the default size of 10.
program: fib 4
break fib.c:22
run
record
delete
break fib.c:23
continue
record function-call-history
record function-call-history -
record function-call-history /c 1,12
record function-call-history /l 1,4
record function-call-history /i 1,4
set record function-call-history-size unlimited
record function-call-history /ilc
