#!/usr/bin/env bash
# Oracle (b): the instruction sequence ptdbg records between two
# breakpoints equals the one gdb 13's `record full` logs over the same
# span (read back with one reverse-stepi per instruction), for programs
# with recursion, loops, indirect calls, jump tables, tail calls, longjmp
# code from a library loaded with dlopen, and signal handlers (from raise(SIGUSR1) past raise(SIGALRM): both
# handlers and their rt_sigreturn; like gdb, the program stops once for
# SIGUSR1, and SIGALRM does not stop by default, so two continues reach
# the second breakpoint).  Every recording method this ptdbg can use is
# checked against the same gdb sequence.
. "$(dirname "$0")/lib.bash"
# The soft recorder misses the second breakpoint on the spans marked
# "step" (a breakpoint on the fall-through or target of a branch it
# emulates); pending/oracle-insn-history-soft.sh runs them all with soft.

need_prereqs fib fib-O2 loops loops-O2 funcptr funcptr-O2 switch switch-O2 tailcall tailcall-O2 \
	longjmp longjmp-O2 signal dlopen abort
need_gdb
# program | first breakpoint | second breakpoint | continues to reach it | args | only
insn_oracle \
	"fib|fib|$(line_of fib.c 'printf(')|1|7" \
	"fib-O2|fib|$(line_of fib.c 'printf(')|1|9" \
	"loops|fill|$(line_of loops.c 'printf(')|1||step" \
	"loops-O2|fill|$(line_of loops.c 'printf(')|1||step" \
	"funcptr|run|$(line_of funcptr.c 'printf(')|1|" \
	"funcptr-O2|run|$(line_of funcptr.c 'printf(')|1|" \
	"switch|main|$(line_of switch.c 'printf(')|1||step" \
	"switch-O2|classify|$(line_of switch.c 'printf(')|1||step" \
	"tailcall|top|$(line_of tailcall.c 'printf(')|1||step" \
	"tailcall-O2|top|$(line_of tailcall.c 'printf(')|1||step" \
	"longjmp|outer|$(line_of longjmp.c 'printf(')|1||step" \
	"longjmp-O2|outer|$(line_of longjmp.c 'printf(')|1||step" \
	"signal|$(line_of signal.c 'raise(SIGUSR1)')|$(line_of signal.c 'printf(')|2||step" \
	"dlopen|$(line_of dlopen.c '*scale = 3;')|$(line_of dlopen.c 'printf("plugin')|1|" \
	"abort|main|$(line_of abort.c 'withdraw(3)')|1||step" ||
	die "ptdbg's instruction history differs from gdb record full"
