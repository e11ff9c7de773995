#!/usr/bin/env bash
# Relative linespecs (break/tbreak/until/dprintf +N and -N from the line
# of the selected frame), info frame LEVEL / level N / function NAME (gdb's
# "Stack frame at", the selection kept) and frame apply (all, COUNT,
# -COUNT, level LIST, -q -c -s, faas, errors), compared line for line
# with gdb 13 on testprogs/fib.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
need_gdb
norm() {
	grep -v -e libthread_db -e '^\[Thread debugging' | normalize |
		sed -e 's/argv=0x[0-9a-f]*/argv=ARGV/g' -e 's/0x7ffff[0-9a-f]*/ADDR/g'
}
compare() { compare_gdb "$@"; }

CMDS=('break main' 'run' 'break +1' 'break -1' 'tbreak +3' 'info breakpoints' 'delete'
	'until +3' 'break fib' 'continue' 'up' 'break +1' 'dprintf -10,"x\n"' 'info breakpoints')
compare relative "$TESTPROGS/fib" 3
qgrep '^Breakpoint [0-9]* at 0x[0-9a-f]*: file fib.c, line 23\.$' "$TMPDIR/relative.ptdbg" ||
	die "relative: +1 from frame 1 is not line 23"

CMDS=('info frame 1' 'break fib if n==1' 'run' 'info frame 1' 'info frame level 2'
	'info frame function main' 'info frame level 9' 'info frame function nosuch'
	'info frame function' 'info frame x' 'info frame n' 'frame' 'up' 'info frame' 'info frame 0')
compare info-frame "$TESTPROGS/fib" 3
qgrep '^Stack frame at 0x' "$TMPDIR/info-frame.ptdbg" || die "info-frame: no named frame"

CMDS=('frame apply all p 1' 'break fib if n==1' 'run' 'frame apply all p n' 'frame apply 2 p n'
	'frame apply all -q p $pc' 'frame apply all -c p n' 'frame apply all -s p n'
	'frame apply level 1-2 p n' 'frame apply level 1 info frame' 'frame apply'
	'frame apply all' 'frame apply 0 p 1' 'frame apply -1 p 1' 'faas p n'
	'frame apply all -s p argc' 'frame apply all -c p argc' 'frame apply all p argc'
	'frame apply all -x p 1' 'frame')
compare frame-apply "$TESTPROGS/fib" 2
qgrep -E '^#2 +0x[0-9a-f]+ in main \(argc=2, argv=[A-Z]+\) at fib.c:22$' "$TMPDIR/frame-apply.ptdbg" ||
	die "frame-apply: no frame line"
