#!/usr/bin/env bash
# ptdbg-report (man/ptdbg-report.1) end to end: the text and JSON reports
# of the segfault program (the stop, the faulting line, the backtrace, the
# last calls, lines and instructions, and instruction counts that step and
# soft must agree on); --from/--until on fib, whose recorded instruction
# count must equal gdb record full's for the same span; a program that
# exits normally and one that exits with a code; -p on a running program
# (reported, detached, and finishing with the right checksum); and bad
# arguments, each with its exit status and message.
. "$(dirname "$0")/lib.bash"

need_prereqs segfault fib waiter
need_gdb
R=$BD/bin/ptdbg-report
[ -x "$R" ] || die "ptdbg-report not built: $R"
T=$TMPDIR

# run_report OUT ERR ARGS...: runs ptdbg-report; its exit status in $rc.
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

# Lines of segfault.c, found by their text: lookup's loop (the crash),
# its caller's call, parse's call, main's call.
crash=$(line_of segfault.c 'while (strcmp(s->name, name) != 0)')
l_process=$(line_of segfault.c 's = lookup(line);')
l_parse=$(line_of segfault.c 'if (process(line) == 0)')
l_main=$(line_of segfault.c 'int n = parse(text);')

# ---- text report of a crash, with soft and with step ----------------------
for m in soft step; do
	f=$T/seg.$m.txt
	run_report "$f" "$T/err" -q --method=$m "$TESTPROGS/segfault"
	cp "$T/err" "$T/err.$m"
	expect_rc 0 "segfault ($m)"
	[ "$(sed -n 1p "$f")" = "Program received signal SIGSEGV, Segmentation fault." ] ||
		{ cat "$f" >&2; die "segfault ($m): first line is not the signal"; }
	has "$f" "^0x[0-9a-f]{16} in lookup \([^)]*\) at $crash\$" "segfault ($m) stop line"
	has "$f" "^${crash#*:}		while \(strcmp\(s->name, name\) != 0\)\$" "segfault ($m) source line"
	has "$f" "^#0  0x[0-9a-f]{16} in lookup \([^)]*\) at $crash\$" "segfault ($m) frame 0"
	has "$f" "^#1  0x[0-9a-f]{16} in process \([^)]*\) at $l_process\$" "segfault ($m) frame 1"
	has "$f" "^#2  0x[0-9a-f]{16} in parse \([^)]*\) at $l_parse\$" "segfault ($m) frame 2"
	has "$f" "^#3  0x[0-9a-f]{16} in main \([^)]*\) at $l_main\$" "segfault ($m) frame 3"
	# the last function segment is lookup, the last line executed its loop
	# lookup, where it stands, is in the call tree at the crash line
	sed -n '/^How execution got here/,/^$/p' "$f" | qgrep -E "^ +lookup	at $crash\$" ||
		{ cat "$f" >&2; die "segfault ($m): lookup is not in the call tree at $crash"; }
	sed -n '/^The last [0-9]* source lines executed (loops folded):/,/^$/p' "$f" | grep -v '^$' | tail -n 1 |
		grep -qF "$crash (lookup)" || { cat "$f" >&2; die "segfault ($m): the last line is not $crash"; }
	# the last instruction listed is the faulting one, at the stop's pc,
	# numbered one past the recorded count (the not yet executed one)
	pc=$(grep -m1 -E "^0x[0-9a-f]{16} in " "$f" | cut -d' ' -f1)
	n=$(sed -n 's/^Recorded \([0-9]*\) instructions in [0-9]* function segments (method '"$m"', .*/\1/p' "$f")
	[ -n "$n" ] && [ "$n" -gt 1000 ] || { cat "$f" >&2; die "segfault ($m): no plausible instruction count"; }
	has "$f" "^The last 20 instructions \(of $((n + 1)) recorded\):\$" "segfault ($m) listing header"
	has "$f" "^$((n + 1))	=> $pc <lookup\+[0-9]+>:	mov " "segfault ($m) last instruction"
	[ "$(grep -cE '^[0-9]+	(=>|  ) 0x' "$f")" -eq 20 ] || die "segfault ($m): not 20 instructions listed"
	eval "n_$m=$n"
