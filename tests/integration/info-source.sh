#!/usr/bin/env bash
# `info source` as gdb 13 prints it: nothing before a file is current,
# then the current file (chosen by list, a stop, frame) with its
# compilation directory, place on disk, number of lines, language,
# producer, DWARF version and macro information; for C and C++ programs,
# before run, at a stop and after the exit.
. "$(dirname "$0")/lib.bash"
need_prereqs fib shapes
need_gdb

norm() { grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' | sed 's/0x7ff[0-9a-f]*/STACK/g'; }
failed=0
for seq in "fib|info source|list fib|info source" "fib|break fib|run|info source|up|info source|continue|info source" \
	"shapes|break geo::total|run|info source|finish|info source"; do
	IFS='|' read -ra CMDS <<<"$seq"
	prog=$TESTPROGS/${CMDS[0]}
	CMDS=("${CMDS[@]:1}")
	ptdbg_batch -- "$prog" | norm >"$TMPDIR/p.out"
	gdb_batch -- "$prog" | norm >"$TMPDIR/g.out"
	if ! diff -u "$TMPDIR/g.out" "$TMPDIR/p.out" >&2; then
		note "differs from gdb: $seq"
		failed=1
	fi
	qgrep '^Source language is c' "$TMPDIR/p.out" || die "no source described for $seq"
done
[ "$failed" = 0 ] || die "info source differs from gdb"
qgrep '^Source language is c++\.$' "$TMPDIR/p.out" || die "the C++ program's language is not c++"
exit 0
