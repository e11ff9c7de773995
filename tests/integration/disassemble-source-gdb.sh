#!/usr/bin/env bash
# disassemble /s (source lines with the instructions, in address order:
# gdb's rules for the lines before a row, lines going back, the file
# header, the first row's line), /m on unoptimized code, /r with them,
# and ranges (START,END and START,+LENGTH), compared line for line with
# gdb 13, live (the => marker, an outer frame, a libc function without
# its source) and on -O2 code of testprogs (rows out of line order).
. "$(dirname "$0")/lib.bash"

need_prereqs fib parse-O2 loops-O2 inlstep-O2
need_gdb
norm() {
	grep -v -e libthread_db -e '^\[Thread debugging' | normalize |
		sed -e 's/argv=0x[0-9a-f]*/argv=ARGV/g'
}
compare() { compare_gdb "$@"; }

CMDS=('disassemble /s main' 'disassemble /m main' 'break fib' 'run' 'disassemble /s'
	'disassemble /m' 'disassemble fib,fib+12' 'disassemble /r fib,+8'
	'disassemble /rs fib,+10' 'disassemble /ms' 'up' 'disassemble /s' 'break printf'
	'continue' 'disassemble /s')
compare live "$TESTPROGS/fib" 2
qgrep '^=> 0x' "$TMPDIR/live.ptdbg" || die "live: no => marker"
qgrep '^fib\.c:$' "$TMPDIR/live.ptdbg" || die "live: no file header"

CMDS=('disassemble /s expr' 'disassemble /s term' 'disassemble /s factor')
compare parse-O2 "$TESTPROGS/parse-O2"
CMDS=('disassemble /s fill' 'disassemble /s weigh')
compare loops-O2 "$TESTPROGS/loops-O2"
CMDS=('disassemble /s main')
compare inlstep-O2 "$TESTPROGS/inlstep-O2"
