#!/usr/bin/env bash
# Oracle (b): the instruction sequence ptdbg records between two
# breakpoints equals the one gdb 13's `record full` logs over the same
# span (read back with one reverse-stepi per instruction), for programs
# with recursion, loops, indirect calls, jump tables, tail calls and
# longjmp.  Every recording method this ptdbg accepts (other than auto)
# is checked against the same gdb sequence.  Signals: see
# oracle-insn-history-signal.sh.
. "$(dirname "$0")/lib.bash"

need_prereqs fib loops funcptr switch switch-O2 tailcall-O2 longjmp
need_gdb
# program | first breakpoint | second breakpoint | continues to reach it | args
insn_oracle \
	"fib|fib|$(line_of fib.c 'printf(')|1|7" \
	"loops|fill|$(line_of loops.c 'printf(')|1|" \
	"funcptr|run|$(line_of funcptr.c 'printf(')|1|" \
	"switch|main|$(line_of switch.c 'printf(')|1|" \
	"switch-O2|classify|$(line_of switch.c 'printf(')|1|" \
	"tailcall-O2|top|$(line_of tailcall.c 'printf(')|1|" \
	"longjmp|outer|$(line_of longjmp.c 'printf(')|1|" ||
	die "ptdbg's instruction history differs from gdb record full"
