#!/usr/bin/env bash
# A child the program forks is held, stopped, until the program goes on,
# as gdb holds it (detach-on-fork): at a `catch fork` stop the child has
# not run yet; on `continue` ptdbg says gdb's "[Detaching after fork from
# child process N]" and lets it go.  Without a catchpoint the notice comes
# at the fork, before the child's output.  And ptdbg killed (SIGTERM) at
# the catch stop still lets the held child go: it runs to its end.
# Driven through a fifo; no sleeps.
. "$(dirname "$0")/lib.bash"

need_prereqs fork
ncpu=$(nproc)
all_cpus="0-$((ncpu - 1))"
# (a name of its own: pgrep finds only this test's processes)
prog=$TMPDIR/fkheld
cp "$TESTPROGS/fork" "$prog"

# 1. No catchpoint: the notice, then the child's line, then the parent's.
"$PTDBG" -q -batch -ex run "$prog" </dev/null >"$TMPDIR/plain" 2>&1
sed -e 's/process [0-9]*/process PID/g' "$TMPDIR/plain" >"$TMPDIR/plain.n"
printf '%s\n' '[Detaching after fork from child process PID]' 'child 41' \
	'parent: child exited 7' '[Inferior 1 (process PID) exited normally]' >"$TMPDIR/plain.want"
diff -u "$TMPDIR/plain.want" "$TMPDIR/plain.n" >&2 || die "plain: unexpected output"

# 2. catch fork, live: the child is in a tracing stop at the catch stop,
#    and goes when the program does.
transcript=$TMPDIR/transcript
: >"$transcript"
coproc PT { exec taskset -c "$all_cpus" "$PTDBG" -q "$prog" 2>&1; }
ptdbg_pid=$PT_PID
pt_send 'catch fork'
pt_send run
qgrep '^Catchpoint 1 (forked process [0-9]*), ' "$transcript" || { cat "$transcript" >&2; die "catch: no catch stop"; }
child=$(sed -n 's/^Catchpoint 1 (forked process \([0-9]*\)), .*/\1/p' "$transcript")
parent=$(awk '$1 == "PPid:" { print $2 }' "/proc/$child/status")
state=$(awk '$1 == "State:" { print $2 }' "/proc/$child/status")
[ "$state" = t ] || die "catch: child $child is in state '$state' at the catch stop, not held (t)"
[ "$(awk '$1 == "TracerPid:" { print $2 }' "/proc/$child/status")" = "$ptdbg_pid" ] ||
	die "catch: child $child is not held by ptdbg"
pt_send continue
qgrep "^\[Detaching after fork from child process $child\]$" "$transcript" ||
	{ cat "$transcript" >&2; die "catch: no detaching notice"; }
# (the program's output is ptdbg's: in order, after the notice)
grep -v -e '^>>> ' -e '@@DONE' "$transcript" | sed -n '/^\[Detaching after fork/,$p' >"$TMPDIR/after"
printf '%s\n' "[Detaching after fork from child process $child]" 'child 41' 'parent: child exited 7' \
	"[Inferior 1 (process $parent) exited normally]" >"$TMPDIR/after.want"
diff -u "$TMPDIR/after.want" "$TMPDIR/after" >&2 || die "catch: unexpected output after continue"
note "catch: child $child of $parent held at the stop, let go on continue"

# 3. SIGTERM at the catch stop: the launched program goes (as always),
#    the held child runs on to its end.
: >"$transcript"
pt_send run
qgrep '^Catchpoint 1 (forked process [0-9]*), ' "$transcript" || { cat "$transcript" >&2; die "term: no catch stop"; }
child=$(sed -n 's/^Catchpoint 1 (forked process \([0-9]*\)), .*/\1/p' "$transcript")
[ "$(awk '$1 == "State:" { print $2 }' "/proc/$child/status")" = t ] || die "term: child not held"
# (its output goes where ptdbg's went: the pipe this script reads, kept
# open past the coprocess)
exec {rd}<&"${PT[0]}"
kill -TERM "$ptdbg_pid"
wait "$ptdbg_pid" 2>/dev/null
read -r -t 120 -u "$rd" line || die "term: the held child never ran (left stopped?)"
# (after ptdbg's last prompt, which ends without a newline)
[[ $line == 'child 41' || $line == '(ptdbg) child 41' ]] || die "term: child said '$line'"
note "term: the held child $child ran on after ptdbg went"
