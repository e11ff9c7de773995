#!/usr/bin/env bash
# Oracle (b) across signal delivery: from raise(SIGUSR1) to the printf
# after raise(SIGALRM), through both handlers and their rt_sigreturn.  Like
# gdb, the program stops once for SIGUSR1 (SIGALRM does not stop by
# default), so two continues reach the second breakpoint; the handler
# code and the return into pthread_kill must be in the history exactly
# as gdb record full logs them.
. "$(dirname "$0")/$( [ -f "$(dirname "$0")/lib.bash" ] && echo . || echo ..)/lib.bash"

need_prereqs signal
need_gdb
insn_oracle \
	"signal|$(line_of signal.c 'raise(SIGUSR1)')|$(line_of signal.c 'printf(')|2|" ||
	die "ptdbg's instruction history differs from gdb record full"
