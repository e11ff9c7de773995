#!/usr/bin/env bash
# ptdbg-report's triggers and exit statuses (man/ptdbg-report.1):
#  --at FUNC:N and FILE:LINE:N (the Nth hit), --on-exit, --until that never
#  fires (exit status 3, the end reported and said so), --timeout and
#  --on-signal snapshots of a busy loop (rpt_spin), the program killed with
#  SIGKILL while recorded (3, its last history reported), a signal the
#  program handles (passed on, not a crash), --buffer-size (the dropped part
#  a gap, in JSON and Perfetto), fork, fork+exec,
#  -p with --on-signal (the attached program runs on and finishes with the
#  right result), the program's own output byte for byte, and bad usage (2).
# Synchronisation is by the program's "ready PID" line on a fifo and
# ptdbg-report's "recording" line, never by sleeping.
. "$(dirname "$0")/lib.bash"

need_prereqs fib fork exec rpt_spin
R=$BD/bin/ptdbg-report
[ -x "$R" ] || die "ptdbg-report not built: $R"
T=$TMPDIR

# run_report OUT ERR ARGS...: exit status in $rc
run_report() {
	local out=$1 err=$2
	shift 2
	rc=0
	"$R" "$@" >"$out" 2>"$err" </dev/null || rc=$?
}
expect_rc() { # want what
	[ "$rc" -eq "$1" ] || { cat "$T/err" "$T/out" >&2 2>/dev/null; die "$2: exit status $rc, expected $1"; }
}
has() { # file pattern (grep -E) what
	grep -qE -- "$2" "$1" || { cat "$1" >&2; die "$3: no line matching '$2' in $1"; }
}
jcheck() { # file python-expression-on-j what
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else "no")' "$1" "$2" ||
		{ cat "$1" >&2; die "$3: $2"; }
}
Q=(-q --method=soft --insns=3 --branches=3)

# ---- --at ----------------------------------------------------------------------
run_report "$T/out" "$T/err" "${Q[@]}" --at=fib:3 -o "$T/at.txt" "$TESTPROGS/fib" 5
expect_rc 0 "--at=fib:3"
has "$T/at.txt" '^Stopped at the --at location fib, hit 3\.$' "--at=fib:3 stop"
# fib(5) -> fib(4) -> fib(3): the third call of fib is two deep in fib
[ "$(grep -cE '^#[0-9]+ .*\bfib \([^)]*\)' "$T/at.txt")" -eq 3 ] || { cat "$T/at.txt" >&2; die "--at=fib:3: not 3 fib frames"; }
has "$T/at.txt" '^The program was running: killed after the report\.$' "--at program state"
[ ! -s "$T/out" ] || { cat "$T/out" >&2; die "--at=fib:3: fib printed although it was stopped before"; }
l12=$(line_of fib.c 'if (n < 2)')
run_report "$T/out" "$T/err" "${Q[@]}" --format=json --at="$l12:2" -o "$T/at.json" "$TESTPROGS/fib" 5
expect_rc 0 "--at=$l12:2"
jcheck "$T/at.json" 'j["trigger"] == "at" and j["stop"]["kind"] == "at" and j["stop"]["line"] == '"${l12#*:}"' and j["stop"]["message"].endswith("hit 2.") and j["process"]["state"] == "running"' "--at=$l12:2"
note "ok --at"