done
# ground truth: soft records exactly what step records
[ "$n_soft" = "$n_step" ] || die "segfault: soft recorded $n_soft instructions, step $n_step"
note "ok text report: segfault, $n_step instructions (step and soft)"

# ---- JSON report: parses, and says what the text says ---------------------
run_report "$T/seg.json" "$T/err" -q --method=soft --format=json "$TESTPROGS/segfault"
expect_rc 0 "segfault json"
python3 -m json.tool "$T/seg.json" >/dev/null || { cat "$T/seg.json" >&2; die "the JSON report does not parse"; }
python3 - "$T/seg.json" "$T/seg.soft.txt" "$n_soft" "${crash#*:}" "${l_process#*:}" "${l_parse#*:}" \
	"${l_main#*:}" <<'PY' || die "the JSON report disagrees with the text report"
import json, re, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
n = int(sys.argv[3])
lines = [int(x) for x in sys.argv[4:8]]
def want(cond, what):
    if not cond:
        sys.exit("json: " + what)
st = j["stop"]
want(st["kind"] == "signal" and st["signal"] == "SIGSEGV" and st["signo"] == 11, "stop %r" % st)
want(st["message"] == "Program received signal SIGSEGV, Segmentation fault.", "message")
want(st["function"] == "lookup" and st["file"] == "segfault.c" and st["line"] == lines[0], "stop place %r" % st)
bt = j["backtrace"]
want([f["function"] for f in bt[:4]] == ["lookup", "process", "parse", "main"], "backtrace %r" % bt[:4])
want([f["line"] for f in bt[:4]] == lines, "backtrace lines %r" % [f["line"] for f in bt[:4]])
want([f["level"] for f in bt] == list(range(len(bt))), "backtrace levels")
# every frame as the text report prints it: same pc, function and line
for f in bt:
    m = re.search(r"^#%-2d (0x[0-9a-f]+) in (\S+) \(.*?\)(?: at \S+:(\d+))?" % f["level"], text, re.M)
    want(m and int(m.group(1), 16) == int(f["pc"], 16) and m.group(2) == f["function"] and
         int(m.group(3) or 0) == f["line"], "frame %d differs from the text: %r" % (f["level"], f))
want(j["calls"] and j["calls"][-1]["function"] == "lookup", "last call segment")
want(len(j["calls"]) == 20 and len(j["lines"]) == 10 and len(j["instructions"]) == 20, "section sizes")
want(j["lines"][-1]["function"] == "lookup" and j["lines"][-1]["line"] == lines[0], "last line")
last = j["instructions"][-1]
want(last["number"] == n + 1 and int(last["pc"], 16) == int(st["pc"], 16), "last instruction %r" % last)
nums = [i["number"] for i in j["instructions"]]
want(nums == list(range(n - 18, n + 2)), "instruction numbers")
r = j["record"]
want(r["method"] == "soft" and r["instructions"] == n and r["function_segments"] >= 20, "record %r" % r)
PY
# --calls/--lines/--insns size the sections
run_report "$T/small.json" "$T/err" -q --method=soft --format=json --calls=3 --lines=2 --insns=5 \
	"$TESTPROGS/segfault"
expect_rc 0 "segfault json, small"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if (len(j["calls"]), len(j["lines"]), len(j["instructions"])) == (3, 2, 5) else "sizes %d %d %d" % (len(j["calls"]), len(j["lines"]), len(j["instructions"])))' "$T/small.json" ||
	die "--calls=3 --lines=2 --insns=5 not obeyed"
note "ok json report"

