#!/usr/bin/env bash
# ptdbg itself killed with SIGTERM while it records an attached program
# with the soft recorder (int3s on the program's branches) and holds a
# breakpoint: the kernel detaches the program when ptdbg dies, and ptdbg's
# handler must have put every original code byte back first.  The program's
# executable file mappings must equal the files, and released, it must
# finish with the right checksum (a leftover int3 would kill it with
# SIGTRAP).  Driven through a pipe with echo markers; no sleeps.
. "$(dirname "$0")/lib.bash"

need_prereqs waiter
want=0
for ((i = 0; i < 10; i++)); do want=$(((want * 31 + i) & 0xffffffff)); done

send() { pt_send "$@"; }

d=$TMPDIR/t
transcript=$d/transcript
mkdir -p "$d"
mkfifo "$d/ctl" "$d/go"
exec 3<>"$d/ctl" 4<>"$d/go"
"$TESTPROGS/waiter" "$d" >"$d/out" 2>&1 &
pid=$!
on_exit "kill -9 $pid 2>/dev/null"
read -r -t 30 -u 3 p || die "waiter did not start"
[ "$p" = "$pid" ] || die "waiter says pid $p, started $pid"

coproc PT { exec "$PTDBG" -q -p "$pid" 2>&1; }
ptdbg_pid=$PT_PID
: >"$transcript"
send 'break step'
send 'record soft'
send 'info record'
grep -q 'Active record target: ptdbg-soft' "$transcript" || { cat "$transcript" >&2; die "not recording with soft"; }
# Our bytes are in its code now (the breakpoint at least).
step_addr=$(sed -n 's/.*Breakpoint 1 at \(0x[0-9a-f]*\):.*/\1/p' "$transcript")
[ -n "$step_addr" ] || { cat "$transcript" >&2; die "no breakpoint address"; }
byte=$(dd if="/proc/$pid/mem" iflag=skip_bytes,count_bytes skip=$((step_addr)) count=1 status=none | od -An -tx1 | tr -d ' ')
[ "$byte" = cc ] || die "expected our int3 at $step_addr while attached, found '$byte'"

kill -TERM "$ptdbg_pid"
wait "$ptdbg_pid" 2>/dev/null
# The program is on its own now (still blocked reading go): check its text.
grep -q '^TracerPid:[[:space:]]*0$' "/proc/$pid/status" || die "still traced after ptdbg died"
while read -r range perms off dev inode path; do
	[[ $perms == *x* && $path == /* ]] || continue
	start=$((16#${range%-*})); end=$((16#${range#*-})); off=$((16#$off))
	size=$(stat -L -c %s "$path"); len=$((end - start))
	[ $((off + len)) -le "$size" ] || len=$((size - off))
	cmp -s -n "$len" \
		<(dd if="/proc/$pid/mem" iflag=skip_bytes,count_bytes skip="$start" count="$len" status=none) \
		<(dd if="$path" iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none) ||
		die "text of $path at $range differs from the file after ptdbg was killed"
done <"/proc/$pid/maps"
echo go >&4
read -r -t 30 -u 3 line || die "the program did not finish"
[ "$line" = "sum $want" ] || die "program sent '$line', expected 'sum $want'"
wait "$pid"
rc=$?
[ "$rc" = 0 ] || die "program exited with $rc"
exec 3<&- 4<&-
note "ok sigterm"
