#!/usr/bin/env bash
# Runs every test and ends with "N passed, N failed".
#   - each cmocka binary $B/tests/test-*: its per-test results are counted;
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
failed=()
logdir="$top/$B/test-logs"
rm -rf "$logdir"; mkdir -p "$logdir"

for t in "$B"/tests/test-*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	timeout 300 "$t" >"$logdir/$name.log" 2>&1
	rc=$?
	p=$(grep -Eo '^\[  PASSED  \] [0-9]+' "$logdir/$name.log" | awk '{s+=$4} END {print s+0}')
	f=$(grep -Eo '^\[  FAILED  \] [0-9]+ test' "$logdir/$name.log" | awk '{s+=$4} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$f" -ne 0 ]; then failed+=("$name"); echo "FAIL $name (see $logdir/$name.log)"; sed -n '1,40p' "$logdir/$name.log" | grep -E 'FAIL|ERROR|error|Assert' | head -10; else echo "ok   $name ($p)"; fi
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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
