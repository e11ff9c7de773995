#!/usr/bin/env bash
# condition N EXPR and ignore N COUNT against gdb 13, live and in the
# recorded past (record full):
#  - a condition on a register stops only where it holds; a false one is
#    no hit (the count stays), an ignored hit is counted, and `info
#    breakpoints` shows "stop only if" and "ignore next N hits" as gdb;
#  - the error messages for missing or unknown breakpoints are gdb's;
#  - break/tbreak LOCATION if COND set the condition with the breakpoint;
#  - in the replay, reverse-continue passes over ignored hits and a false
#    condition and reaches the start of the history as gdb does.
# Frame arguments are compared too; in the past ptdbg's <unavailable>
# (the step recorder keeps no registers there) stands for any of gdb's
# values (past_args).
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb
prog=$TESTPROGS/fib
l23=$(line_of fib.c 'printf(')
l23=${l23#fib.c:}

# gdb's output without its thread-library chatter, stack addresses, and
# the instruction number `record goto` names (not what is tested here)
clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^Go forward to insn number' |
		norm_stack
}

compare() {
	local what=$1 pt gd
	ptdbg_batch -- "$prog" | clean >"$TMPDIR/pt" || die "ptdbg failed ($what)"
	gdb_batch -- "$prog" | clean >"$TMPDIR/gd"
	note "ptdbg ($what):"; note "$(cat "$TMPDIR/pt")"
	past_args "$TMPDIR/gd" "$TMPDIR/pt" || die "$what differs from gdb"
}

# live: condition and ignore together (fib(3) is reached twice; the
# first of those hits is ignored), then the table after the stop
CMDS=("break fib" 'condition 1 $rdi == 3' "ignore 1 1" "info breakpoints" run
      "info breakpoints" "condition 1" "ignore 1 0" "ignore 1 2" "condition 7 1" "ignore 7 1"
      ignore "ignore 1" condition "condition x" "info breakpoints" 'p $rdi')
compare "live condition and ignore"

# the stop is at the right call: n == 3
CMDS=("break fib" 'condition 1 $rdi == 3' run 'p $rdi')
out=$(ptdbg_batch -- "$prog")
echo "$out" | qgrep -x '\$1 = 3' || die "the conditional breakpoint stopped where the condition is false: $out"

# continue with a false condition runs to the end
CMDS=("break fib" 'condition 1 $rdi == 99' run)
compare "a condition that never holds"

# break/tbreak LOCATION if COND (a malformed condition leaves no
# breakpoint and takes no number), and bt N's "(More stack frames
# follow...)", which gdb -batch leaves out
CMDS=("break fib if n ==" "tbreak fib if n==2" "info breakpoints" run "bt 2" "info breakpoints"
      "break 14 if n == 5" c "info breakpoints")
compare "break LOCATION if COND"
out=$(ptdbg_batch -- "$prog")
echo "$out" | qgrep -x 'Temporary breakpoint 1, fib (n=2) at fib.c:12' || die "tbreak fib if n==2 did not stop at fib(2)"

# in the recorded past
CMDS=("break main" run "record full" "break $l23" c "break fib" "ignore 3 5" reverse-continue
      "info breakpoints" 'condition 3 $pc == 0' reverse-continue "info breakpoints"
      "condition 3" "record goto end" "ignore 3 2" reverse-continue "info breakpoints")
compare "ignore and condition while replaying"
exit 0
