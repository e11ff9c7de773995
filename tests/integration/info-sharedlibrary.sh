#!/usr/bin/env bash
# info sharedlibrary against gdb 13: before run, at the first instruction
# (starti: only the dynamic linker), at main, and after testprogs/dlopen
# loaded its plugin (a breakpoint in it), with gdb's columns, the .text
# bounds and the "Syms Read" column.
. "$(dirname "$0")/lib.bash"
need_prereqs fib dlopen
need_gdb

clean() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' |
		norm_stack
}

compare() {
	local what=$1 prog=$2 pt gd
	pt=$(ptdbg_batch -- "$TESTPROGS/$prog" | clean) || die "ptdbg failed ($what)"
	gd=$(gdb_batch -- "$TESTPROGS/$prog" | clean)
	note "ptdbg ($what):"; note "$pt"
	echo "$pt" | qgrep 'Shared Object Library' || die "no table ($what)"
	diff -u <(echo "$gd" | grep -E '^(From|0x[0-9a-f]+  |No shared|\(\*\))') \
		<(echo "$pt" | grep -E '^(From|0x[0-9a-f]+  |No shared|\(\*\))') >&2 || die "$what differs from gdb"
}

CMDS=("info sharedlibrary" "break main" run "info sharedlibrary")
compare "before run and at main" fib
CMDS=(starti "info sharedlibrary")
compare "at the first instruction" fib
CMDS=("set breakpoint pending on" "break plugin_compute" run "info sharedlibrary")
compare "after dlopen" dlopen
exit 0
