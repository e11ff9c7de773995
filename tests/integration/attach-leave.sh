#!/usr/bin/env bash
# ptdbg attaches to testprogs/busy, records it (soft, then step) while its
# threads run, and goes away in each way a user can make it go: `detach`
# and `quit` at a breakpoint reached mid-run, `detach` after Ctrl-C
# (SIGINT) interrupted the running program, and SIGTERM and SIGHUP while
# the program runs under the recorder with our int3s armed.  Afterwards every
# thread of the program (those from before the attach and those created
# while recording) must be untraced and have the CPU mask it had before
# ptdbg came (ptdbg pins the threads to its CPU while attached), every
# executable mapping must equal its file, and the program must finish
# with the same checksum as a run nobody touched.  Driven through fifos
# and echo markers; no sleeps.
. "$(dirname "$0")/lib.bash"

need_prereqs busy
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || die "needs 2 CPUs to tell a pinned thread from an unpinned one (have $ncpu)"
all_cpus="0-$((ncpu - 1))"

# A run nobody touches gives the checksum to expect.
busy_reference

send() { pt_send "$@"; }

# Sends CMD without waiting for it to finish (continue runs until a stop).
send_async() {
	printf '%s\n' "$1" >&"${PT[1]}"
}

wait_for() {
	local line
	while IFS= read -r -t 120 -u "${PT[0]}" line; do
		printf '%s\n' "$line" >>"$transcript"
		[[ $line == *"$1"* ]] && return 0
	done
	cat "$transcript" >&2
	die "ptdbg never printed '$1'"
}

# run METHOD HOW: one attach, record, leave, check.
run() {
	local m=$1 how=$2 d=$TMPDIR/$1-$2 pid p line before after tid mask tracer n
	transcript=$d/transcript
	mkdir -p "$d"; mkfifo "$d/ctl" "$d/go"
	exec 3<>"$d/ctl" 4<>"$d/go"
	taskset -c "$all_cpus" "$TESTPROGS/busy" "$d" >"$d/out" 2>&1 &
	pid=$!
	read -r -t 60 -u 3 p || die "$m/$how: busy did not start"
	[ "$p" = "$pid" ] || die "$m/$how: busy says pid $p, started $pid"
	before=$(threads_state "$pid")

	coproc PT { exec "$PTDBG" -q -p "$pid" 2>&1; }
	local ptdbg_pid=$PT_PID
	: >"$transcript"
	[ "$how" = detach ] || [ "$how" = quit ] && send 'break halfway'
	send "record $m"
	send 'info record'
	grep -q "Active record target: ptdbg-$m" "$transcript" || { cat "$transcript" >&2; die "$m/$how: not recording"; }
	# While attached and stopped, the threads run pinned to one CPU.
	n=$(threads_state "$pid" | awk -v all="$all_cpus" '$2 != all' | wc -l)
	[ "$n" -ge 2 ] || { threads_state "$pid" >&2; die "$m/$how: expected the threads pinned while attached"; }

	send_async continue
	echo go >&4
	read -r -t 120 -u 3 line || die "$m/$how: busy never started its threads"
	[ "$line" = started ] || die "$m/$how: busy said '$line'"
	case $how in
	detach)
		wait_for 'Breakpoint 1, halfway'
		send detach
		grep -q "\[Inferior 1 (process $pid) detached\]" "$transcript" || { cat "$transcript" >&2; die "$m/detach: no detach message"; }
		send_async quit
		wait "$ptdbg_pid" 2>/dev/null
		;;
	quit)
		# quit with an attached program detaches it, as gdb does
		wait_for 'Breakpoint 1, halfway'
		send_async quit
		wait "$ptdbg_pid" 2>/dev/null
		;;
	INT)
		# Ctrl-C interrupts the recorded run, as in gdb, and ptdbg
		# stays; then it detaches
		kill -INT "$ptdbg_pid"
		wait_for 'received signal SIGINT, Interrupt.'
		send detach
		send_async quit
		wait "$ptdbg_pid" 2>/dev/null
		;;
	TERM | HUP)
		# The program is running under the recorder now (its three
		# threads just started their loops, which take minutes when
		# recorded): ptdbg goes mid-run.
		kill -"$how" "$ptdbg_pid"
		wait "$ptdbg_pid" 2>/dev/null
		;;
	esac

	# Released: it finishes its loops at full speed and reports.
	read -r -t 120 -u 3 line || { cat "$transcript" "$d/out" >&2; die "$m/$how: the program did not finish (died?)"; }
	[ "$line" = "$want" ] || die "$m/$how: the program computed '$line', expected '$want' (corrupted)"
	after=$(threads_state "$pid")
	[ "$(printf '%s\n' "$after" | wc -l)" -eq 4 ] || { printf '%s\n' "$after" >&2; die "$m/$how: expected 4 threads"; }
	while read -r tid mask tracer; do
		[ "$tracer" = 0 ] || die "$m/$how: thread $tid still traced by $tracer"
		[ "$mask" = "$all_cpus" ] || {
			printf 'before:\n%s\nafter:\n%s\n' "$before" "$after" >&2
			die "$m/$how: thread $tid runs on CPUs '$mask', it had '$all_cpus'"
		}
	done <<<"$after"
	text_intact "$pid" || die "$m/$how: program text changed"
	echo leave >&4
	wait "$pid" || die "$m/$how: the program exited with $?"
	exec 3<&- 4<&-
	note "ok $m/$how"
}

for m in soft step; do
	for how in detach quit INT TERM HUP; do
		run "$m" "$how"
	done
done

# ptdbg's own pin is not inherited by programs launched after
# `set pin-cpu off`, and launched programs start with ptdbg's mask.
out=$(taskset -c "$all_cpus" "$PTDBG" -batch -ex run -ex 'set pin-cpu off' -ex run \
	--args "$(command -v grep)" Cpus_allowed_list /proc/self/status 2>&1)
masks=$(printf '%s\n' "$out" | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p')
[ "$(printf '%s\n' "$masks" | wc -l)" = 2 ] || { printf '%s\n' "$out" >&2; die "expected two runs"; }
first=$(printf '%s\n' "$masks" | sed -n 1p)
second=$(printf '%s\n' "$masks" | sed -n 2p)
[ "$first" != "$all_cpus" ] || die "pinned run got every CPU ('$first')"
[ "$second" = "$all_cpus" ] || die "run after 'set pin-cpu off' got CPUs '$second', expected '$all_cpus'"
note "ok pin-cpu off"
