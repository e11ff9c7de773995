#!/usr/bin/env bash
# PLT frames in a backtrace in the past get their own name (issue 14): a
# frame reached by a jump was looked up at pc-1, which names the PLT entry
# before it (printf@plt, the first entry, became ??; snprintf@plt became
# pclose@plt).  Now a function reached through the PLT replaces the stub's
# frame, and the stub, when it is the innermost frame, is looked up at its
# pc.  Compared with gdb 13 record full on testprogs/fib's printf call,
# bound at load (LD_BIND_NOW=1: printf@plt jumps straight to printf) and
# lazily (through PLT0 and the dynamic linker's resolver).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/frames.bash"
need_prereqs fib
need_gdb

at=$(line_of fib.c 'printf(')
CMDS=("break $at" run "record full" "break printf" continue stepi stepi reverse-stepi
      reverse-stepi "echo @@ printf in the past\n" bt reverse-stepi "echo @@ before printf\n" bt
      "frame 1" reverse-stepi "echo @@ in main\n" bt)
LD_BIND_NOW=1 compare_frames plt-bound fib
# lazily bound: the resolver jumps to printf; PLT0 and the stub before it
CMDS=("break $at" run "record full" "break printf" continue stepi stepi reverse-stepi
      reverse-stepi "echo @@ printf in the past\n" bt reverse-stepi "echo @@ resolver\n" bt)
compare_frames plt-lazy fib
exit 0
