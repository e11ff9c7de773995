#!/usr/bin/env bash
# info auxv and info files / info target as gdb 13 prints them: the
# auxiliary vector an entry a line (number, name, description, value in
# decimal, hex, or hex and the string there), and the targets -- the
# symbol file, the running process, the executable with its entry point
# and its allocated sections, then the dynamic linker's, the vDSO's
# ("in system-supplied DSO at 0x...") and each library's sections at the
# addresses they are loaded at.  Before run, live, in a recording (the
# same process), with a library loaded by dlopen; info auxv after kill.
# (Not compared: info files after kill, where gdb still lists the
# libraries of the process that was, until the next run.)  The arguments
# of main in the recorded past are masked (gdb's record full has them).
# gdb is told the thread as gdb without libthread_db names it ("child
# process N"), as ptdbg does.
. "$(dirname "$0")/lib.bash"
need_prereqs fib dlopen
need_gdb
norm() {
	grep -v -e libthread_db -e '^\[Thread debugging' |
		sed -e 's/child Thread 0x[0-9a-f]* (LWP \([0-9]*\))/child process \1/' |
		normalize | sed -e 's/^\(Breakpoint 1, \)\{0,1\}main (.*) at /\1main (ARGS) at /'
}

CMDS=('info auxv' 'info files' 'info target' 'break main' run 'info auxv' 'info auxv 1'
	'info files' 'info target' record next reverse-next 'info auxv' 'info files' 'record stop'
	'set confirm off' kill 'info auxv')
compare_gdb fib "$TESTPROGS/fib"
qgrep -e '^9    AT_ENTRY             Entry point of program         0x401050$' "$TMPDIR/fib.ptdbg" ||
	die "fib: no AT_ENTRY line"
qgrep -e '^	0x0000000000401050 - 0x00000000004[0-9a-f]* is \.text$' "$TMPDIR/fib.ptdbg" ||
	die "fib: no .text line"
qgrep -e ' is \.text in /lib/x86_64-linux-gnu/libc\.so\.6$\| is \.text in .*/libc\.so\.6$' \
	"$TMPDIR/fib.ptdbg" || die "fib: no libc .text line"
qgrep -e ' is \.text in system-supplied DSO at 0x' "$TMPDIR/fib.ptdbg" || die "fib: no vDSO line"

# a library loaded by the program: its sections too
line=$(line_of dlopen.c 'dlclose(h);')
CMDS=("break ${line}" run 'info files')
compare_gdb dlopen "$TESTPROGS/dlopen" "$TESTPROGS/libplugin.so"
qgrep -e ' is \.text in .*libplugin\.so$' "$TMPDIR/dlopen.ptdbg" || die "dlopen: no plugin sections"
