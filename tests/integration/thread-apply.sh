#!/usr/bin/env bash
# `thread apply` as gdb 13 does it: `all` (newest thread first, or
# -ascending), ID lists and ranges in the order given (a warning for an ID
# that matches no thread), -q (no header), -c (go on after an error), -s
# (no error, no header without output), gdb's errors for missing lists or
# commands, and the thread and frame selected before are selected again.
# Also: a thread's stop line names it ("Thread 1 ... hit Breakpoint") once
# the program has a second thread.  testprogs/threadpark stops in parked()
# with its three threads alive in a known numbering; only per-thread output
# that does not depend on where the workers are is compared.  The target
# IDs differ by design (gdb reads libthread_db: "Thread 0x... (LWP n)";
# ptdbg shows "LWP n", as its info threads does), so both become ID.
. "$(dirname "$0")/lib.bash"
need_prereqs threadpark
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[New Thread' -e '^\[Inferior 1 ' |
		sed -e 's/^\(Thread [0-9]*\) (.*):$/\1 (ID):/' \
		    -e 's/^\[Current thread is \([0-9]*\) (.*)\]$/[Current thread is \1 (ID)]/' \
		    -e 's/0x7ff[0-9a-f]*/STACK/g'
}

CMDS=('break parked' run 'thread apply all -q p 40+2' 'thread apply 1 bt'
	'thread apply 2-3 -q p 1' 'thread apply 9 p 1' 'thread apply 1 9 p 7'
	'thread apply all' 'thread apply' 'thread apply 1' 'thread apply 0 p 1'
	'thread apply x p 1' 'thread apply 3-2 p 1' 'thread apply 1 nosuch'
	'thread apply all -c nosuch' 'thread apply all -s nosuch' 'thread'
	'thread apply all -ascending -q p 5' 'frame 1' 'thread apply 2 -q p 8' 'frame'
	'thread apply 1 frame' 'thread apply all -s p 3' 'thread apply 3 2 -q p $_'
	'info frame' 'thread apply all -q -s -c p 1' 'thread apply 1 -s -c p 1'
	'thread apply all -q -z p 1' 'thread apply 1 -- p 4')
ptdbg_batch -- "$TESTPROGS/threadpark" | norm >"$TMPDIR/ptdbg.out"
gdb_batch -- "$TESTPROGS/threadpark" | norm >"$TMPDIR/gdb.out"
if ! diff -u "$TMPDIR/gdb.out" "$TMPDIR/ptdbg.out" >&2; then
	die "thread apply differs from gdb (- gdb, + ptdbg)"
fi
# the comparison saw what it is about
for want in '^Thread 1 "threadpark" hit Breakpoint 1, parked' '^Thread 3 (ID):$' \
	'^Thread 2 (ID):$' 'warning: Unknown thread 9' '^\$13 = 3$'; do
	qgrep "$want" "$TMPDIR/ptdbg.out" || die "no line matching $want"
done
note "$(wc -l <"$TMPDIR/ptdbg.out") lines identical to gdb's"
exit 0
