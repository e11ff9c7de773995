#!/usr/bin/env bash
# A call through a null function pointer (testprogs/rpt_recurse): the
# program stops at pc 0, where no code and no unwind information is.  The
# return address is at the sp and nothing else has moved, so bt shows
# every caller with its arguments, as gdb does; libunwind's frame-pointer
# fallback used to skip one (descend (n=4) was missing).  `info frame` and
# `up` there agree with gdb too.
. "$(dirname "$0")/lib.bash"
need_prereqs rpt_recurse
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g'
}
CMDS=(run bt 'bt 3' up 'info frame' 'p n' up 'p n' 'frame 5' 'p n')
ptdbg_batch -- "$TESTPROGS/rpt_recurse" | norm >"$TMPDIR/p.out"
gdb_batch -- "$TESTPROGS/rpt_recurse" | norm >"$TMPDIR/g.out"
diff -u "$TMPDIR/g.out" "$TMPDIR/p.out" >&2 || die "backtrace from a wild call differs from gdb (- gdb, + ptdbg)"
qgrep '^#5  0x[0-9a-f]* in descend (n=4) at rpt_recurse\.c:31$' "$TMPDIR/p.out" || die "descend (n=4) is missing"
exit 0
