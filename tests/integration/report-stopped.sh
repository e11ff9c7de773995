#!/usr/bin/env bash
# ptdbg-report -p on a program stopped with SIGSTOP (a job stopped with
# Ctrl-Z, kill -STOP): seizing a group-stopped thread gives its group-stop
# first and the attach's interrupt stop when it is resumed, and the
# session reported that second stop as the program receiving SIGTRAP
# ("Signal code 32773"), which the report took for a crash ("The program
# dies of SIGTRAP"); SIGSTOP itself counted as a crash too.  Neither is:
# the report must go on recording until its trigger (here SIGINT, a
# snapshot), and the program finish as if nobody had been there.
# Driven through fifos; the only loop waits for /proc to show the stop.
. "$(dirname "$0")/lib.bash"

need_prereqs busy

d=$TMPDIR/stopped
mkdir -p "$d"; mkfifo "$d/ctl" "$d/go" "$d/err"
exec 3<>"$d/ctl" 4<>"$d/go"
"$TESTPROGS/busy" "$d" >"$d/out" 2>&1 &
pid=$!
read -r -t 60 -u 3 p || die "busy did not start"
kill -STOP "$pid"
for ((i = 0; i < 10000000; i++)); do
	[ "$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f1)" = T ] && break
done
[ "$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f1)" = T ] || die "busy did not stop"

"$BD/bin/ptdbg-report" --method=soft -p "$pid" -o "$d/report" 2>"$d/err" &
rp=$!
exec 5<"$d/err"
while IFS= read -r -t 120 -u 5 line; do
	printf '%s\n' "$line" >>"$d/err.txt"
	[[ $line == *"recording the process"* ]] && break
done || die "ptdbg-report never started recording"
kill -INT "$rp" 2>/dev/null
wait "$rp"
st=$?
cat <&5 >>"$d/err.txt"
exec 5<&-
[ "$st" = 0 ] || { cat "$d/err.txt" "$d/report" >&2; die "ptdbg-report ended with status $st"; }
qgrep '^Snapshot: ptdbg-report received SIGINT' "$d/report" ||
	{ cat "$d/err.txt" "$d/report" >&2; die "the report is not the snapshot asked for"; }
! qgrep 'received signal\|dies of' "$d/report" ||
	{ cat "$d/report" >&2; die "the stop was reported as a crash"; }

kill -CONT "$pid"
echo go >&4
read -r -t 120 -u 3 line && [ "$line" = started ] || die "busy never started its threads"
read -r -t 120 -u 3 line || die "busy did not finish (died?)"
[[ $line == "sum "* ]] || die "busy said '$line'"
[ "$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$pid/status")" = 0 ] || die "busy is still traced"
text_intact "$pid" || die "busy's code changed"
echo leave >&4
wait "$pid" || die "busy exited with $?"
