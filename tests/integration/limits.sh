#!/usr/bin/env bash
# No silent limits in the shell: `run` and `set args` arguments of any
# length reach the program whole (they were cut at 4,096 bytes), display
# expressions of any length are kept whole (cut at 240), and a display
# format too long is refused with a message.
. "$(dirname "$0")/lib.bash"
need_prereqs fib

words=()
for ((i = 0; i < 1200; i++)); do words+=("word$i"); done
args="${words[*]}"
[ "${#args}" -gt 8000 ] || die "test arguments too short"

log=$TMPDIR/run.log
"$PTDBG" -batch -ex "run $args" --args /bin/echo >"$log" 2>&1 || die "ptdbg failed"
grep -qxF "$args" "$log" || die "run: the program did not get all ${#args} bytes of arguments"
"$PTDBG" -batch -ex "set args $args" -ex 'show args' -ex run --args /bin/echo >"$log" 2>&1 ||
	die "ptdbg failed"
grep -qxF "Argument list to give program being debugged when it is started is \"$args\"." "$log" ||
	die "show args does not show all the arguments"
[ "$(grep -cxF "$args" "$log")" = 1 ] || die "set args: the program did not get all the arguments"
"$PTDBG" -batch -ex 'show args' --args /bin/echo "$args" x >"$log" 2>&1 || die "ptdbg failed"
grep -qxF "Argument list to give program being debugged when it is started is \"$args x\"." "$log" ||
	die "--args: show args does not show all the arguments"

# 1+1+...+1 with 200 ones: 399 characters, the value 200.
expr=1
for ((i = 1; i < 200; i++)); do expr+=+1; done
log=$TMPDIR/display.log
"$PTDBG" -batch -ex 'break main' -ex run -ex "display $expr" -ex 'info display' -ex next \
	-ex 'display/xxxxxxxxxxxxxxxxxxxxxxxxxx 1' --args "$TESTPROGS/fib" >"$log" 2>&1
grep -qxF "1: $expr = 200" "$log" || { cat "$log" >&2; die "the long display expression was not kept whole"; }
grep -qxF "1:   y  $expr" "$log" || die "info display does not show the whole expression"
grep -q "^Invalid display format 'x*': too long\.$" "$log" || die "a too long display format is not refused"
echo ok
