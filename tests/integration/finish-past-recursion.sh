#!/usr/bin/env bash
# `finish` in the past finishes the frame selected there, also when the
# history ends deeper in a recursion.  break fib, run, record, c, c,
# delete, reverse-finish, reverse-finish: back in fib(10), whose caller is
# main, while the history ends at fib(8)'s entry.  gdb 13 record full's
# `finish` then stops at the end of the history ("No more
# reverse-execution history.", frame fib(8)), not at fib(8)'s return into
# fib(9) with 21 inside the history nor live; the next `finish` runs live
# from there and returns from fib(8) into fib(9) with 21.  ptdbg's output
# from the end of the history on must be gdb's.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

prog=$TESTPROGS/fib
CMDS=("break fib" run "record full" c c delete reverse-finish reverse-finish bt finish bt finish)
gr=$(gdb_batch -- "$prog")
# gdb's frame after the two reverse-finishes: fib called from main
echo "$gr" | qgrep '^#1  0x[0-9a-f]* in main ' || die "gdb is not in fib(10) called from main: $gr"
CMDS=("break fib" run record c c delete reverse-finish reverse-finish bt finish bt finish)
pt=$(ptdbg_batch -- "$prog") || die "ptdbg failed: $pt"
note "ptdbg:"; note "$pt"
echo "$pt" | qgrep '^#1  0x[0-9a-f]* in main ' || die "ptdbg is not in fib(10) called from main"
from_end() { sed -n '/^No more reverse-execution history./,$p' | grep -v '^Run till exit' | norm_stack; }
[ -n "$(echo "$gr" | from_end)" ] || die "gdb's finish did not reach the end of the history: $gr"
diff -u <(echo "$gr" | from_end) <(echo "$pt" | from_end) >&2 ||
	die "finish from fib(10) in the past differs from gdb's (from the end of the history on)"
echo "$pt" | from_end | qgrep -x 'Value returned is \$1 = 21' ||
	die "the live finish after the end of the history did not return fib(8)'s 21"
exit 0
