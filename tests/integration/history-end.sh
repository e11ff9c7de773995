#!/usr/bin/env bash
# Forward motions in the recorded past that reach the end of the history
# stop there as gdb 13 record full's do: "No more reverse-execution
# history." and the frame line, whatever the motion (stepi, nexti, step,
# next, continue, finish of an older frame, until, advance) and even with
# a breakpoint at the very end (not reported, its hit not counted); the
# next forward motion runs live.  (Reverse motions to the start of the
# history say the same there, also checked.)  testprogs/fib, break fib, run, record,
# continue: the history ends at fib(9)'s breakpoint; each motion goes back
# a few instructions and forward again.  The same output as gdb's (frame
# arguments ptdbg does not know in the past apart), with every recorder
# (step, soft; pt and bts on the simulated PMU); the same motions in the
# recording saved and loaded again, where the end of the history is the
# end (a forward motion from there is refused with gdb's words); and in a
# recording kept after the program exited.
. "$(dirname "$0")/lib.bash"
need_prereqs fib
need_gdb

prog=$TESTPROGS/fib
motions=(reverse-stepi reverse-stepi reverse-stepi stepi stepi stepi
	 reverse-stepi nexti reverse-stepi reverse-stepi reverse-stepi next reverse-stepi reverse-stepi step
	 reverse-stepi reverse-stepi reverse-stepi reverse-stepi continue reverse-finish finish
	 reverse-stepi reverse-stepi "until 14" reverse-stepi reverse-stepi "advance 14")
clean() { grep -v -e '^\[Thread debugging' -e '^Using host libthread_db' | norm_stack; }
# from the first motion's output on
motions_out() { sed -n '/^0x000000000040113f	11	{$/,$p'; }

CMDS=("break fib" run "record full" c "${motions[@]}" "info breakpoints" stepi)
gdb_batch -- "$prog" | clean >"$TMPDIR/gdb.out"
n=$(grep -c '^No more reverse-execution history.$' "$TMPDIR/gdb.out")
[ "$n" = 8 ] || { cat "$TMPDIR/gdb.out" >&2; die "gdb reached the end of the history $n times, not 8"; }
grep -q 'breakpoint already hit 2 times' "$TMPDIR/gdb.out" || die "gdb counted other hits"

for m in step soft pt bts; do
	CMDS[2]="record $m"
	case $m in
	pt | bts) out=$(PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$prog") ;;
	*) out=$(ptdbg_batch -- "$prog") ;;
	esac || die "ptdbg ($m) failed: $out"
	echo "$out" | clean >"$TMPDIR/$m.out"
	past_args "$TMPDIR/gdb.out" "$TMPDIR/$m.out" ||
		die "record $m: motions to the end of the history differ from gdb record full"
done

# reverse motions that reach the start of the history, and forward ones
# back to its end, as gdb's
CMDS=("break fib" run "record full" next next reverse-next next reverse-step next reverse-finish next
      step reverse-continue next reverse-stepi next reverse-nexti reverse-finish)
gdb_batch -- "$prog" | clean >"$TMPDIR/gdb.start"
qgrep '^No more reverse-execution history.$' "$TMPDIR/gdb.start" ||
	{ cat "$TMPDIR/gdb.start" >&2; die "gdb did not reach the start of the history"; }
for m in step soft pt bts; do
	CMDS[2]="record $m"
	case $m in
	pt | bts) out=$(PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$prog") ;;
	*) out=$(ptdbg_batch -- "$prog") ;;
	esac || die "ptdbg ($m) failed: $out"
	echo "$out" | clean >"$TMPDIR/$m.start"
	past_args "$TMPDIR/gdb.start" "$TMPDIR/$m.start" ||
		die "record $m: motions to the start of the history and back differ from gdb record full"
done

# saved and loaded: the same stops; the last stepi is refused
CMDS=("break fib" run record c "record save $TMPDIR/bundle")
out=$(ptdbg_batch -- "$prog") || die "ptdbg failed to save: $out"
CMDS=("break fib" "${motions[@]}" stepi)
out=$(ptdbg_batch --load "$TMPDIR/bundle")
echo "$out" | motions_out >"$TMPDIR/load.out"
motions_out <"$TMPDIR/gdb.out" | sed '/^Num /,$d' >"$TMPDIR/gdb.motions"
echo "No more reverse-execution history." >>"$TMPDIR/gdb.motions"
past_args "$TMPDIR/gdb.motions" "$TMPDIR/load.out" ||
	die "loaded recording: motions to the end of the history differ from gdb record full's"

# kept after the exit: the end is the exit syscall
CMDS=("break fib" run record c delete c c reverse-stepi reverse-stepi stepi stepi stepi)
out=$(ptdbg_batch -- "$prog")
note "kept:"; note "$out"
echo "$out" | qgrep '^The recorded history is kept' || die "the recording was not kept: $out"
echo "$out" | sed -n '/^The recorded history is kept/,$p' | sed 1,2d >"$TMPDIR/kept.out"
[ "$(grep -c '^No more reverse-execution history.$' "$TMPDIR/kept.out")" = 2 ] &&
	sed -n '/^No more reverse-execution history.$/{n;p;q;}' "$TMPDIR/kept.out" |
		qgrep '^0x[0-9a-f]* in _exit (' ||
	die "kept recording: the stepi to its end did not stop there, in _exit"
exit 0
