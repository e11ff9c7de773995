#!/usr/bin/env bash
# Runs every test and ends with "N passed, N failed, N skipped".
#   - each cmocka binary $B/tests/test-*: its per-test results are counted,
#     and a test that called cmocka's skip() is counted as skipped and
#     named (on its binary's line and in a "skipped:" line at the end);
#   - each tests/integration/*.sh: one test; exit 0 = pass.  Scripts get
#     B (build dir), PTDBG (the shell), TESTPROGS (built test programs) and
#     TMPDIR (a fresh directory) in the environment.
# A test that takes longer than its guard timeout fails.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=${B:-build}
export B PTDBG="$top/$B/bin/ptdbg" TESTPROGS="$top/testprogs/build" TOP="$top"
pass=0
fail=0
skipped=0
failed=()
skipped_names=()
logdir="$top/$B/test-logs"
rm -rf "$logdir"; mkdir -p "$logdir"

for t in "$B"/tests/test-*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	timeout 300 "$t" >"$logdir/$name.log" 2>&1
	rc=$?
	p=$(grep -Eo '^\[  PASSED  \] [0-9]+' "$logdir/$name.log" | awk '{s+=$4} END {print s+0}')
	f=$(grep -Eo '^\[  FAILED  \] [0-9]+ test' "$logdir/$name.log" | awk '{s+=$4} END {print s+0}')
	# cmocka: "[  SKIPPED ] N test(s), listed below:" then one
	# "[  SKIPPED ] NAME" line per skipped test.
	k=$(grep -Eo '^\[  SKIPPED \] [0-9]+ test\(s\), listed below' "$logdir/$name.log" | awk '{s+=$4} END {print s+0}')
	sk=$(sed -n '/^\[  SKIPPED \] [0-9]* test(s), listed below:/,/^$/p' "$logdir/$name.log" |
		sed -n 's/^\[  SKIPPED \] \([^ ]*\)$/\1/p' | tr '\n' ' ' | sed 's/ $//')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	pass=$((pass + p)); fail=$((fail + f)); skipped=$((skipped + k))
	for t in $sk; do skipped_names+=("$name:$t"); done
	sknote=""
	[ "$k" -eq 0 ] || sknote=", $k skipped: $sk"
	if [ "$f" -ne 0 ]; then failed+=("$name"); echo "FAIL $name (see $logdir/$name.log)"; sed -n '1,40p' "$logdir/$name.log" | grep -E 'FAIL|ERROR|error|Assert' | head -10; else echo "ok   $name ($p$sknote)"; fi
done

for s in tests/integration/*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	tmp=$(mktemp -d)
	TMPDIR="$tmp" timeout 300 bash "$s" >"$logdir/$name.log" 2>&1 </dev/null
	rc=$?
	rm -rf "$tmp"
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (rc=$rc, see $logdir/$name.log)"; tail -n 15 "$logdir/$name.log" | sed 's/^/     /'
	fi
done

[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
[ ${#skipped_names[@]} -eq 0 ] || echo "skipped: ${skipped_names[*]}"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
