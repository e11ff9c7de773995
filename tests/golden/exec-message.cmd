# An exec is announced as gdb does ("process N is executing new program:
# PATH") before the breakpoint in the new image is hit.
program: exec
break main
run
continue
continue