# ---- --from/--until: the count equals gdb record full's -------------------
until=$(line_of fib.c 'printf(')
CMDS=('break fib' run record delete "break $until" continue 'info record')
gdb_batch -- "$TESTPROGS/fib" >"$T/gdb.fib" </dev/null
want=$(sed -n 's/^Log contains \([0-9]*\) instructions\.$/\1/p' "$T/gdb.fib")
[ -n "$want" ] || { cat "$T/gdb.fib" >&2; die "no instruction count from gdb record full"; }
for m in soft step; do
	run_report "$T/fib.$m" "$T/err" -q --method=$m --from=fib --until="$until" --calls=1000 "$TESTPROGS/fib"
	expect_rc 0 "fib --from/--until ($m)"
	has "$T/fib.$m" '^Stopped at the --until location \(breakpoint [0-9]+\)\.$' "fib ($m) stop"
	has "$T/fib.$m" "^0x[0-9a-f]{16} in main \([^)]*\) at $until\$|^main \([^)]*\) at $until\$" "fib ($m) stop place"
	has "$T/fib.$m" "^Recorded $want instructions in [0-9]+ function segments \(method $m, " "fib ($m) count = gdb's $want"
	# recording started in fib, which returned to main: main is the root
	# of the call tree and fib its first callee
	tree=$(sed -n '/^How execution got here/,/^$/p' "$T/fib.$m" | sed -n '2,3p')
	[[ $tree == main$'\t'*$'\n'"  fib"* ]] || { cat "$T/fib.$m" >&2; die "fib ($m): the tree is not main > fib"; }
done
run_report "$T/fib.json" "$T/err" -q --method=soft --format=json --calls=100000 --from=fib --until="$until" "$TESTPROGS/fib"
expect_rc 0 "fib json --until"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if j["stop"]["kind"] == "until" and j["trigger"] == "until" and j["calls"][0]["index"] == 1 and j["calls"][0]["function"] == "fib" and j["record"]["instructions"] == int(sys.argv[2]) else "stop %r record %r" % (j["stop"], j["record"]))' "$T/fib.json" "$want" ||
	die "fib json: not stopped at --until with gdb's count"
note "ok --from=fib --until=$until: $want instructions, as gdb record full"

# ---- programs that exit -----------------------------------------------------
run_report "$T/exit.txt" "$T/err" -q "$TESTPROGS/fib" 5
expect_rc 0 "fib exits"
has "$T/exit.txt" '^fib\(5\) = 5$' "fib's own output"
has "$T/exit.txt" '^The program is about to exit with code 0\.$' "fib exit"
has "$T/exit.txt" '^#0  __GI__exit \([^)]*\)' "fib exit backtrace"
# the program's output is its own (standard output, untouched); the
# JSON goes to -o
run_report "$T/exit.out" "$T/err" -q --format=json -o "$T/exit.json" "$TESTPROGS/fib" 5
expect_rc 0 "fib exits, json"
python3 -m json.tool "$T/exit.json" >/dev/null || { cat "$T/exit.json" >&2; die "json with program output does not parse"; }
[ "$(cat "$T/exit.out")" = "fib(5) = 5" ] || { cat "$T/exit.out" >&2; die "fib's output is not exactly its own"; }
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stop"]; sys.exit(0 if s["kind"] == "exit" and s["exit_code"] == 0 else repr(s))' "$T/exit.json" ||
	die "fib json: not an exit with code 0"
# waiter exits with code 2 when it cannot open DIR/ctl
run_report "$T/exit2.txt" "$T/err" -q --calls=1000 "$TESTPROGS/waiter" "$T/no-such-dir"
expect_rc 0 "waiter exits 2"
has "$T/exit2.txt" '^The program is about to exit with code 2\.$' "waiter exit code"
has "$T/exit2.txt" '^ +step( ×[0-9]+)?	at waiter\.c:' "waiter's calls of step"
note "ok exits"

