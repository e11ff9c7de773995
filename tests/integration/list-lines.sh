#!/usr/bin/env bash
# `list` as gdb 13 lists: before `run` with only a line number (or a range) lists main's
# source file, as gdb 13 does (it used to say "No symbol table is loaded"
# while `list fib` worked).  Each command sequence's whole output is
# compared with gdb's on the same program.  `list -`, `list +`, `list N,`
# and `list ,M` too, before run and after a stop.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

prog=$TESTPROGS/fib
l=$(line_of fib.c 'int r;')
l=${l#fib.c:}
failed=0
for seq in "list $l|list" "list 3,5|list" "list|list 12" "list $l|list fib|list 22,23" \
	"list fib|list|list -|list -|list -|list -" "list|list -|list +" "list 10,|list" \
	"list ,20|list -|list" "list 30|list -|list -|list -|list -|list -" \
	"break fib|run|list -|list -|list" "break fib|run|list|list -|list -"; do
	IFS='|' read -ra CMDS <<<"$seq"
	pt=$(ptdbg_batch -- "$prog")
	gd=$(gdb_batch -- "$prog" | grep -v -e libthread_db -e "^\[Thread debugging")
	echo "$gd" | qgrep '^[0-9][0-9]*	' || die "gdb listed nothing for $seq: $gd"
	if ! diff -u <(echo "$gd") <(echo "$pt") >&2; then
		note "differs from gdb: $seq"
		failed=1
	fi
done
[ "$failed" = 0 ] || die "list before run differs from gdb"
# the first sequence shows the asked line itself
CMDS=("list $l")
pt=$(ptdbg_batch -- "$prog")
echo "$pt" | qgrep "^$l		int r;" || die "list $l does not show line $l"
exit 0
