#!/usr/bin/env bash
# ptdbg-report's machine formats checked against what they describe
# (tests/integration/report_check.py does the parsing):
#  - json: validated field by field against docs/report.schema.json;
#  - perfetto: parsed, slices nested properly, and every segment of the
#    shell's `record function-call-history` of the same recording lies in
#    the innermost slice of its function at its level;
#  - folded: the counts sum to the recorded instruction count and each
#    function's own count equals its segments' instructions;
#  - svg: parsed as XML; its boxes are the call slices, in time order;
#  - --threads=all: one track per thread, and both threads of rpt_thread
#    in the JSON; colour only with --color=always (never in a file).
# Programs: rpt_recurse (a call through a null pointer at the end of a
# recursion) and segfault, recorded with soft from main.
. "$(dirname "$0")/lib.bash"

need_prereqs rpt_recurse rpt_thread segfault
R=$BD/bin/ptdbg-report
CHECK=$TOP/tests/integration/report_check.py
SCHEMA=$TOP/docs/report.schema.json
[ -x "$R" ] || die "ptdbg-report not built: $R"
command -v python3 >/dev/null || die "python3 is needed to parse the reports"
T=$TMPDIR

report() { # out args...: a report that must succeed (exit status 0)
	local out=$1 rc=0
	shift
	"$R" -q --method=soft -o "$out" "$@" >"$T/prog.out" 2>"$T/err" </dev/null || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/err" >&2; die "ptdbg-report $*: exit status $rc"; }
}

for p in rpt_recurse segfault; do
	# the shell's function-call history of the same recording (soft from
	# main to the crash; addresses and numbers repeat with ASLR off)
	CMDS=('break main' run 'record soft' continue 'set record function-call-history-size unlimited'
		'record function-call-history /ci 1' 'info record')
	ptdbg_batch -- "$TESTPROGS/$p" >"$T/$p.calls" </dev/null
	n=$(sed -n 's/^Recorded \([0-9]*\) instructions in .*/\1/p' "$T/$p.calls")
	[ -n "$n" ] || { cat "$T/$p.calls" >&2; die "$p: no instruction count from the shell"; }

	report "$T/$p.json" --format=json "$TESTPROGS/$p"
	python3 "$CHECK" schema "$SCHEMA" "$T/$p.json" >&2 || die "$p: the JSON does not follow the schema"
	python3 - "$T/$p.json" "$n" <<'PY' || die "$p: the JSON report disagrees with the recording"
import json, sys
j = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert j["schema"] == "ptdbg-report" and j["version"] == 2, (j["schema"], j["version"])
assert j["trigger"] == "crash" and j["stop"]["kind"] == "signal" and j["stop"]["signal"] == "SIGSEGV", j["stop"]
assert j["stop"]["si_code_name"] == "SEGV_MAPERR" and j["stop"]["si_code"] == 1, j["stop"]
assert j["process"]["state"] == "crashed" and j["process"]["signal"] == "SIGSEGV", j["process"]
assert j["record"]["instructions"] == n, (j["record"], n)
assert j["registers"] and int(j["registers"]["rip"], 16) == int(j["stop"]["pc"], 16), j["registers"]
assert len(j["threads"]) == 1 and j["threads"][0]["stopped_here"], j["threads"]
assert j["threads"][0]["instructions_recorded"] == n
PY
	report "$T/$p.perfetto" --format=perfetto "$TESTPROGS/$p"
	python3 "$CHECK" perfetto "$T/$p.perfetto" "$T/$p.calls" >&2 || die "$p: Perfetto slices differ from the call history"
	report "$T/$p.folded" --format=folded "$TESTPROGS/$p"
	python3 "$CHECK" folded "$T/$p.folded" "$T/$p.calls" "$n" >&2 || die "$p: folded stacks differ from the call history"
	report "$T/$p.svg" --format=svg "$TESTPROGS/$p"
	python3 "$CHECK" svg "$T/$p.svg" "$T/$p.perfetto" >&2 || die "$p: the SVG boxes differ from the call history"
	note "ok $p: json, perfetto, folded, svg ($n instructions)"
