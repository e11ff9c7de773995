#!/usr/bin/env bash
# A program that rewrites its own code under a breakpoint while it is
# recorded (testprogs/patchbp: f's first bytes replaced after mprotect,
# with `break *f` on the first of them), with every recorder (step, soft,
# and pt and bts on the simulated PMU).  The program's new bytes must
# stay: after the rewrite memory shows them, and the program prints what
# it prints unrecorded.  The step recorder takes the breakpoints out
# while it single-steps and put them back with the byte saved when the
# breakpoint was set, so the next time they came out the program's
# rewrite lost its first byte (0x8d became 0x55, push rbp) and f
# computed garbage.  (A recording stops before exit_group: continue twice.)
. "$(dirname "$0")/lib.bash"

need_prereqs patchbp
want=$("$TESTPROGS/patchbp")
[ "$want" = $'a=2 b=3\nc=501500' ] || die "patchbp unrecorded printed '$want'"

for m in step soft pt bts; do
	CMDS=('break main' run "record $m" 'break *f' continue continue 'x/4xb f'
	      'info record' delete continue continue)
	sim=
	case $m in pt | bts) sim=$m ;; esac
	out=$(PTDBG_SIMULATE_PMU=$sim ptdbg_batch -- "$TESTPROGS/patchbp")
	printf '%s\n' "$out" | qgrep -E '^0x[0-9a-f]+ <f>:\s+0x8d\s+0x47\s+0x02\s+0xc3$' ||
		{ printf '%s\n' "$out" >&2; die "$m: f's bytes after the rewrite are not the program's"; }
	got=$(printf '%s\n' "$out" | grep -E '^(a|c)=')
	[ "$got" = "$want" ] || { printf '%s\n' "$out" >&2; die "$m: the program printed '$got'"; }
	printf '%s\n' "$out" | qgrep '\[Inferior 1 (process [0-9]*) exited normally\]' ||
		{ printf '%s\n' "$out" >&2; die "$m: the program did not exit normally"; }
	note "ok $m"
done
