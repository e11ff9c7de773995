#!/usr/bin/env bash
# Breakpoints met while replaying, against gdb 13's record full:
#  - a temporary breakpoint (tbreak) hit in the replay is deleted at that
#    first hit, as gdb does: `info breakpoints` afterwards is gdb's table,
#    and the next reverse-continue reaches the start of the history
#    instead of stopping at it again;
#  - `continue` from the past to a breakpoint at the end of the history
#    stops there as gdb's record full does: "No more reverse-execution
#    history." and the frame line, the breakpoint not named and its hit
#    not counted (the replay reached the end before the breakpoint was
#    checked); the next `continue` runs live.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

l23=$(line_of fib.c 'printf(')
l23=${l23#fib.c:}
prog=$TESTPROGS/fib

# only the lines of `info breakpoints` tables (the row and hit lines)
bptable() { grep -E '^(Num |[0-9]+ +(breakpoint|hw)|	breakpoint already hit)'; }

CMDS=("break main" run record "break $l23" c "tbreak fib" reverse-continue
      "info breakpoints" reverse-continue)
pt=$(ptdbg_batch -- "$prog") || die "ptdbg failed: $pt"
CMDS=("break main" run "record full" "break $l23" c "tbreak fib" reverse-continue
      "info breakpoints" reverse-continue)
gd=$(gdb_batch -- "$prog")
note "ptdbg:"; note "$pt"
echo "$gd" | qgrep '^Temporary breakpoint 3, fib ' || die "gdb did not stop at the tbreak: $gd"
echo "$pt" | qgrep '^Temporary breakpoint 3, fib ' || die "ptdbg did not stop at the tbreak"
diff -u <(echo "$gd" | bptable) <(echo "$pt" | bptable) >&2 ||
	die "info breakpoints after a tbreak hit in the replay differs from gdb"
[ "$(echo "$pt" | grep -c '^Temporary breakpoint 3, ')" = 1 ] ||
	die "the temporary breakpoint fired again after its first hit"
[ "$(echo "$gd" | grep -c '^No more reverse-execution history.')" = 1 ] ||
	die "gdb did not reach the start of the history: $gd"
[ "$(echo "$pt" | grep -c '^No more reverse-execution history.')" = 1 ] ||
	die "ptdbg did not reach the start of the history after the tbreak was deleted"

# continue from the past to the breakpoint at the end of the history
CMDS=("break main" run record "break $l23" c reverse-continue c "info breakpoints")
pt=$(ptdbg_batch -- "$prog") || die "ptdbg failed: $pt"
CMDS=("break main" run "record full" "break $l23" c reverse-continue c "info breakpoints")
gd=$(gdb_batch -- "$prog")
note "ptdbg:"; note "$pt"
# from the second "No more..." (the first is reverse-continue's, at the start)
tail_of() { awk '/^No more reverse-execution history./ { n++ } n >= 2' | norm_stack; }
[ -n "$(echo "$gd" | tail_of)" ] || die "gdb did not stop at the end of the history: $gd"
diff -u <(echo "$gd" | tail_of) <(echo "$pt" | tail_of) >&2 ||
	die "continue to the breakpoint at the end of the history differs from gdb"
echo "$pt" | tail_of | qgrep -x "main (argc=1, argv=0xSTACK) at fib.c:$l23" ||
	die "no frame line at the end of the history"
echo "$pt" | bptable | qgrep 'already hit 2 times' &&
	die "the stop at the end of the history counted a breakpoint hit"
exit 0