done
# PLT stubs are named func@plt and have no line: no empty "at"
report "$T/segfault.txt" "$TESTPROGS/segfault"
grep -qE $'^ +strcmp@plt( \xc3\x97[0-9]+)?$' "$T/segfault.txt" ||
	{ cat "$T/segfault.txt" >&2; die "segfault: strcmp@plt not in the call tree without a line"; }
! grep -qE '	at *$' "$T/segfault.txt" || die "segfault: an empty 'at' in the report"
python3 -c 'import json,sys; c=[x for x in json.load(open(sys.argv[1]))["calls"] if x.get("function") == "strcmp@plt"]; sys.exit(0 if c and all(x["file"] is None and x["line"] == 0 for x in c) else repr(c))' \
	"$T/segfault.json" || die "segfault: strcmp@plt in the JSON calls without a line"
# rpt_recurse: a fault address of 0 from jumping there, the null pointer
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stop"]; sys.exit(0 if s["fault_address"] == "0x0" and s["pc"] == "0x0" else repr(s))' \
	"$T/rpt_recurse.json" || die "rpt_recurse: not a fault at address 0"

# ---- --threads=all: every thread ------------------------------------------
report "$T/thr.json" --format=json --threads=all "$TESTPROGS/rpt_thread"
python3 "$CHECK" schema "$SCHEMA" "$T/thr.json" >&2 || die "rpt_thread: the JSON does not follow the schema"
python3 - "$T/thr.json" <<'PY' || die "rpt_thread --threads=all: wrong threads"
import json, sys
j = json.load(open(sys.argv[1]))
th = j["threads"]
assert [t["num"] for t in th] == [1, 2], th
assert [t["stopped_here"] for t in th] == [False, True], th
assert j["stop"]["thread"] == 2 and j["stop"]["function"] == "worker", j["stop"]
assert j["stop"]["message"] == "Thread 2 received signal SIGSEGV, Segmentation fault.", j["stop"]["message"]
# the worker's path has its loop of fill calls; main waits in pthread_join
assert any(c["function"] == "fill" for c in th[1]["calls"]), th[1]["calls"]
assert any(f["function"] == "main" for f in th[0]["backtrace"]), th[0]["backtrace"]
assert th[1]["instructions_recorded"] > 0 and th[0]["instructions_recorded"] > 0
PY
report "$T/thr.perfetto" --format=perfetto --threads=all "$TESTPROGS/rpt_thread"
python3 - "$T/thr.perfetto" <<'PY' || die "rpt_thread --threads=all: not one Perfetto track per thread"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
tracks = {e["tid"] for e in ev if e["ph"] == "X"}
names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert len(tracks) == 2 and tracks == set(names), (tracks, names)
assert sorted(names.values()) == ["thread 1", "thread 2 (stopped here)"], names
assert any(e["name"] == "worker" for e in ev if e["ph"] == "X")
PY
report "$T/thr.svg" --format=svg --threads=all "$TESTPROGS/rpt_thread"
# two runs: thread 1's wait in pthread_join may take another path in each;
# the worker's path up to its crash is the same
python3 "$CHECK" svg "$T/thr.svg" "$T/thr.perfetto" 2 >&2 || die "rpt_thread: the SVG boxes differ from the slices"
note "ok --threads=all"

# ---- colour: only asked for, never in a file by default ---------------------
report "$T/plain.txt" "$TESTPROGS/rpt_recurse"
! grep -q $'\033' "$T/plain.txt" || die "colour escapes in a report written to a file"
report "$T/colour.txt" --color=always "$TESTPROGS/rpt_recurse"
grep -q $'^\033\\[1;31mProgram received signal SIGSEGV' "$T/colour.txt" || die "--color=always: the stop is not coloured"
[ "$(sed 's/\x1b\[[0-9;]*m//g' "$T/colour.txt" | grep -v '^Recorded ' | grep -v '^r[a-z0-9]* *0x' | md5sum)" = \
  "$(grep -v '^Recorded ' "$T/plain.txt" | grep -v '^r[a-z0-9]* *0x' | md5sum)" ] ||
	die "--color=always changes more than the colour"
note "ok colour"
echo ok
