#!/usr/bin/env bash
# `ptdbg doctor` (and the shell's `doctor`): what ptdbg can record with and
# why.  On this machine as it is: every fact line is there, pt is refused
# exactly when the kernel shows no intel_pt PMU (these VMs: none, and BTS
# neither), each refusal has its reason, auto takes the first usable method
# of the ladder (here soft), and the report says the PMU is the running
# kernel's.  With PTDBG_SIMULATE_PMU=pt / =bts the report says SIMULATED,
# auto takes pt / bts, and the machine's own refusals are still shown.  An
# unknown PTDBG_SIMULATE_PMU is an error, never ignored.
. "$(dirname "$0")/lib.bash"
need_prereqs

log=$TMPDIR/doctor.log
unset PTDBG_SIMULATE_PMU
"$PTDBG" doctor >"$log" 2>&1
rc=$?
cat "$log" >&2
[ "$rc" = 0 ] || die "ptdbg doctor exited with $rc although soft needs only ptrace"
for key in 'cpu:' 'hypervisor:' 'cpuid Intel PT:' 'cpuid DS (BTS):' 'pmu intel_pt:' \
	'pmu intel_bts:' 'perf_event_paranoid:' 'ptrace_scope:' 'capabilities:' \
	'ptrace a child:' 'ptrace attach:' 'pt kernel tracing:'; do
	grep -q "^$key " "$log" || die "no '$key' line"
done
grep -qxF "PMU: the running kernel's (not simulated)" "$log" || die "does not say the PMU is real"
grep -q '^ptrace a child: *yes (PTRACE_TRACEME tried)$' "$log" || die "this test process can trace a child"
grep -qxF 'methods (--method=auto tries pt, bts, soft, step in this order):' "$log" ||
	die "no methods heading"
# one verdict line per method, in the ladder's order
[ "$(grep -E '^  (pt|bts|soft|step) +(usable|refused): .+' "$log" | awk '{print $1}' | tr '\n' ' ')" = \
	"pt bts soft step " ] || die "the four verdicts are not there in order"
grep -q '^  soft  usable: ' "$log" || die "soft must be usable where a child can be traced"
grep -q '^  step  usable: ' "$log" || die "step must be usable where a child can be traced"
if grep -q '^pmu intel_pt: *absent$' "$log"; then
	note "no intel_pt PMU here: pt must be refused with its reason"
	grep -qE '^  pt    refused: no Intel PT' "$log" || die "pt not refused with its reason"
	if grep -q '^pmu intel_bts: *absent$' "$log" && grep -q '^hypervisor: *yes' "$log"; then
		note "a virtual machine without BTS: bts refused, auto takes soft"
		grep -qE '^  bts   refused: no BTS' "$log" || die "bts not refused with its reason"
		grep -qxF -- '--method=auto chooses soft' "$log" || die "auto must take soft here"
	fi
else
	note "an intel_pt PMU is here"
	grep -q '^pmu intel_pt: *type [0-9]' "$log" || die "the intel_pt PMU's type is not shown"
fi
# auto names the first usable method of the ladder
first=$(grep -E '^  (pt|bts|soft|step) +usable: ' "$log" | head -n 1 | awk '{print $1}')
grep -qxF -- "--method=auto chooses $first" "$log" || die "auto's choice is not the first usable method ($first)"
grep -q 'without PTDBG_SIMULATE_PMU' "$log" && die "real kernel: no simulation note expected"

# the shell's command prints the same report
"$PTDBG" -batch -ex doctor >"$TMPDIR/shell.log" 2>&1 || die "the doctor command failed"
diff -u "$log" "$TMPDIR/shell.log" >&2 || die "the shell's doctor differs from ptdbg doctor"
"$PTDBG" -batch -ex 'doctor now' >"$TMPDIR/args.log" 2>&1
grep -qxF '"doctor" takes no arguments.' "$TMPDIR/args.log" || die "doctor with an argument not refused"
"$PTDBG" doctor extra >"$TMPDIR/args.log" 2>&1 && die "ptdbg doctor extra must fail"
grep -q 'doctor takes no arguments' "$TMPDIR/args.log" || die "ptdbg doctor extra: no message"

# simulated PMUs
for what in pt bts; do
	slog=$TMPDIR/doctor-$what.log
	PTDBG_SIMULATE_PMU=$what "$PTDBG" doctor >"$slog" 2>&1
	rc=$?
	cat "$slog" >&2
	[ "$rc" = 0 ] || die "PTDBG_SIMULATE_PMU=$what ptdbg doctor exited with $rc"
	grep -q "^PMU: SIMULATED (PTDBG_SIMULATE_PMU=$what)" "$slog" || die "$what: does not say SIMULATED"
	grep -qxF -- "--method=auto chooses $what (simulated PMU)" "$slog" ||
		die "$what: auto must take the simulated $what"
	grep -q "^  $what  *usable: .*simulated" "$slog" || die "$what: not usable, or not said simulated"
	# ptrace is the machine's own under a simulated PMU too
	[ "$(grep '^ptrace_scope:' "$slog")" = "$(grep '^ptrace_scope:' "$log")" ] ||
		die "$what: the simulation changed what Yama says"
	# the machine's own verdicts stay visible
	grep -qxF 'without PTDBG_SIMULATE_PMU, this machine:' "$slog" || die "$what: the real verdicts are hidden"
	if grep -q '^  pt    refused: no Intel PT' "$log"; then
		grep -q '^  pt    refused: no Intel PT' "$slog" || die "$what: the real pt refusal is hidden"
	fi
	PTDBG_SIMULATE_PMU=$what "$PTDBG" -batch -ex doctor >"$TMPDIR/shell-$what.log" 2>&1 ||
		die "$what: the doctor command failed"
	grep -q "^PMU: SIMULATED (PTDBG_SIMULATE_PMU=$what)" "$TMPDIR/shell-$what.log" ||
		die "$what: the shell's doctor does not say SIMULATED"
done

PTDBG_SIMULATE_PMU=arm-spe "$PTDBG" doctor >"$TMPDIR/bad.log" 2>&1
rc=$?
cat "$TMPDIR/bad.log" >&2
[ "$rc" = 2 ] || die "an unknown PTDBG_SIMULATE_PMU must fail with status 2 (got $rc)"
grep -q "^ptdbg: cannot simulate a PMU of kind 'arm-spe'" "$TMPDIR/bad.log" || die "no message for arm-spe"
echo ok
