#!/usr/bin/env bash
# Runs every test and ends with "N passed, N failed, N skipped".
#   - each cmocka binary $B/tests/test-*: its per-test results are counted,
#     and a test that called cmocka's skip() is counted as skipped and
#     named (on its binary's line and in a "skipped:" line at the end);
#   - each tests/integration/*.sh: one test; exit 0 = pass.  Scripts get
#     B (build dir), PTDBG (the shell), TESTPROGS (built test programs) and
#     TMPDIR (a fresh directory) in the environment.
# A test that takes longer than its guard timeout fails.
# Tests run PTD_TEST_JOBS at a time (default: the number of CPUs, at most
# 4); results print in the order above, each with the seconds it took.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=${B:-build}
# the build directory, absolute (B may be either)
case $B in /*) BD=$B ;; *) BD=$top/$B ;; esac
export B BD PTDBG="$BD/bin/ptdbg" TESTPROGS="$top/testprogs/build" TOP="$top"
pass=0
fail=0
skipped=0
failed=()
skipped_names=()
logdir="$BD/test-logs"
resdir="$logdir/.results"
rm -rf "$logdir"; mkdir -p "$resdir"
jobs_max=${PTD_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs_max" -ge 1 ] 2>/dev/null || jobs_max=1
[ "$jobs_max" -le 4 ] || jobs_max=4

list=()
for t in "$B"/tests/test-*; do
	[ -x "$t" ] && list+=("unit:$t")
done
for s in tests/integration/*.sh; do
	[ -f "$s" ] && list+=("script:$s")
done

# One test; its result goes to $resdir/$i as "rc secs".
run_one() { # INDEX KIND PATH
	local i=$1 kind=$2 path=$3 name rc start=$SECONDS tmp
	if [ "$kind" = unit ]; then
		name=$(basename "$path")
		timeout 300 "$path" >"$logdir/$name.log" 2>&1 </dev/null
		rc=$?
	else
		name=$(basename "$path" .sh)
		tmp=$(mktemp -d)
		TMPDIR="$tmp" timeout 300 bash "$path" >"$logdir/$name.log" 2>&1 </dev/null
		rc=$?
		rm -rf "$tmp"
	fi
	echo "$rc $((SECONDS - start))" >"$resdir/$i.tmp" && mv "$resdir/$i.tmp" "$resdir/$i"
}

report_unit() { # NAME RC SECS
	local name=$1 rc=$2 secs=$3 p f k sk sknote t
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
	if [ "$f" -ne 0 ]; then
		failed+=("$name"); echo "FAIL $name (rc=$rc, ${secs}s, see $logdir/$name.log)"
		sed -n '1,40p' "$logdir/$name.log" | grep -E 'FAIL|ERROR|error|Assert' | head -10
	else
		echo "ok   $name ($p$sknote, ${secs}s)"
	fi
}

report_script() { # NAME RC SECS
	local name=$1 rc=$2 secs=$3
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1)); echo "ok   $name (${secs}s)"
	else
		fail=$((fail + 1)); failed+=("$name")
		echo "FAIL $name (rc=$rc, ${secs}s, see $logdir/$name.log)"
		tail -n 15 "$logdir/$name.log" | sed 's/^/     /'
	fi
}

next=0
flush() { # prints the finished results in list order
	local kind path rc secs
	while [ "$next" -lt "${#list[@]}" ] && [ -f "$resdir/$next" ]; do
		kind=${list[$next]%%:*}; path=${list[$next]#*:}
		read -r rc secs <"$resdir/$next"
		if [ "$kind" = unit ]; then
			report_unit "$(basename "$path")" "$rc" "$secs"
		else
			report_script "$(basename "$path" .sh)" "$rc" "$secs"
		fi
		next=$((next + 1))
	done
}

start_all=$SECONDS
for i in "${!list[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
		flush
	done
	run_one "$i" "${list[$i]%%:*}" "${list[$i]#*:}" &
	flush
done
while [ "$next" -lt "${#list[@]}" ]; do
	[ -n "$(jobs -rp)" ] || { flush; break; }
	wait -n
	flush
done
wait
flush
rm -rf "$resdir"

[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
[ ${#skipped_names[@]} -eq 0 ] || echo "skipped: ${skipped_names[*]}"
echo "($((SECONDS - start_all))s, $jobs_max at a time)"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
