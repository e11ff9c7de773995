#!/usr/bin/env bash
# gdb's skip list: skip function/file/NAME/-gfi/-rfu/-fi -fu, the current
# function and file, info skip (with numbers), skip enable/disable/delete
# (ranges), their errors; and what it does: step, live and in a
# recording, forward and reverse, steps over a skipped function instead
# of stopping in it.  Compared line for line with gdb 13 on testprogs/fib
# (arguments the recorder does not know in the past are masked: gdb's
# record full knows them).
. "$(dirname "$0")/lib.bash"

need_prereqs fib loops
need_gdb
norm() {
	grep -v -e libthread_db -e '^\[Thread debugging' | normalize |
		sed -e 's/argv=0x[0-9a-f]*/argv=ARGV/' -e 's/=<unavailable>/=V/g' -e 's/(\(n\|argc\|v\|rows\)=[0-9][0-9]*/(\1=V/g' -e 's/, cols=[0-9][0-9]*/, cols=V/g' \
			-e 's/argv=ARGV/argv=V/'
}
compare() { compare_gdb "$@"; }

# 1. the list itself
CMDS=('info skip' 'skip function fib' 'skip -gfi f*.c' 'skip -rfu ^ma' 'skip file nosuch.c'
	'skip -fi fib.c -fu fib' 'info skip' 'skip disable 1' 'info skip 1' 'info skip 2-3'
	'skip delete 2-3' 'info skip' 'skip enable' 'skip foo' 'skip -fi' 'skip -zz x'
	'skip delete 9' 'info skip 9' 'skip' 'skip file' 'break main' 'run' 'skip' 'skip file'
	'skip function' 'info skip' 'skip delete' 'info skip')
compare list "$TESTPROGS/fib" 3
qgrep '^Function(s) \^ma will be skipped when stepping\.$' "$TMPDIR/list.ptdbg" || die "list: no regex entry"

# 2. live: step over a skipped function, into one that is not
CMDS=('break main' 'run' 'skip function fib' 'next' 'step' 'step' 'run' 'next' 'skip delete 1'
	'step' 'step' 'skip -gfi *.c' 'finish' 'run' 'next' 'step' 'step')
compare live "$TESTPROGS/fib" 3
qgrep '^fib (n=V) at fib.c:12$' "$TMPDIR/live.ptdbg" || die "live: never stepped into fib"

# 3. recorded: forward and reverse, skipped and not (weigh: not
#    recursive; in a recursion gdb's reverse-step over a skipped function
#    stops at the first entry of it back, a quirk not mirrored)
CMDS=('break fill' 'run' 'record full' 'advance 28' 'skip weigh' 'step' 'reverse-step'
	'reverse-step' 'skip disable' 'step' 'step' 'reverse-step' 'reverse-step' 'skip enable'
	'step' 'reverse-step' 'info skip')
compare past "$TESTPROGS/loops"
qgrep '^weigh (v=V) at loops.c:' "$TMPDIR/past.ptdbg" || die "past: never stepped into weigh"