# ---- -p: attach to a running program, report, detach -----------------------
d=$T/attach
mkdir -p "$d"
mkfifo "$d/ctl" "$d/go" "$d/err"
exec 3<>"$d/ctl" 4<>"$d/go"
"$TESTPROGS/waiter" "$d" >"$d/out" 2>&1 &
pid=$!
on_exit "kill $pid 2>/dev/null"
read -r -t 60 -u 3 p || die "waiter did not start"
[ "$p" = "$pid" ] || die "waiter says pid $p, started $pid"
"$R" -p "$pid" --method=soft --calls=1000 -o "$d/report" 2>"$d/err" &
rpid=$!
exec 5<"$d/err"
# ptdbg-report says when it records; only then is the program released
read -r -t 120 -u 5 line || die "no word from ptdbg-report -p"
[[ $line == "ptdbg-report: recording the process from now (method soft)" ]] || die "ptdbg-report -p said: $line"
echo go >&4
rc=0
wait "$rpid" || rc=$?
cat <&5 >"$d/err.rest"
[ "$rc" -eq 0 ] || { cat "$d/err.rest" >&2; die "ptdbg-report -p: exit status $rc"; }
has "$d/report" '^The program is about to exit with code 0\.$' "-p report stop"
has "$d/report" '^ +step( ×[0-9]+)?	at waiter\.c:' "-p report calls of step"
# detached: the program finishes on its own, unharmed
want_sum=0
for ((i = 0; i < 10; i++)); do want_sum=$(((want_sum * 31 + i) & 0xffffffff)); done
read -r -t 60 -u 3 word sum || die "waiter did not finish after the report"
[ "$word $sum" = "sum $want_sum" ] || die "waiter answered '$word $sum', expected 'sum $want_sum'"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 0 ] || die "waiter exited with $rc after ptdbg-report -p"
has "$d/out" "^waiter done $want_sum\$" "waiter's output"
note "ok -p"

# ---- bad arguments ------------------------------------------------------------
bad() { # status pattern args...
	local st=$1 pat=$2
	shift 2
	run_report "$T/out" "$T/err" "$@"
	expect_rc "$st" "ptdbg-report $*"
	has "$T/err" "$pat" "ptdbg-report $*"
	! grep -q '^fib(' "$T/out" "$T/err" || die "ptdbg-report $*: the program ran"
}
bad 2 '^ptdbg-report: no program given$'
bad 2 "unrecognized option '--bogus'" --bogus "$TESTPROGS/fib"
bad 2 "^ptdbg-report: unknown format 'xml' \(valid: text, json, perfetto, folded, svg\)\$" --format=xml "$TESTPROGS/fib"
bad 2 "^ptdbg-report: invalid number 'abc'\$" --calls=abc "$TESTPROGS/fib"
bad 2 "^ptdbg-report: invalid number '-1'\$" --insns=-1 "$TESTPROGS/fib"
bad 2 "^ptdbg-report: invalid process id 'abc'\$" -p abc
bad 2 "unknown recording method 'fast'" --method=fast "$TESTPROGS/fib"
bad 1 "^ptdbg-report: cannot run '$T/nonexistent': No such file or directory\$" "$T/nonexistent"
bad 1 '^ptdbg-report: cannot attach to 999999999: ' -p 999999999
bad 1 "^ptdbg-report: cannot write '$T/no/such/dir': No such file or directory\$" -o "$T/no/such/dir" "$TESTPROGS/fib"
bad 1 'Function "nosuchfn" not defined' -q -o "$T/rep" --from=nosuchfn "$TESTPROGS/fib"
[ ! -e "$T/rep" ] || die "a failed run left its report file behind"
run_report "$T/out" "$T/err" --help
expect_rc 0 "--help"
has "$T/out" '--until=LOCATION' "--help"
run_report "$T/out" "$T/err" --version
expect_rc 0 "--version"
has "$T/out" '^ptdbg-report [0-9]+\.[0-9]+$' "--version"
note "ok bad arguments"
echo ok
