#!/usr/bin/env bash
# The session's run loop with a free-running recorder (pt and bts on the
# simulated PMU, PTDBG_SIMULATE_PMU): the ladder picks it, a breakpoint
# reached while recording stops the program, the motions (next, step,
# stepi, finish and their reverses) print what they print with the soft
# recorder, a clone child is recorded from its first instruction, the
# recording goes on across exec, and a bundle saved from the recorder's
# own PT loads with the same history.  (Each method's whole instruction
# history against step's: methods-agree with METHODS and the variable.)
. "$(dirname "$0")/lib.bash"
need_prereqs fib threads exec dlopen

rec_line() { grep -m 1 '^Recorded [0-9]* instructions' "$1" | sed 's/ (process [0-9]*)\.$//; s/ (LWP [0-9]*)\.$//'; }

# auto takes the simulated PMU (and says so in the method note)
for m in pt bts; do
	CMDS=('break main' run record 'info record')
	PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$TESTPROGS/fib" >"$TMPDIR/auto.$m" ||
		{ cat "$TMPDIR/auto.$m" >&2; die "auto with the simulated $m: ptdbg failed"; }
	grep -qx "Active record target: ptdbg-$m" "$TMPDIR/auto.$m" ||
		{ cat "$TMPDIR/auto.$m" >&2; die "auto did not choose the simulated $m"; }
done
# an unknown simulation is an error, never a quiet fallback
CMDS=('break main' run record)
PTDBG_SIMULATE_PMU=nosuch ptdbg_batch -- "$TESTPROGS/fib" >"$TMPDIR/bad" 2>&1
grep -q "cannot record with method 'auto': .*PTDBG_SIMULATE_PMU" "$TMPDIR/bad" ||
	{ cat "$TMPDIR/bad" >&2; die "PTDBG_SIMULATE_PMU=nosuch was not refused"; }

# motions: the same output as with soft
CMDS=('break main' run 'record METHOD' 'break fib' continue next step stepi finish
      'reverse-stepi' 'reverse-step' 'reverse-next' 'reverse-finish' 'record goto end'
      'delete' 'break _exit' continue 'info record')
for m in soft pt bts; do
	c=("${CMDS[@]}")
	CMDS=("${c[@]/METHOD/$m}")
	PTDBG_SIMULATE_PMU=$([ $m = bts ] && echo bts || echo pt) ptdbg_batch -- "$TESTPROGS/fib" |
		grep -v '^Active record\|^Recording format\|^Buffer size\|^Replay\|^PMU: \|^Trace read: ' | normalize >"$TMPDIR/motions.$m"
	CMDS=("${c[@]}")
	grep -q '^Breakpoint 2, fib' "$TMPDIR/motions.$m" ||
		{ cat "$TMPDIR/motions.$m" >&2; die "$m: the breakpoint in fib was not hit while recording"; }
	grep -Eq '^Breakpoint 3(\.1)?, (__GI_)?_exit ' "$TMPDIR/motions.$m" ||
		{ cat "$TMPDIR/motions.$m" >&2; die "$m: the breakpoint at _exit was not hit"; }
done
for m in pt bts; do
	diff -u "$TMPDIR/motions.soft" "$TMPDIR/motions.$m" >&2 ||
		die "$m: the motions differ from soft's"
done

# threads: each worker recorded from its first instruction; a bundle of
# the pt recorder's own trace loads with the same history
CMDS=('break main' run 'record pt' 'set record stop-at-thread-exit off' 'break _exit' continue 'info threads' 'info record'
      "record save $TMPDIR/bundle" 'thread 2' 'record function-call-history')
PTDBG_SIMULATE_PMU=pt ptdbg_batch -- "$TESTPROGS/threads" >"$TMPDIR/thr" ||
	{ cat "$TMPDIR/thr" >&2; die "threads with pt: ptdbg failed"; }
