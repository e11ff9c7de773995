#!/usr/bin/env bash
# A watchpoint whose expression reads a pointer, against gdb 13 on
# testprogs/watchptr: gdb watches every value the expression reads with
# the debug registers, so `watch *ptr` and `watch head->val` also stop when
# ptr or head moves to a place holding another value ("Old value = 6",
# "New value = 5"), not when the new place holds the same value, then
# follow the new place (a write through the old one no longer stops), and
# show "<unreadable>" while the pointer is NULL.  Also the write on the
# instruction that steps off the breakpoint the program stopped at (it was
# lost before).
. "$(dirname "$0")/lib.bash"
need_prereqs watchptr
need_gdb
prog=$TESTPROGS/watchptr

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1'
}

compare() {
	local what=$1 pt gd
	pt=$(ptdbg_batch -- "$prog" | clean)
	[ $? -le 1 ] || die "ptdbg crashed ($what)"
	gd=$(gdb_batch -- "$prog" | clean)
	note "ptdbg ($what):"; note "$pt"
	diff -u <(echo "$gd") <(echo "$pt") >&2 || die "$what differs from gdb (--- gdb, +++ ptdbg)"
	printf '%s\n' "$pt"
}

CMDS=("break main" run "watch *ptr" "watch head->val" c c c c c c "info watchpoints" c)
out=$(compare "watch *ptr and head->val") || exit 1
grep -qx 'Old value = <unreadable>' <<<"$out" || die "no <unreadable> while ptr was NULL: $out"
grep -q '^Old value = 6$' <<<"$out" || die "moving ptr did not trigger *ptr: $out"
grep -q '^New value = 2$' <<<"$out" || die "moving head did not trigger head->val: $out"
[ "$(grep -c '^Hardware watchpoint 2: \*ptr' <<<"$out")" = 5 ] ||
	die "*ptr did not stop exactly at the four changes of its value (and say so when set): $out"

# the pointer alone, stepping off the breakpoint with the write
CMDS=("break main" run "watch ptr" c c c)
compare "watch ptr from the breakpoint" >/dev/null || exit 1

# the values read take debug registers: three single ones leave one
CMDS=("break main" run "watch x" "watch y" "watch z" "watch *ptr" "info watchpoints")
out=$(ptdbg_batch -- "$prog")
grep -q '^Hardware watchpoints used exceeds limit of 4 debug registers.' <<<"$out" ||
	die "watch *ptr with one debug register left was not refused: $out"
grep -q '^5 ' <<<"$out" && die "the refused watchpoint stayed: $out"
exit 0
