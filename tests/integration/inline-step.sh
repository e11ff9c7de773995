#!/usr/bin/env bash
# step, next and finish into, over and out of inlined functions, and
# their reverse forms, as gdb 13 does them (issue 14), on
# testprogs/inlstep-O2 (scale inlined twice into twice, twice inlined
# into work's loop, leaf a real call inside scale) and inline-O2:
#  - where inlined calls start, gdb first shows the caller at the call
#    site's line; `step` then enters the inlined function without moving;
#  - `next` steps over the inlined body, `finish` out of an inlined frame
#    steps to the end of it and prints no value;
#  - live (gdb live), reverse in the recording (gdb record full), and
#    forward again in the recorded past (gdb replaying its log).
# ptdbg and gdb run the same commands; every stop line, frame line and
# backtrace must be the same.  Frame arguments are left out of the
# comparison (values-inline.sh compares them); the sequences stay inside
# the test program, whose code both debuggers see alike.
. "$(dirname "$0")/lib.bash"
need_prereqs inlstep-O2 inline-O2
need_gdb

norm() {
	grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' -e '^\[Inferior 1' \
		-e '^(More stack frames' |
		sed -E -e 's/^(Breakpoint [0-9]+, |Temporary breakpoint [0-9]+, )?(0x[0-9a-f]+ in )?([A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1\2\3 () at /' \
			-e 's/^((Run till exit from |Run back to call of )?#[0-9]+ +(0x[0-9a-f]+ in )?[A-Za-z_][A-Za-z0-9_]*) \(.*\) at /\1 () at /'
}

# compare NAME PROG: CMDS in both debuggers; the outputs must be equal and
# show at least one inlined frame.
compare() {
	local name=$1 prog=$2
	gdb_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.gdb"
	ptdbg_batch -- "$TESTPROGS/$prog" | norm >"$TMPDIR/$name.ptdbg"
	if ! diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		die "$name: ptdbg's stops differ from gdb's (- gdb, + ptdbg)"
	fi
	grep -Eq '^(#[0-9]+ +)?(0x[0-9a-f]+ in )?(scale|twice|square|sum_squares) \(\) at ' "$TMPDIR/$name.ptdbg" ||
		die "$name: no inlined frame shown"
	note "$name: $(grep -c . "$TMPDIR/$name.ptdbg") lines as gdb's"
}

# with_bt MOTION...: each motion followed by a backtrace
with_bt() {
	local c
	for c in "$@"; do CMDS+=("$c" 'bt 4'); done
}

# 1. Live: step into the inlined calls (twice, then scale at the same pc),
#    on into leaf and back out, then the second scale call site.
CMDS=('break work' run)
with_bt step step step step step step step step step step step step step
compare live-step inlstep-O2

# list centres on the call site shown, then on the inlined function's line
CMDS=('break work' run next step list step list step step list)
compare live-list inlstep-O2

# 2. Live: next over the inlined calls, finish out of inline frames (and
#    of leaf into an inline frame, which returns a value).
CMDS=('break work' run)
with_bt next next next step step next step finish step step step finish step step step step step \
	step step finish next
compare live-next-finish inlstep-O2

# 3. Reverse in a recording: reverse-step back into and out of the
#    inlined calls, reverse-next over them, reverse-finish out of them.
CMDS=('break work' run record 'break inlstep.c:41' continue continue)
with_bt reverse-step reverse-step reverse-step reverse-step reverse-step reverse-step \
	reverse-step reverse-step reverse-next reverse-step reverse-finish reverse-step \
	reverse-step reverse-finish reverse-next reverse-next reverse-step reverse-next
compare reverse inlstep-O2

# 4. Forward again in the recorded past (replaying, then the live end).
CMDS=('break work' run record 'break inlstep.c:41' continue continue 'delete 2'
      reverse-continue)
with_bt step step next step step step finish next step step step finish
compare replay-forward inlstep-O2

# 5. testprogs/inline-O2 (square in sum_squares in compute), live and
#    reverse.
CMDS=('break compute' run)
with_bt step step step step step next step finish next step step finish next next
compare inline-live inline-O2
end=$(bp_addr inline-O2 '*compute+49') || exit 1
CMDS=('break compute' run record "break *$end" continue)
with_bt reverse-step reverse-step reverse-next reverse-step reverse-finish reverse-step \
	reverse-step reverse-step reverse-finish reverse-next reverse-step reverse-next
compare inline-reverse inline-O2

# 7. finish of the selected frame (up, frame N): an inlined one around a
#    real call, the real one, live and in the recorded past.
for u in up 'up 2' 'up 3'; do
	CMDS=('break leaf' run "$u" finish 'bt 4' 'frame 1' finish 'bt 4')
	compare "live $u, finish" inlstep-O2
done
# (work's own finish would run past the end of the history, where gdb
# stops and ptdbg goes on live: left out)
for u in up 'up 2'; do
	CMDS=('break work' run record 'break leaf' continue continue continue reverse-continue "$u"
	      finish 'bt 4')
	compare "replaying $u, finish" inlstep-O2
done

# 8. Breakpoints in inlined code: at a call site's line (gdb keeps that
#    line, and stops in the innermost inlined function: the breakpoint
#    is not "at" the call site), at an address; info breakpoints names
#    the inlined function.
for spec in "$(line_of inlstep.c 'int b = scale(a, 2);')" "$(line_of inlstep.c 'b += scale(a, 3);')" \
	"*$(bp_addr inlstep-O2 "$(line_of inlstep.c 'int b = scale(a, 2);')")"; do
	CMDS=("break $spec" run 'info breakpoints')
	with_bt step next next
	compare "break $spec" inlstep-O2
done

# 9. Commands typed (stdin, as gdb's from_tty): finish and reverse-finish
#    say "Run till exit from #0  <the inlined frame>" (reverse-finish of a
#    real frame "Run back to call of").
cmds='set width 0\nbreak work\nrun\nrecord\nstep\nstep\nstep\nfinish\nstep\nstep\nstep\nstep
finish\nreverse-finish\nstep\nstep\nstep\nreverse-finish\nreverse-step\nreverse-step\nreverse-step
reverse-step\nreverse-finish\nquit\n'
typed() {
	sed -E -e 's/^(\((gdb|ptdbg)\) )+//' |
		grep -v -e '^\[' -e '^Using host' -e '^$' -e '^auto chose' -e 'will be killed' | norm
}
printf "$cmds" | gdb -nx -q "$TESTPROGS/inlstep-O2" 2>&1 | typed >"$TMPDIR/typed.gdb"
printf "$cmds" | "$PTDBG" -q "$TESTPROGS/inlstep-O2" 2>&1 | typed >"$TMPDIR/typed.ptdbg"
diff -u "$TMPDIR/typed.gdb" "$TMPDIR/typed.ptdbg" >&2 || die "typed: ptdbg's stops differ from gdb's"
grep -qx 'Run till exit from #0  scale () at inlstep.c:20' "$TMPDIR/typed.ptdbg" ||
	die "typed: no Run till exit from the inlined frame"
[ "$(grep -c '^Run till exit from #0  scale ()' "$TMPDIR/typed.ptdbg")" -ge 3 ] ||
	die "typed: reverse-finish of an inlined frame is not a Run till exit"
note "typed: $(grep -c . "$TMPDIR/typed.ptdbg") lines as gdb's"
exit 0