# ---- the exit: --on-exit, and a trigger that never fires --------------------------
run_report "$T/out" "$T/err" "${Q[@]}" --on-exit --format=json -o "$T/exit.json" "$TESTPROGS/fib" 5
expect_rc 0 "--on-exit"
[ "$(cat "$T/out")" = "fib(5) = 5" ] || die "--on-exit: fib's output is not its own"
jcheck "$T/exit.json" 'j["trigger"] == "exit" and j["process"]["state"] == "exiting" and j["process"]["exit_code"] == 0' "--on-exit"
run_report "$T/never.txt" "$T/err" "${Q[@]}" --until=nosuch.c:1 "$TESTPROGS/fib" 5
[ "$rc" -eq 1 ] && has "$T/err" 'nosuch' "--until on a file that is not there"
run_report "$T/never.txt" "$T/err" "${Q[@]}" --at=fib:1000 "$TESTPROGS/fib" 5
expect_rc 3 "--at=fib:1000 (fib(5) calls fib 15 times)"
# the program's output first, untouched, then the report of its end
[ "$(sed -n 1p "$T/never.txt")" = "fib(5) = 5" ] || { cat "$T/never.txt" >&2; die "the program's output is not first"; }
[ "$(sed -n 2p "$T/never.txt")" = "No trigger fired: the program ran to its end and is about to exit with code 0." ] ||
	{ cat "$T/never.txt" >&2; die "--at=fib:1000: the report does not say no trigger fired"; }
has "$T/never.txt" "^The program's exit code: 0\\.\$" "--at=fib:1000 exit code"
note "ok exit, and no trigger"

# ---- snapshots of a busy loop: --timeout, --on-signal ------------------------------
run_report "$T/out" "$T/err" "${Q[@]}" --timeout=1 --format=json -o "$T/to.json" "$TESTPROGS/rpt_spin"
expect_rc 0 "--timeout=1"
jcheck "$T/to.json" 'j["trigger"] == "timeout" and j["stop"]["kind"] == "timeout" and j["process"]["state"] == "running"' "--timeout"
# (where the second found the program depends on the machine's load: the
# loop's folding is checked below, where the test knows the loop ran)
has "$T/out" '^ready [0-9]+$' "rpt_spin's own output"

d=$T/snap
mkdir -p "$d"
mkfifo "$d/out"
exec 3<>"$d/out"
"$R" "${Q[@]}" --on-signal=USR1 -o "$d/report" "$TESTPROGS/rpt_spin" >"$d/out" 2>"$d/err" &
rpid=$!
on_exit "kill $rpid 2>/dev/null"
read -r -t 120 -u 3 word pid || die "rpt_spin did not start under ptdbg-report"
[ "$word" = ready ] || die "rpt_spin said '$word $pid'"
read -r -t 120 -u 3 word || die "rpt_spin did not spin under ptdbg-report"
[ "$word" = spinning ] || die "rpt_spin said '$word'"
kill -USR1 "$rpid"
rc=0
wait "$rpid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$d/err" >&2; die "--on-signal=USR1: exit status $rc"; }
has "$d/report" '^Snapshot: ptdbg-report received SIGUSR1; the program was running\.$' "--on-signal stop"
has "$d/report" '^#[0-9]+ .*main \([^)]*\) at rpt_spin\.c:' "--on-signal backtrace"
has "$d/report" '^rpt_spin\.c:[0-9]+-[0-9]+ \((main|step)\) ×[0-9]+$' "--on-signal loop folded"
! kill -0 "$pid" 2>/dev/null || die "the launched program outlived ptdbg-report"
exec 3>&-
note "ok snapshots"

# ---- a signal the program handles is its own business: passed on ------------------
d=$T/handled
mkdir -p "$d"
mkfifo "$d/out"
exec 3<>"$d/out"
"$R" "${Q[@]}" --on-signal=USR1 -o "$d/report" "$TESTPROGS/rpt_spin" >"$d/out" 2>"$d/err" &
rpid=$!
on_exit "kill $rpid 2>/dev/null"
read -r -t 120 -u 3 word pid && read -r -t 120 -u 3 word2 || die "rpt_spin did not spin under ptdbg-report"
kill -USR2 "$pid"
# its handler ends the loop; its own check of the loop's arithmetic passes
read -r -t 120 -u 3 word ok rounds || die "rpt_spin did not finish after its SIGUSR2"
[ "$word $ok" = "spin ok" ] && [ "$rounds" -ge 1000 ] || die "rpt_spin recorded, after SIGUSR2: '$word $ok $rounds'"
rc=0
wait "$rpid" || rc=$?
[ "$rc" -eq 3 ] || { cat "$d/err" >&2; die "handled SIGUSR2: exit status $rc, expected 3 (no trigger fired)"; }
has "$d/report" '^No trigger fired: the program ran to its end and is about to exit with code 0\.$' "handled SIGUSR2 report"
exec 3>&-
note "ok a handled signal is passed on"

