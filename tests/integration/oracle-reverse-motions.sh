#!/usr/bin/env bash
# Oracle (c): reverse-step, reverse-next and reverse-finish (and forward
# step/next/finish through the replay afterwards) land on the same pc and
# source line in ptdbg as in gdb 13's record full, over scripted command
# sequences on -O0 programs: recursion, loops with calls, indirect calls,
# a jump table, longjmp.  Where gdb says "No more reverse-execution history." ptdbg
# must say it too.
#
# reverse-finish inside a recursive function goes back, as gdb's does, to
# the most recent entry of the function, whichever call that was (its
# step-resume breakpoint at the entry has no frame), then onto its call:
# stub-reverse-motions.sh compares that in fib.  Forward
# motions stay inside the history (at its end gdb stops while ptdbg goes
# on live: tests/golden/pending/replay-end).
. "$(dirname "$0")/lib.bash"
# The soft recorder misses the second breakpoint on the spans run with
# ONLY=step; pending/oracle-reverse-motions-soft.sh runs them all with soft.

need_prereqs fib loops funcptr switch longjmp
need_gdb
rep() { local i out=""; for ((i = 0; i < $2; i++)); do out+="$1;"; done; printf '%s' "$out"; }

failed=0
motion_oracle fib "$(line_of fib.c 'r = fib(n);')" "$(line_of fib.c 'printf(')" \
	"$(rep reverse-step 14)$(rep reverse-next 6)$(rep step 5)finish;$(rep next 2)$(rep reverse-step 3)$(rep reverse-next 12)" 4 || failed=1
motion_oracle loops fill "$(line_of loops.c 'int sum = 0;')" \
	"$(rep reverse-step 4)reverse-finish;$(rep reverse-step 5)$(rep reverse-next 9)$(rep reverse-step 9)$(rep next 3)step;step;finish;$(rep reverse-step 5)reverse-finish;reverse-finish" || failed=1
motion_oracle funcptr main "$(line_of funcptr.c 'printf(')" \
	"$(rep reverse-step 16)reverse-finish;reverse-finish;$(rep reverse-next 5)$(rep step 6)$(rep reverse-next 12)" || failed=1
ONLY=step motion_oracle switch main "$(line_of switch.c 'printf(')" \
	"$(rep reverse-step 3)reverse-finish;$(rep reverse-step 6)reverse-finish;$(rep reverse-next 8)$(rep reverse-step 5)$(rep next 4)" || failed=1
ONLY=step motion_oracle longjmp main "$(line_of longjmp.c 'printf(')" \
	"$(rep reverse-step 12)$(rep reverse-next 4)$(rep step 6)reverse-finish;$(rep reverse-next 3)" || failed=1
[ "$failed" = 0 ] || die "reverse motions differ from gdb record full"
