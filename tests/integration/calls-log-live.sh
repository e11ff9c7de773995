#!/usr/bin/env bash
# Live recordings keep a call log, and the function-call view served from
# it (record function-call-history, info record's call count, bt/finish
# in the past) is the view the items give: `maint check calls` compares
# the two segment by segment at stops while recording, in the past after
# reverse motions, for every thread, with each recorder (step, soft, and
# pt/bts on the simulated PMU), on programs with recursion, signals,
# threads, longjmp, dlopen/dlclose, exec, fork, tail calls; and in a
# bounded recording whose oldest part goes again and again.  Every check
# must say identical AND that the log stands for all the items (a view
# built from the items twice would compare equal too).
. "$(dirname "$0")/lib.bash"
need_prereqs fib signal threads longjmp dlloop exec fork tailcall-O2 sigframe

fails=0
checks=0

# run NAME METHOD PROG ARGS... -- with the commands in CMDS
run() {
	local name=$1 m=$2 out
	shift 2
	out=$TMPDIR/$name.$m
	PTDBG_SIMULATE_PMU=$([ "$m" = bts ] && echo bts || echo pt) \
		ptdbg_batch -- "$@" >"$out" 2>&1
	# every check ran and was identical, with a log for all items
	local want got ok
	want=$(printf '%s\n' "${CMDS[@]}" | grep -c '^maint check calls$')
	got=$(grep -c '^calls: [0-9]* segments, identical (call log: \([0-9]*\) of \1 items, rebuilt [0-9]* times)$' "$out")
	checks=$((checks + got))
	ok=1
	[ "$want" -gt 0 ] && [ "$got" -eq "$want" ] || ok=0
	if [ $ok = 0 ]; then
		note "--- $name with $m: $got of $want checks identical with a whole log:"
		grep -n '^calls:\|error\|cannot' "$out" >&2
		fails=$((fails + 1))
	fi
}

for m in step soft pt bts; do
	# recursion: stops while recording, then in the past
	CMDS=('break main' run "record $m" 'break fib if n == 1' continue 'maint check calls' continue
	      continue 'maint check calls' 'delete' 'break _exit' continue 'maint check calls'
	      'reverse-step' 'reverse-finish' 'maint check calls' 'record goto begin'
	      'maint check calls' 'record function-call-history /c 1,5')
	run fib $m "$TESTPROGS/fib"

	# signals (handler frames, sigreturn), a signal frame built by hand
	CMDS=('break main' run "record $m" 'break handler' continue 'maint check calls' 'delete'
	      'break _exit' continue 'maint check calls' 'reverse-next' 'maint check calls')
	run signal $m "$TESTPROGS/signal"
	if [ $m = soft ] || [ $m = pt ]; then
		CMDS=('break main' run "record $m" 'break _exit' continue 'maint check calls')
		run sigframe $m "$TESTPROGS/sigframe"
	fi

	# longjmp past three frames; tail calls (gcc -O2: jmp)
	CMDS=('break main' run "record $m" 'break _exit' continue 'maint check calls'
	      'reverse-stepi' 'maint check calls')
	run longjmp $m "$TESTPROGS/longjmp"
	if [ $m = soft ] || [ $m = pt ]; then
		run tailcall $m "$TESTPROGS/tailcall-O2"
	fi

	# threads: each thread's view
	CMDS=('break main' run "record $m" 'set record stop-at-thread-exit off' 'break sum_range'
	      continue 'maint check calls' 'delete' 'break _exit' continue
	      'thread 1' 'maint check calls' 'thread 2' 'maint check calls'
	      'thread 3' 'maint check calls')
	run threads $m "$TESTPROGS/threads"

	# (step appends to the history as bts does, only slower)
	[ $m = step ] && continue

	# a library dlopened and dlclosed again and again: its code's
	# functions come and go while the log is written
	CMDS=('break main' run "record $m" 'break plugin_compute' continue continue
	      'maint check calls' 'delete' 'break _exit' continue 'maint check calls')
	run dlloop $m "$TESTPROGS/dlloop" 2

	# exec: the old program's code is another's now
	CMDS=('break main' run "record $m" 'break _exit' continue 'maint check calls'
	      'reverse-step' 'maint check calls')
	run exec $m "$TESTPROGS/exec"

	# fork: the parent's recording goes on
	if [ $m = soft ]; then
		CMDS=('break main' run "record $m" 'break _exit' continue 'maint check calls')
		run fork $m "$TESTPROGS/fork"
	fi
done

# the other trace formats: soft writing blocks, step writing PT
CMDS=('break main' run 'record soft blocks' 'break _exit' continue 'maint check calls'
      'reverse-finish' 'maint check calls')
run blocks soft "$TESTPROGS/signal"
CMDS=('break main' run 'record step pt' 'break _exit' continue 'maint check calls'
      'reverse-finish' 'maint check calls')
run ptformat step "$TESTPROGS/longjmp"

# bounded: the oldest part goes (the log with it) many times; the view
# of what is kept must still be the items' one
for m in soft step; do
	CMDS=("set record $m buffer-size 65536" 'break main' run "record $m" 'break _exit'
	      continue 'maint check calls' 'info record' 'reverse-step' 'maint check calls')
	run bounded $m "$TESTPROGS/dlloop" $([ $m = soft ] && echo 30 || echo 5)
	qgrep '^The oldest [0-9]* instructions were dropped' "$TMPDIR/bounded.$m" ||
		{ cat "$TMPDIR/bounded.$m" >&2; die "bounded $m: nothing was dropped"; }
done

# record stop and a new recording (the log starts again with the
# history), record save, and the bundle loaded (its log is written as
# the trace is decoded, or not: a small one is walked item by item)
CMDS=('break main' run 'record soft' 'break fib if n == 2' continue 'maint check calls'
      'record stop' 'record soft' continue 'maint check calls' "record save $TMPDIR/bundle"
      'record stop' 'record step' next 'maint check calls')
run restart soft "$TESTPROGS/fib"
CMDS=('maint check calls' 'reverse-step' 'maint check calls')
"$PTDBG" -batch --load "$TMPDIR/bundle" -ex "${CMDS[0]}" -ex "${CMDS[1]}" -ex "${CMDS[2]}" \
	>"$TMPDIR/load" 2>&1 || { cat "$TMPDIR/load" >&2; die "loading the saved bundle failed"; }
[ "$(grep -c '^calls: [0-9]* segments, identical ' "$TMPDIR/load")" = 2 ] ||
	{ cat "$TMPDIR/load" >&2; die "the loaded bundle's call view differs from its items'"; }

# Where no symbols changed and nothing was dropped, the recorders kept
# the logs themselves: none was written again from the items.
for f in "$TMPDIR"/{fib,signal,sigframe,longjmp,tailcall,threads,fork,blocks,ptformat,restart}.*; do
	[ -f "$f" ] || continue
	if qgrep 'rebuilt [1-9]' "$f"; then
		note "--- $(basename "$f"): a call log had to be rebuilt from the items:"
		grep -n '^calls:' "$f" >&2
		fails=$((fails + 1))
	fi
done

[ $fails = 0 ] || die "$fails runs had a call view differing from the items' one, or no whole call log"
note "calls-log-live: $checks checks identical"
