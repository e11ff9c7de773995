#!/usr/bin/env bash
# The pt and bts settings reach the recorders (simulated PMU), and what a
# recorder refuses says why: a buffer size is what `info record` shows, a
# pt buffer below two pages, kernel tracing (the simulated PMU sees user
# mode only), a filter naming no function and more filters than
# caps/num_address_ranges are refused with their cause; filters given as a
# function, a file or on the command line are resolved and accepted, and a
# filter on fib records exactly what the step recorder records in fib.
# `info record` and ptdbg-report say the PMU is simulated.  Without the
# simulation on this machine, `record pt` and `record bts` fail with the
# same reason `ptdbg doctor` gives.
. "$(dirname "$0")/lib.bash"
need_prereqs fib

log=$TMPDIR/pt.log
CMDS=('break main' run
      'set record pt buffer-size 64K' 'record pt' 'info record' 'record stop'
      'echo @@SMALL\n' 'set record pt buffer-size 4K' 'record pt'
      'echo @@KERNEL\n' 'set record pt buffer-size 64K' 'set record pt kernel on' 'record pt'
      'echo @@NOFN\n' 'set record pt kernel off' 'record pt filter no_such_fn' 'record pt'
      'echo @@THREE\n' 'record pt filter none' 'record pt filter fib' 'record pt filter main'
      "record pt filter $TESTPROGS/fib" 'record pt'
      'echo @@TWO\n' 'record pt filter none' 'record pt filter fib' 'record pt filter main'
      'set record pt mtc on' 'set record pt psb-period 5' 'record pt' 'info record' next
      'info record')
PTDBG_SIMULATE_PMU=pt ptdbg_batch -- "$TESTPROGS/fib" >"$log"
cat "$log" >&2
sect() { sed -n "/^@@$1\$/,/^@@/p" "$log"; }
grep -qxF 'PMU: intel_pt (simulated), PTDBG_SIMULATE_PMU: not this machine'"'"'s hardware.' "$log" ||
	die "info record does not say the PMU is simulated"
[ "$(grep -c '^Buffer size: 64kB\.$' "$log")" -ge 2 ] || die "the pt buffer size set is not the recorder's"
sect SMALL | qgrep 'cannot use an Intel PT buffer of 4096 bytes: .*at least 2 pages' ||
	die "a 4K pt buffer is not refused with its cause"
sect KERNEL | qgrep "cannot open the intel_pt event for thread [0-9]*: operation not supported (simulated)" ||
	die "kernel tracing under the simulated PMU is not refused"
sect NOFN | qgrep -xF "cannot record with method 'pt': cannot use the pt filter \"no_such_fn\": no function \"no_such_fn\"" ||
	die "a filter naming no function is not refused with its name"
sect THREE | qgrep -F 'cannot set 3 address filters: this cpu'"'"'s Intel PT has 2 address ranges' ||
	die "more filters than address ranges are not refused"
sect TWO | qgrep '^Active record target: ptdbg-pt$' || die "two resolved filters (fib, main) not accepted"
sect TWO | qgrep '^Recorded [1-9][0-9]* instructions' || die "nothing recorded with two filters"

# a filter on fib traces exactly fib's instructions: the step recorder's
# history of the same span, restricted to fib, is the filtered pt history
for m in pt step; do
	CMDS=('break main' run)
	[ "$m" = pt ] && CMDS+=('record pt filter fib')
	CMDS+=("record $m" next next 'set record instruction-history-size unlimited'
	       'echo @@HISTORY\n' 'record instruction-history')
	PTDBG_SIMULATE_PMU=pt ptdbg_batch -- "$TESTPROGS/fib" >"$TMPDIR/filter-$m.log"
	sed -n '/^@@HISTORY$/,$p' "$TMPDIR/filter-$m.log" | grep -E '^[0-9]+'$'\t' >"$TMPDIR/filter-$m.lines"
