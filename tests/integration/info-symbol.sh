#!/usr/bin/env bash
# `info symbol ADDR` as gdb 13 says it: "NAME [+ OFF] in section SECT",
# with " of FILE" once the program runs (the program, a library as the
# dynamic linker names it), data symbols too, "No symbol matches EXPR."
# and gdb's error without an argument.  Compared with gdb on testprogs/fib
# and testprogs/values.
. "$(dirname "$0")/lib.bash"
need_prereqs fib values
need_gdb

norm() {
	grep -v -e 'libthread_db' -e '^\[Thread debugging' -e '^\[Inferior 1 ' |
		sed -e 's/0x7ff[0-9a-f]*/STACK/g'
}
failed=0
for prog in fib values; do
	CMDS=('info symbol main' 'info symbol main+4' 'info symbol 0' 'info symbol' 'info symbol nosuch'
		'break main' run 'info symbol $pc' 'info symbol printf' 'info symbol (char *)printf + 3'
		'info symbol main' 'info symbol 12345' 'info symbol &g_arr[2]' 'info symbol &g_counter')
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/p.$prog"
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/g.$prog"
	diff -u "$TMPDIR/g.$prog" "$TMPDIR/p.$prog" >&2 || { note "differs from gdb: $prog"; failed=1; }
done
[ "$failed" = 0 ] || die "info symbol differs from gdb"
qgrep '^printf in section \.text of /.*/libc\.so\.6$' "$TMPDIR/p.values" || die "no library named for printf"
qgrep '^g_arr + 8 in section \.data of ' "$TMPDIR/p.values" || die "no data symbol with an offset"
exit 0