# ---- a flight recorder with a small buffer: the dropped part is a gap ----------------
d=$T/ring
mkdir -p "$d"
mkfifo "$d/out"
exec 3<>"$d/out"
"$R" "${Q[@]}" --buffer-size=64K --on-signal=USR1 --format=json -o "$d/report.json" "$TESTPROGS/rpt_spin" >"$d/out" 2>"$d/err" &
rpid=$!
on_exit "kill $rpid 2>/dev/null"
read -r -t 120 -u 3 word pid && read -r -t 120 -u 3 word2 || die "rpt_spin did not spin under ptdbg-report"
kill -USR1 "$rpid"
rc=0
wait "$rpid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$d/err" >&2; die "--buffer-size=64K --on-signal: exit status $rc"; }
# 1000 rounds of soft's register snapshots are more than 64K: the oldest
# part was dropped, and the report says so where the history starts
jcheck "$d/report.json" 'j["trigger"] == "signal" and len(j["gaps"]) == 1 and j["gaps"][0]["number"] == 1 and "dropped" in j["gaps"][0]["reason"] and "buffer-size 65536" in j["gaps"][0]["detail"] and j["gaps"][0]["arg"] > 0' "--buffer-size gap"
exec 3>&-
# the same as a timeline: the dropped part is a slice of category "gap"
# at the start of the track
mkfifo "$d/out2"
exec 3<>"$d/out2"
"$R" "${Q[@]}" --buffer-size=64K --on-signal=USR1 --format=perfetto -o "$d/trace.json" "$TESTPROGS/rpt_spin" >"$d/out2" 2>"$d/err" &
rpid=$!
on_exit "kill $rpid 2>/dev/null"
read -r -t 120 -u 3 word pid && read -r -t 120 -u 3 word2 || die "rpt_spin did not spin under ptdbg-report"
kill -USR1 "$rpid"
rc=0
wait "$rpid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$d/err" >&2; die "--buffer-size=64K --format=perfetto: exit status $rc"; }
jcheck "$d/trace.json" '[(e["ts"], e["dur"], e["args"]["number"]) for e in j["traceEvents"] if e.get("cat") == "gap"] == [(1, 1, 1)] and any(e.get("name") == "main" for e in j["traceEvents"])' "--buffer-size gap in Perfetto"
exec 3>&-
run_report "$T/out" "$T/err" --method=soft --buffer-size=1 "$TESTPROGS/fib"
expect_rc 2 "--buffer-size=1"
has "$T/err" '^ptdbg-report: --buffer-size: buffer-size 1 is too small' "--buffer-size=1 message"
note "ok --buffer-size flight recorder"

# ---- the program killed while recorded ----------------------------------------------
d=$T/kill
mkdir -p "$d"
mkfifo "$d/out"
exec 3<>"$d/out"
"$R" "${Q[@]}" -o "$d/report" "$TESTPROGS/rpt_spin" >"$d/out" 2>"$d/err" &
rpid=$!
on_exit "kill $rpid 2>/dev/null"
read -r -t 120 -u 3 word pid || die "rpt_spin did not start under ptdbg-report"
kill -KILL "$pid"
rc=0
wait "$rpid" || rc=$?
[ "$rc" -eq 3 ] || { cat "$d/err" >&2; die "program killed: exit status $rc, expected 3"; }
# its last history is reported, or ptdbg-report says there is none
if [ -s "$d/report" ]; then
	has "$d/report" '^No trigger fired: the program was killed by SIGKILL\.$' "killed: report"
	has "$d/report" '^The program was killed by SIGKILL\.$' "killed: program state"
else
	has "$d/err" '^ptdbg-report: no history is left to report on$' "killed: no report"