done
[ -s "$TMPDIR/filter-pt.lines" ] || { cat "$TMPDIR/filter-pt.log" >&2; die "nothing recorded with a filter on fib"; }
grep -v '<fib+[0-9]*>' "$TMPDIR/filter-pt.lines" >&2 && die "the filtered pt history has code outside fib"
grep -o '0x[0-9a-f]* <fib+[0-9]*>' "$TMPDIR/filter-pt.lines" >"$TMPDIR/filter-pt.pcs"
grep -o '0x[0-9a-f]* <fib+[0-9]*>' "$TMPDIR/filter-step.lines" >"$TMPDIR/filter-step.pcs"
diff -u "$TMPDIR/filter-step.pcs" "$TMPDIR/filter-pt.pcs" >&2 ||
	die "the filtered pt history is not step's history restricted to fib"
note "ok: a filter on fib records exactly fib's $(wc -l <"$TMPDIR/filter-pt.pcs") instructions"

# the command line: --pt-filter and --pt-buffer-size reach `record` (auto)
CMDS=('break main' run record 'info record')
PTDBG_SIMULATE_PMU=pt ptdbg_batch --pt-filter=fib --pt-buffer-size=32K -- "$TESTPROGS/fib" >"$log"
cat "$log" >&2
grep -q '^Active record target: ptdbg-pt$' "$log" || die "auto did not take the simulated pt with --pt-filter"
grep -q '^Buffer size: 32kB\.$' "$log" || die "--pt-buffer-size did not reach the recorder"
CMDS=('break main' run record)
PTDBG_SIMULATE_PMU=pt ptdbg_batch --pt-filter=nothing_here -- "$TESTPROGS/fib" >"$log"
grep -qF "cannot use the pt filter \"nothing_here\"" "$log" || { cat "$log" >&2; die "--pt-filter=nothing_here not refused at record"; }

# bts
CMDS=('break main' run 'set record bts buffer-size 8K' 'record bts' next 'info record')
PTDBG_SIMULATE_PMU=bts ptdbg_batch -- "$TESTPROGS/fib" >"$log"
cat "$log" >&2
grep -q '^PMU: bts .*(simulated), PTDBG_SIMULATE_PMU: not this machine'"'"'s hardware\.$' "$log" ||
	die "bts: info record does not say the PMU is simulated"
grep -q '^Buffer size: 8kB\.$' "$log" || die "the bts buffer size set is not the recorder's"

# ptdbg-report says so too (its last line, and the JSON)
REPORT=$BD/bin/ptdbg-report
[ -x "$REPORT" ] || die "ptdbg-report not built: $REPORT"
PTDBG_SIMULATE_PMU=pt "$REPORT" --method=pt "$TESTPROGS/fib" >"$log" 2>&1 || { cat "$log" >&2; die "ptdbg-report --method=pt failed"; }
grep -q '^Recorded [1-9][0-9]* instructions in [0-9]* function segments (method pt, simulated PMU, ' "$log" ||
	{ tail -n 3 "$log" >&2; die "ptdbg-report does not say the PMU is simulated"; }
PTDBG_SIMULATE_PMU=bts "$REPORT" --method=bts --format=json -o "$log" "$TESTPROGS/fib" >/dev/null 2>&1 ||
	die "ptdbg-report --method=bts failed"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["record"]; sys.exit(0 if r["method"] == "bts" and r["simulated_pmu"] is True else "record %r" % r)' "$log" ||
	die "ptdbg-report's JSON does not say the bts PMU is simulated"
env -u PTDBG_SIMULATE_PMU "$REPORT" --method=soft --format=json -o "$log" "$TESTPROGS/fib" >/dev/null 2>&1 ||
	die "ptdbg-report --method=soft failed"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["record"]; sys.exit(0 if r["simulated_pmu"] is False else "record %r" % r)' "$log" ||
	die "ptdbg-report's JSON says a soft recording is on a simulated PMU"

# this machine without simulation: record refuses as the doctor says
unset PTDBG_SIMULATE_PMU
"$PTDBG" doctor >"$TMPDIR/doctor.log" 2>&1 || die "ptdbg doctor failed"
for m in pt bts; do
	why=$(sed -n "s/^  $m *refused: //p" "$TMPDIR/doctor.log")
	if [ -z "$why" ]; then
		note "$m is usable here: nothing to compare"
		continue
	fi
	CMDS=('break main' run "record $m")
	ptdbg_batch -- "$TESTPROGS/fib" >"$log"
	grep -qxF "cannot record with method '$m': $why" "$log" ||
		{ cat "$log" >&2; die "record $m does not refuse with the doctor's reason: $why"; }
done
echo ok
