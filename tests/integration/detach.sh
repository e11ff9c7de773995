#!/usr/bin/env bash
# Detach: ptdbg launches testprogs/waiter, stops at breakpoints in step(),
# records and steps a little, and detaches.  The program must then run on
# by itself: it hands over its pid through a fifo and blocks, and while it
# waits the test checks that it is no longer traced and that every
# executable file mapping (the program, libc, ld.so) is byte-for-byte the
# file, i.e. no int3 or other patch of ptdbg's is left.  Released, it
# calls step() again (which a leftover int3 would turn into SIGTRAP) and
# must print and send the right checksum.
. "$(dirname "$0")/lib.bash"

need_prereqs waiter
after_loop=$(line_of waiter.c 'snprintf(path, sizeof(path), "%s/ctl"')

# The checksum step() computes over 0..9, in 32-bit unsigned arithmetic.
want=0
for ((i = 0; i < 10; i++)); do want=$(((want * 31 + i) & 0xffffffff)); done

# The text of mapping START-END (file offset OFF, file FILE) in process
# PID equals the file's bytes (up to the end of the file).
same_as_file() {
	local pid=$1 start=$2 end=$3 off=$4 file=$5 size len
	size=$(stat -L -c %s "$file")
	len=$((end - start))
	[ $((off + len)) -le "$size" ] || len=$((size - off))
	[ "$len" -gt 0 ] || return 0
	cmp -s -n "$len" \
		<(dd if="/proc/$pid/mem" iflag=skip_bytes,count_bytes skip="$start" count="$len" status=none) \
		<(dd if="$file" iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none)
}

check_method() {
	local m=$1 d=$TMPDIR/$1 pid p line ok=1 n=0 start end perms off path
	mkdir -p "$d"
	mkfifo "$d/ctl" "$d/go"
	# Holding both ends of the fifos: opening them never blocks, and a
	# read cannot see end-of-file early (the guard timeouts only turn a
	# dead program into a failure instead of a hang).
	exec 3<>"$d/ctl" 4<>"$d/go"
	CMDS=('break step' "break $after_loop" run record next stepi continue
	      'info record' reverse-stepi continue continue continue continue detach)
	ptdbg_batch --method="$m" -- "$TESTPROGS/waiter" "$d" >"$d/ptdbg.out"
	rc=$?
	cat "$d/ptdbg.out" >&2
	[ "$rc" = 0 ] || die "ptdbg ($m) exited with $rc"
	pid=$(sed -n 's/^\[Inferior 1 (process \([0-9]*\)) detached\]$/\1/p' "$d/ptdbg.out")
	[ -n "$pid" ] || die "ptdbg ($m) did not say it detached"
	# The program is not our child: if the test fails, do not leave it
	# behind (it is only killed if it is still this waiter).
	on_exit "grep -qs waiter /proc/$pid/comm && kill -9 $pid"
	read -r -t 30 -u 3 p || die "($m) the program did not run on after detach (state: $(grep State: /proc/$pid/status 2>/dev/null))"
	[ "$p" = "$pid" ] || die "($m) pid from the program $p, ptdbg said $pid"
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$pid/status" ||
		die "($m) still traced after detach: $(grep TracerPid "/proc/$pid/status")"
	while read -r range perms off _ _ path; do
		[ "$perms" = r-xp ] && [ "${path:0:1}" = / ] && [ -f "$path" ] || continue
		start=$((16#${range%-*})); end=$((16#${range#*-}))
		n=$((n + 1))
		if ! same_as_file "$pid" "$start" "$end" "$((16#$off))" "$path"; then
			note "($m) text of $path at $range differs from the file"
			ok=0
		fi
	done <"/proc/$pid/maps"
	[ "$n" -ge 2 ] || die "($m) found only $n executable file mappings to check"
	echo go >&4
	read -r -t 30 -u 3 line || die "($m) the program died after it was released (a breakpoint left behind?)"
	[ "$line" = "sum $want" ] || die "($m) program sent '$line', expected 'sum $want'"
	grep -qx "waiter done $want" "$d/ptdbg.out" || die "($m) program output missing"
	exec 3<&- 4<&-
	[ "$ok" = 1 ] || die "($m) ptdbg left its marks in the program's text"
	note "ok detach ($m): $n text mappings intact, checksum $want"
}

methods=$(ptdbg_methods) || exit 1 # step and soft must be among them
for m in $methods; do
	check_method "$m"
done
