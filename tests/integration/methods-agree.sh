#!/usr/bin/env bash
# Every recording method must give the step recorder's instruction
# sequence (the ground truth) on every test program, including what gdb's
# record full cannot follow (the vdso's rdtscp, the C library's AVX/EVEX
# string functions, printf): record from main to _exit, a signal that
# kills, or the crash, and compare the whole instruction history of the
# main thread.  Each method records its own run, so only deterministic
# runs can be compared: inside the vdso, clock_gettime's path depends on
# time (its seqlock retry, the clock source), so each stay in the vdso is
# compared as one marker line (entering and leaving it still count); the
# threads program is left out (its main thread's path through
# pthread_join depends on when the workers finish).
. "$(dirname "$0")/lib.bash"

# program | continues after `break main; run; record` to reach the end
progs=(
	"fib|1" "loops|1" "funcptr|1" "switch-O2|1" "tailcall-O2|1" "longjmp|1"
	"signal|2" "vdso|1" "dlopen|1" "segfault|1" "abort|1"
)
need_prereqs fib loops funcptr switch-O2 tailcall-O2 longjmp signal vdso dlopen segfault abort
need_gdb

# The vdso's address range (the same in every run with ASLR off), from gdb.
vdso=$(gdb -nx -batch -ex 'break main' -ex run -ex 'info proc mappings' "$TESTPROGS/vdso" 2>/dev/null |
	awk '$NF == "[vdso]" { print $1, $2; exit }')
[ -n "$vdso" ] || die "cannot find the vdso mapping"
read -r vdso_lo vdso_hi <<<"$vdso"
# As the listing prints addresses: 0x and 16 digits, so that strings compare.
vdso_lo=$(printf '0x%016x' "$vdso_lo")
vdso_hi=$(printf '0x%016x' "$vdso_hi")

history_of() { # method prog ncont -> pcs on stdout
	local m=$1 prog=$2 ncont=$3 i log=$TMPDIR/$2.$1.log
	CMDS=('break main' run record 'break _exit' 'delete 1')
	for ((i = 0; i < ncont; i++)); do CMDS+=(continue); done
	CMDS+=('info record' 'set record instruction-history-size unlimited'
	       'echo HISTORY-LISTING\n' 'record instruction-history /f')
	ptdbg_batch --method="$m" -- "$TESTPROGS/$prog" >"$log"
	grep -q '^Active record target' "$log" || { tail -n 15 "$log" >&2; return 1; }
	sed -n '/^HISTORY-LISTING$/,$p' "$log" | awk -v lo="$vdso_lo" -v hi="$vdso_hi" '
		/^[0-9]+\t/ {
			if (!match($0, /0x[0-9a-f]+/)) { print "ITEM: " $0; invdso = 0; next }
			a = substr($0, RSTART, RLENGTH)
			if (length(a) == 18 && a >= lo && a < hi) {
				if (!invdso) print "VDSO"
				invdso = 1
				next
			}
			invdso = 0
			print a
		}'
}

methods=$(ptdbg_methods) || exit 1 # step and soft must be among them
failed=0
for s in "${progs[@]}"; do
	IFS='|' read -r prog ncont <<<"$s"
	history_of step "$prog" "$ncont" >"$TMPDIR/$prog.step" ||
		die "$prog: no history with the step recorder"
	n=$(wc -l <"$TMPDIR/$prog.step")
	[ "$n" -gt 100 ] || die "$prog: only $n instructions recorded by step"
	for m in $methods; do
		[ "$m" = step ] && continue
		if ! history_of "$m" "$prog" "$ncont" >"$TMPDIR/$prog.$m"; then
			note "$prog ($m): no history"
			failed=1
		elif ! cmp -s "$TMPDIR/$prog.step" "$TMPDIR/$prog.$m"; then
			note "$prog ($m): differs from step ($n instructions, $m: $(wc -l <"$TMPDIR/$prog.$m")):"
			diff -u "$TMPDIR/$prog.step" "$TMPDIR/$prog.$m" | head -n 20 >&2
			failed=1
		else
			note "ok $prog ($m): $n instructions, the same as step"
		fi
	done
done
[ "$failed" = 0 ] || die "recording methods disagree"