fi
exec 3>&-
note "ok SIGKILL mid-record"

# ---- fork, and fork + exec -------------------------------------------------------------
run_report "$T/fork.txt" "$T/err" "${Q[@]}" "$TESTPROGS/fork"
expect_rc 0 "fork"
[ "$(sed -n '1,2p' "$T/fork.txt")" = $'child 41\nparent: child exited 7' ] || { cat "$T/fork.txt" >&2; die "fork: the output is not the program's"; }
has "$T/fork.txt" '^The program is about to exit with code 0\.$' "fork: the parent's exit"
run_report "$T/exec.txt" "$T/err" "${Q[@]}" --format=json -o "$T/exec.json" "$TESTPROGS/exec"
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { cat "$T/err" >&2; die "exec: exit status $rc"; }
[ "$(cat "$T/exec.txt")" = $'exec: before\nfib(5) = 5' ] || { cat "$T/exec.txt" >&2; die "exec: the output is not the programs'"; }
if [ "$rc" -eq 0 ]; then
	jcheck "$T/exec.json" 'j["process"]["exit_code"] == 0' "exec: the exit of the new program"
else
	has "$T/err" 'the program exited with code 0 before a trigger fired' "exec: ended first, said so"
fi
note "ok fork, fork+exec (exit status $rc)"

# ---- -p: an attached busy loop, snapshot, runs on unchanged --------------------------
d=$T/attach
mkdir -p "$d"
mkfifo "$d/out" "$d/err"
exec 3<>"$d/out" 4<>"$d/err"
"$TESTPROGS/rpt_spin" >"$d/out" &
spid=$!
on_exit "kill -9 $spid 2>/dev/null"
read -r -t 60 -u 3 word pid || die "rpt_spin did not start"
[ "$pid" = "$spid" ] || die "rpt_spin says pid $pid, started $spid"
read -r -t 60 -u 3 word || die "rpt_spin did not spin"
"$R" --method=soft --insns=3 --on-signal=USR1 --format=json -o "$d/report.json" -p "$spid" 2>"$d/err" &
rpid=$!
read -r -t 120 -u 4 line || die "no word from ptdbg-report -p"
[[ $line == "ptdbg-report: recording the process from now (method soft)" ]] || die "ptdbg-report -p said: $line"
kill -USR1 "$rpid"
rc=0
wait "$rpid" || rc=$?
[ "$rc" -eq 0 ] || die "ptdbg-report -p --on-signal: exit status $rc"
jcheck "$d/report.json" 'j["trigger"] == "signal" and j["process"]["attached"] and j["process"]["state"] == "running" and j["process"]["pid"] == '"$spid"'' "-p snapshot"
# detached: it spins on; told to stop, it checks its own arithmetic
kill -USR2 "$spid"
read -r -t 60 -u 3 word ok rounds || die "rpt_spin did not finish after the report"
[ "$word $ok" = "spin ok" ] || die "rpt_spin after ptdbg-report -p: '$word $ok $rounds'"
rc=0
wait "$spid" || rc=$?
[ "$rc" -eq 0 ] || die "rpt_spin exited with $rc after being attached"
note "ok -p: $rounds rounds, unchanged"

# ---- bad usage ----------------------------------------------------------------------
bad() { # pattern args...
	local pat=$1
	shift
	run_report "$T/out" "$T/err" "$@"
	expect_rc 2 "ptdbg-report $*"
	has "$T/err" "$pat" "ptdbg-report $*"
}
bad "invalid --at location 'fib:0'" --at=fib:0 "$TESTPROGS/fib"
bad "invalid signal 'KILL' for --on-signal" --on-signal=KILL "$TESTPROGS/fib"
bad "invalid timeout '0'" --timeout=0 "$TESTPROGS/fib"
bad "unknown --threads 'some'" --threads=some "$TESTPROGS/fib"
bad "unknown --color 'blue'" --color=blue "$TESTPROGS/fib"
bad "triggers need a program" --load="$T" --at=main
note "ok bad usage"
echo ok
