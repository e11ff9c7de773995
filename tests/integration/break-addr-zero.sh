#!/usr/bin/env bash
# `break *0` as gdb 13 does it: set at 0x0 (not "pending"), shown with its
# address in `info breakpoints`, and when the program is to resume (run,
# continue) gdb's warning "Cannot insert breakpoint 1. Cannot access
# memory at address 0x0" with the program left where it is; once deleted
# the program runs.  The whole output is compared with gdb's.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

prog=$TESTPROGS/fib
CMDS=("break *0" "info breakpoints" run "info breakpoints" continue "delete 1" continue)
pt=$(ptdbg_batch -- "$prog" | normalize)
gd=$(gdb_batch -- "$prog" | normalize | grep -v -e '^\[Thread debugging' -e '^Using host libthread_db')
note "ptdbg:"; note "$pt"
echo "$gd" | qgrep '^Cannot insert breakpoint 1\.' || die "gdb did not refuse to insert: $gd"
diff -u <(echo "$gd") <(echo "$pt") >&2 || die "break *0 differs from gdb"
exit 0
