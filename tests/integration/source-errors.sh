#!/usr/bin/env bash
# A command file (-x, source, nested) stops at its first error, and gdb
# names the place first: "FILE:LINE: Error in sourced command file:" for
# each file from the outermost, then the error; commands after it do not
# run, those of -ex options after it do.  Compared with gdb 13.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

cd "$TMPDIR" || die "no TMPDIR"
printf 'print 1\nprint nosuch\nprint 2\n' >inner.cmd
printf 'print 10\nsource inner.cmd\nprint 11\n' >outer.cmd
printf 'break fib\nrun\nprint n\nprint n +\nprint 99\n' >live.cmd
for args in "-x inner.cmd" "-x outer.cmd -ex 'print 5'" "-x live.cmd -ex 'print n'"; do
	eval "set -- $args"
	p=$("$PTDBG" -batch "$@" "$TESTPROGS/fib" 2>&1)
	g=$(gdb -nx -batch "$@" "$TESTPROGS/fib" 2>&1 | grep -v -e libthread_db -e '^\[Thread debugging' -e '^\[Inferior 1 ')
	p=$(echo "$p" | grep -v '^\[Inferior 1 ')
	diff -u <(echo "$g") <(echo "$p") >&2 || die "differs from gdb: $args"
done
echo "$p" | qgrep '^live.cmd:4: Error in sourced command file:$' || die "no place named for the error"
exit 0
