#!/usr/bin/env bash
# continue N and ignore against gdb 13, typed on stdin (gdb's from_tty):
#  - `continue N` stopped at a breakpoint gives that breakpoint an ignore
#    count of N-1 ("Will ignore next 2 crossings of breakpoint 1.
#    Continuing.") and stops at its Nth hit; `continue 1` says "Will stop
#    next time ...", and away from a breakpoint the argument is ignored
#    with gdb's note;
#  - `ignore` says the same three ways, and `info breakpoints` shows the
#    hits counted while ignored;
#  - the same in a replay (record / record full), forward and reverse.
# bt full (backtrace full, bt -full, bt full N, bt full -N) against gdb:
#  - each frame line is followed by the locals of that frame 8 columns in,
#    an inner block's before the function's, "No locals." where there are
#    none; inlined functions' frames have theirs; a pretty value's every
#    line is indented; the frame selected before stays selected.
. "$(dirname "$0")/lib.bash"
need_prereqs fib loops inlstep-O2 values
need_gdb

prog=$TESTPROGS/fib
typed() {
	sed -E -e 's/^(\((gdb|ptdbg)\) )+//' |
		grep -v -e '^\[' -e '^Using host' -e '^$' -e '^auto chose' -e 'will be killed' \
			-e '^Quit anyway' -e '^Starting program' -e '^Reading symbols' |
		sed -E "s/^(main \\()[^)]*\\)/\\1ARGS)/$1" | normalize
}
# (a replay without the recorder's registers may show arguments as
# <unavailable>: there the stops are told by the hit counts)
compare() { # name, commands (\n-separated, gdb's spelling), extra sed
	printf "$2" | gdb -nx -q "$prog" 2>&1 | typed "${3-}" >"$TMPDIR/$1.gdb"
	printf "$(printf '%s' "$2" | sed 's/record full/record/')" | "$PTDBG" -q "$prog" 2>&1 |
		typed "${3-}" >"$TMPDIR/$1.ptdbg"
	diff -u "$TMPDIR/$1.gdb" "$TMPDIR/$1.ptdbg" >&2 || die "$1: ptdbg differs from gdb"
}

compare live 'set width 0\nbreak fib\nrun\ncontinue 3\ninfo breakpoints\ncontinue 1\nignore 1 2
ignore 1 1\nignore 1 0\ncontinue 2\ntbreak main\ncontinue 2\ninfo breakpoints\nquit\n'
grep -qx 'Will ignore next 2 crossings of breakpoint 1.  Continuing.' "$TMPDIR/live.ptdbg" ||
	die "live: no ignore message for continue 3"
grep -qx 'Breakpoint 1, fib (n=7) at fib.c:12' "$TMPDIR/live.ptdbg" ||
	die "live: continue 3 did not stop at the third hit"

compare replay 'set width 0\nbreak main\nrun\nrecord full\nbreak fib\ncontinue\ncontinue 4
continue 3\nreverse-continue 2\ninfo breakpoints\ncontinue 3\ninfo breakpoints
reverse-continue\nquit\n' ';s/^(Breakpoint 2, fib \()[^)]*\)/\1ARGS)/'
batch_compare() { # name, program, commands...
	local name=$1 p=$2
	shift 2
	CMDS=("$@")
	gdb_batch -- "$TESTPROGS/$p" | grep -v -e '^\[' -e '^Using host' | normalize >"$TMPDIR/$name.gdb"
	ptdbg_batch -- "$TESTPROGS/$p" | normalize >"$TMPDIR/$name.ptdbg"
	diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2 || die "$name: ptdbg differs from gdb"
}
l24=$(line_of loops.c 'grid[i][j] = i * j')
batch_compare btfull-loops loops "break ${l24#loops.c:}" run "bt full" "bt -full 1" \
	"backtrace full -1" up "bt full" "info locals"
grep -qx '        j = 0' "$TMPDIR/btfull-loops.ptdbg" || die "bt full: no block-scoped local"
batch_compare btfull-fib fib "break fib" run "continue 3" "bt full" "where full 2"
grep -qx 'No locals.' "$TMPDIR/btfull-fib.ptdbg" || die "bt full: no \"No locals.\""
batch_compare btfull-inline inlstep-O2 "break scale" run "bt full" up "bt full 3"
batch_compare btfull-pretty values "set print pretty on" "break helper" run "bt full"
grep -qx '            x = 1,' "$TMPDIR/btfull-pretty.ptdbg" || die "bt full: a pretty value not indented"

note "continue N: $(cat "$TMPDIR"/*.ptdbg | grep -c .) lines as gdb's"
exit 0