grep -q '^a=40425 b=287925$' "$TMPDIR/thr" || { cat "$TMPDIR/thr" >&2; die "threads: wrong output"; }
grep -q '(0 gaps) for thread 1' "$TMPDIR/thr" || { cat "$TMPDIR/thr" >&2; die "threads: main has gaps"; }
grep -q 'Saved the recording' "$TMPDIR/thr" || { cat "$TMPDIR/thr" >&2; die "threads: record save failed"; }
CMDS=('info record')
ptdbg_batch --load "$TMPDIR/bundle" >"$TMPDIR/thr.load" ||
	{ cat "$TMPDIR/thr.load" >&2; die "loading the pt bundle failed"; }
[ "$(rec_line "$TMPDIR/thr")" = "$(rec_line "$TMPDIR/thr.load")" ] ||
	die "the loaded bundle's history ($(rec_line "$TMPDIR/thr.load")) is not the recorded one ($(rec_line "$TMPDIR/thr"))"
n=$(ls "$TMPDIR/bundle" | grep -c '^pt-')
[ "$n" -ge 3 ] || die "the bundle holds $n thread traces, not 3"

# exec: the recording goes on in the new program (main's breakpoint is
# resolved again in it and hit).  (bts: its records before the exec must
# be walked with the old program's code, which its recorder does not
# keep yet: a gap per block.)
for m in pt; do
	CMDS=('break main' run "record $m" continue 'info record')
	PTDBG_SIMULATE_PMU=$m ptdbg_batch -- "$TESTPROGS/exec" >"$TMPDIR/exec.$m" ||
		{ cat "$TMPDIR/exec.$m" >&2; die "exec with $m: ptdbg failed"; }
	grep -q 'is executing new program: .*/fib$' "$TMPDIR/exec.$m" &&
		grep -q '^Breakpoint 1, main (argc=[0-9]*, argv=0x[0-9a-f]*) at fib.c' "$TMPDIR/exec.$m" &&
		grep -q '^Recorded [1-9][0-9]* instructions in .* (0 gaps)' "$TMPDIR/exec.$m" ||
		{ cat "$TMPDIR/exec.$m" >&2; die "exec with $m: the recording did not go on"; }
done

# dlopen then dlclose: the plugin's code is gone when the history is
# listed; pt and bts still have it in their images (the file mapping
# sideband named), so the whole history lists as step's does (the
# listing once ended at the plugin's first instruction: "the recorded
# code is not available").  Each against a step run with the same
# environment (its size moves the stack, and libc's string functions
# take other paths with other alignments).
CMDS=('break main' run 'record METHOD' 'break _exit' 'delete 1' continue 'info record'
      'set record instruction-history-size unlimited' 'echo HISTORY-LISTING\n'
      'record instruction-history /f')
listing() { # pmu method
	local c=("${CMDS[@]}") n f=$TMPDIR/dl.$1.$2
	CMDS=("${c[@]/METHOD/$2}")
	PTDBG_SIMULATE_PMU=$1 ptdbg_batch -- "$TESTPROGS/dlopen" >"$f" ||
		{ tail -n 20 "$f" >&2; die "dlopen with $2: ptdbg failed"; }
	CMDS=("${c[@]}")
	n=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$f")
	sed -n '/^HISTORY-LISTING$/,$p' "$f" | sed 1d | awk '{ print $1, $2 }' >"$f.pcs"
	[ -n "$n" ] && [ "$(wc -l <"$f.pcs")" = "$n" ] ||
		{ tail -n 5 "$f" >&2; die "dlopen with $2: the listing does not hold all $n instructions"; }
}
for m in pt bts; do
	listing $m step
	listing $m $m
	cmp -s "$TMPDIR/dl.$m.step.pcs" "$TMPDIR/dl.$m.$m.pcs" ||
		{ diff "$TMPDIR/dl.$m.step.pcs" "$TMPDIR/dl.$m.$m.pcs" | sed -n '1p;/^>/p' | head -n 20 >&2
		  die "dlopen with $m: the listing differs from step's"; }
done
echo ok
