#!/usr/bin/env bash
# forward-search (search, fo) and reverse-search (rev): from the first
# line of the last listing or the last match (from the start after a stop
# or a frame shown, as gdb 13), the last expression again without one,
# "Expression not found", a bad expression, list around the match;
# compared line for line with gdb 13 on testprogs/fib.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
need_gdb
CMDS=('search' 'search fib' 'list fib' 'search fib' 'search fib' 'reverse-search include'
	'forward-search nosuch' 'search' 'fo return' 'rev int' 'search [(' 'list' 'break fib' 'run'
	'search fib' 'rev ^int' 'up' 'search printf' 'list fib' 'frame 0' 'search fib' 'search \(')
norm() {
	grep -v -e libthread_db -e '^\[Thread debugging' | normalize | sed 's/argv=0x[0-9a-f]*/argv=A/'
}
ptdbg_batch -- "$TESTPROGS/fib" 3 | norm >"$TMPDIR/ptdbg"
gdb_batch -- "$TESTPROGS/fib" 3 | norm >"$TMPDIR/gdb"
diff -u "$TMPDIR/gdb" "$TMPDIR/ptdbg" >&2 || die "ptdbg differs from gdb (- gdb, + ptdbg)"
qgrep '^14		return fib(n - 1) + fib(n - 2);$' "$TMPDIR/ptdbg" || die "no match at line 14"
qgrep '^Expression not found$' "$TMPDIR/ptdbg" || die "no miss"
note "$(wc -l <"$TMPDIR/ptdbg") lines identical to gdb's"
