# The demo program: record main up to the crash (a NULL dereference four
# calls deep), show the stack, then step backward out of the crash:
# reverse-next through the list walk, reverse-finish to the call in
# process() and again to parse().  Only reverse-next and reverse-finish are
# used, which step over the C library, so the output does not depend on
# which strchr/strcmp variant the CPU gets or on libc's debug information.
program: segfault
break main
run
record
continue
backtrace
reverse-next
reverse-next
reverse-next
reverse-next
backtrace
reverse-finish
reverse-finish
backtrace
