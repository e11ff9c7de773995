#!/usr/bin/env bash
# Golden text reports of ptdbg-report (recorded with soft from main):
#   rpt_recurse    a call through a null function pointer at the bottom of
#                  a recursion, after a repeated subtree (walk x3 folded)
#   rpt_loopabort  abort() after a loop (the loop's lines folded)
#   rpt_thread     a crash in a second thread (the thread named)
#   rpt_spin       a snapshot of a busy loop on --on-signal (the parts that
#                  do not depend on where the signal found the loop)
# compared with tests/golden/report-NAME.txt by diff -u after normalising
# what varies from run to run or machine to machine: addresses of 9+ hex
# digits, register values, instruction numbers (3+ digits: the programs'
# source lines have fewer), pids and thread ids, the
# statistics line, the program's directory.  GOLDEN_UPDATE=1 rewrites the
# files (then read the diff before committing it).
. "$(dirname "$0")/lib.bash"

need_prereqs rpt_recurse rpt_loopabort rpt_thread rpt_spin
R=$BD/bin/ptdbg-report
[ -x "$R" ] || die "ptdbg-report not built: $R"
T=$TMPDIR
OPTS=(-q --method=soft --color=never --calls=12 --lines=8 --branches=3 --insns=3)

normalise() {
	sed -E -e 's/0x[0-9a-f]{9,}/0xADDR/g' \
		-e 's/^(r[a-z0-9]+|eflags|[cdefgs]s|fs_base|gs_base) +.*/\1 VALUE/' \
		-e 's/^[0-9]{3,}\t/N\t/' \
		-e 's/\(of [0-9]+ recorded\)/(of N recorded)/' \
		-e 's/the last ([0-9]+) of [0-9]+ function segments/the last \1 of M function segments/' \
		-e 's/sent by process [0-9]+/sent by process PID/' \
		-e 's/LWP [0-9]+/LWP TID/' \
		-e 's/^Recorded .*/Recorded .../' \
		-e 's| from /.*| from FILE|'
}

compare() { # name file
	local want=$GOLDEN/report-$1.txt
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$2" "$want"
		note "updated $want"
		return
	fi
	[ -f "$want" ] || die "no golden file $want (GOLDEN_UPDATE=1 writes it)"
	diff -u "$want" "$2" >&2 || die "report-$1: the report differs from $want"
}

for p in rpt_recurse rpt_loopabort rpt_thread; do
	rc=0
	"$R" "${OPTS[@]}" -o "$T/$p.raw" "$TESTPROGS/$p" >"$T/$p.out" 2>"$T/$p.err" </dev/null || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/$p.err" >&2; die "$p: exit status $rc"; }
	normalise <"$T/$p.raw" >"$T/$p.txt"
	compare "$p" "$T/$p.txt"
	note "ok $p"
done

# the snapshot: started, seen spinning, then USR1 to ptdbg-report
mkfifo "$T/spin.out"
exec 3<>"$T/spin.out"
"$R" "${OPTS[@]}" --on-signal=USR1 -o "$T/spin.raw" "$TESTPROGS/rpt_spin" >"$T/spin.out" 2>"$T/spin.err" &
rpid=$!
on_exit "kill $rpid 2>/dev/null"
read -r -t 120 -u 3 word pid && read -r -t 120 -u 3 word2 || die "rpt_spin did not start spinning"
[ "$word $word2" = "ready spinning" ] || die "rpt_spin said '$word $word2'"
kill -USR1 "$rpid"
rc=0
wait "$rpid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/spin.err" >&2; die "rpt_spin snapshot: exit status $rc"; }
{
	sed -n '1p; /^The program was running/p; /^Registers:$/p; /^Backtrace:$/p' "$T/spin.raw"
	grep -E '^#[0-9]+ ' "$T/spin.raw" | grep -E ' (main|__libc_start_call_main|__libc_start_main|__libc_start_main_impl|_start) \(' |
		sed -E 's/^#[0-9]+ +//; s/^0x[0-9a-f]+ in //; s/(main \(\) at rpt_spin\.c):[0-9]+$/\1:L/' | normalise
	# the busy loop, folded: its lines and that it repeated (not how often)
	grep -E '^rpt_spin\.c:[0-9]+-[0-9]+ \((main|step)\) ×[0-9]+$' "$T/spin.raw" | head -n 1 |
		sed -E 's/\((main|step)\)/(FN)/; s/×[0-9]+$/×N/'
} >"$T/spin.txt"
compare rpt_spin "$T/spin.txt"
note "ok rpt_spin snapshot"
echo ok
