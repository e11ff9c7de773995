#!/usr/bin/env bash
# dprintf LOCATION,"FORMAT",EXPR...: set (its "Dprintf N at" line), hit
# (prints and goes on, also inside a next), listed in info breakpoints
# (type dprintf, hit count, its printf line), its errors, with condition
# and ignore, at an address where a breakpoint stops too, and saved by
# save breakpoints; compared line for line with gdb 13 on testprogs/fib.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
need_gdb
CMDS=('dprintf fib,"n=%d\n",n' 'info breakpoints' 'break main' 'run' 'next' 'next' 'continue'
	'info breakpoints' 'dprintf' 'dprintf fib' 'dprintf fib,' 'dprintf fib,x' 'dprintf fib,"x"'
	'dprintf 12,"line %d\n", n' 'tbreak fib' 'delete 1' 'run' 'info breakpoints'
	"save breakpoints $TMPDIR/saved" "shell cat $TMPDIR/saved" 'condition 4 n == 1'
	'ignore 3 2' 'continue' 'delete 5' 'continue' 'info breakpoints')
norm() {
	grep -v -e libthread_db -e '^\[Thread debugging' | normalize |
		sed 's/argv=0x[0-9a-f]*/argv=ARGV/'
}
ptdbg_batch -- "$TESTPROGS/fib" 3 | norm >"$TMPDIR/ptdbg"
gdb_batch -- "$TESTPROGS/fib" 3 | norm >"$TMPDIR/gdb"
diff -u "$TMPDIR/gdb" "$TMPDIR/ptdbg" >&2 || die "ptdbg differs from gdb (- gdb, + ptdbg)"
qgrep '^n=1$' "$TMPDIR/ptdbg" || die "no dprintf output"
qgrep 'xline 1$' "$TMPDIR/ptdbg" || die "no output of the conditional dprintf"
qgrep '^        printf "n=%d\\n",n$' "$TMPDIR/ptdbg" || die "no printf line in info breakpoints"
note "$(wc -l <"$TMPDIR/ptdbg") lines identical to gdb's"
