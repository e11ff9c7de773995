#!/usr/bin/env bash
# pipe [COMMAND] | SHELL_COMMAND, its alias |, pipe -d DELIM, its errors,
# $_shell_exitcode after pipe and shell, a command whose output is cut
# short (head: ptdbg goes on), and, typed, a pipe without COMMAND running
# the line before again (which stays the line before, also for a pipe in
# a row).  Compared line for line with gdb 13 on testprogs/fib.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
need_gdb
CMDS=('pipe p 1 | cat' '| p 2 | tr 2 X' 'pipe -d XX p 3|4 XX cat' 'pipe p 5' 'pipe' '|'
	'pipe p 6 |' 'p $_shell_exitcode' 'pipe p 7 | cat >/dev/null; exit 3' 'p $_shell_exitcode' 'pipe -d'
	'pipe | cat' 'pipe nosuchcmd | cat' 'shell exit 4' 'p $_shell_exitcode' 'break fib' 'run'
	'| bt | wc -l' 'pipe info registers | head -1' 'p 8')
norm() { grep -v -e libthread_db -e '^\[Thread debugging' | normalize; }
ptdbg_batch -- "$TESTPROGS/fib" 3 | norm >"$TMPDIR/ptdbg"
gdb_batch -- "$TESTPROGS/fib" 3 | norm >"$TMPDIR/gdb"
diff -u "$TMPDIR/gdb" "$TMPDIR/ptdbg" >&2 || die "batch: ptdbg differs from gdb (- gdb, + ptdbg)"
qgrep '^\$X = X$' "$TMPDIR/ptdbg" || die "batch: | did not pipe"
note "batch: $(wc -l <"$TMPDIR/ptdbg") lines identical to gdb's"

# A long output cut short (whether gdb says the pipe broke depends on
# when head exits): ptdbg goes on.
CMDS=('break fib' 'run' 'pipe info all-registers | head -2' 'pipe bt -full | true'
	'p 9')
ptdbg_batch -- "$TESTPROGS/fib" 3 >"$TMPDIR/cut" 2>&1
qgrep '^\$1 = 9$' "$TMPDIR/cut" || { cat "$TMPDIR/cut" >&2; die "cut: ptdbg did not go on"; }
[ "$(grep -c '^r[a-z0-9]* *0x' "$TMPDIR/cut")" = 2 ] || { cat "$TMPDIR/cut" >&2; die "cut: head -2"; }
note "cut: went on"

# typed (stdin): the line before, run again
printf 'p 5\n| | tr 5 Y\npipe | tr 6 Z\n| | cat\nquit\n' >"$TMPDIR/typed"
"$PTDBG" -q <"$TMPDIR/typed" 2>&1 | sed 's/^(ptdbg) /(gdb) /' >"$TMPDIR/typed.ptdbg"
gdb -nx -q <"$TMPDIR/typed" 2>&1 >"$TMPDIR/typed.gdb"
diff -u "$TMPDIR/typed.gdb" "$TMPDIR/typed.ptdbg" >&2 || die "typed: ptdbg differs from gdb (- gdb, + ptdbg)"
qgrep '^(gdb) \$4 = 5$' "$TMPDIR/typed.ptdbg" || die "typed: the line before was not run again"
note "typed: $(wc -l <"$TMPDIR/typed.ptdbg") lines identical to gdb's"
