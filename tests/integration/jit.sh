#!/usr/bin/env bash
# Code written at run time (testprogs/jit.c: a function regenerated in
# place in a read-write-execute mapping, a trampoline that calls it
# directly, patches to the program's own text after mprotect and through
# /proc/self/mem, a function written through a second mapping): the
# soft recorder must give the step recorder's instruction sequence, with
# no gap, and the program's output must be what it prints unrecorded.
#
# A history lists the instructions of a block by decoding the code in
# memory, and code rewritten in place is gone once it is overwritten.  So
# the program is stopped before each rewrite (put, patch1..3) and at
# each stop only what ran since the previous stop is listed, while the
# code that ran is still in memory.  The numbers come from a first step
# recording; every method then lists the same ranges, so any difference
# in what was recorded shows up as a difference.
#
# Compared with step's blocks (the ground truth): soft with blocks on the
# whole program, soft with --trace-format=pt on the JIT part (jit rwx),
# and both on code that no int3 can be put in (jit shared: the executable
# view of a double mapping, which soft single-steps through).
# Not compared: pt on the patched text, whose stretches are decoded
# against the ELF file rather than the patched memory
# (src/decode/image.c), and step with pt, whose instruction class cache
# (src/record/step.c) keeps the classes of the old code.
. "$(dirname "$0")/lib.bash"

need_prereqs jit jit-O2

stops=('break put' 'break patch1' 'break patch2' 'break patch3' 'break _exit')

# counts PROG ARG: the step recorder's instruction count at each stop.
counts() {
	local log=$TMPDIR/$1.$2.counts.log i
	CMDS=('break main' run record 'delete 1' "${stops[@]}")
	for ((i = 0; i < 12; i++)); do CMDS+=(continue 'info record'); done
	ptdbg_batch --method=step -- "$TESTPROGS/$1" $2 >"$log"
	# (up to the exit: neither the stop before exit_group nor the
	# recording kept after the exit counts as a stop)
	sed -n '/^\[Inferior 1 /q; /^Process record: inferior program stopped/q; s/^Recorded \([0-9]*\) instructions .*/\1/p' "$log"
}

# listing PROG ARG METHOD FORMAT OUT COUNT...: record with METHOD and
# FORMAT, list the instructions between stops, write their pcs (or
# "ITEM:" for a gap, "ERROR:" for what cannot be listed) to OUT and the
# program's output to OUT.out.
listing() {
	local prog=$1 arg=$2 m=$3 fmt=$4 out=$5 prev=0 c log
	shift 5
	CMDS=('break main' run record 'delete 1' "${stops[@]}"
	      'set record instruction-history-size unlimited')
	for c in "$@"; do
		CMDS+=(continue 'echo HISTORY-LISTING\n'
		       "record instruction-history /f $((prev + 1)),$c")
		prev=$c
	done
	CMDS+=(continue)
	log=$out.log
	ptdbg_batch --method="$m" --trace-format="$fmt" -- "$TESTPROGS/$prog" $arg >"$log"
	awk '/^HISTORY-LISTING$/ { on = 1; next }
	     on && /^[0-9]+\t/ {
		if (match($0, /0x[0-9a-f]+/)) print substr($0, RSTART, RLENGTH)
		else print "ITEM: " $0
		next }
	     on && /^Cannot|^Breakpoint|^\[Inferior|^The next instruction is syscall/ { on = 0 }
	     /^Cannot list/ { print "ERROR: " $0 }' "$log" >"$out"
	grep '^jit checksum ' "$log" >"$out.out"
}

failed=0
check_output() { # what expect out.out
	if [ "$(cat "$3")" != "$2" ]; then
		note "$1: the program printed '$(cat "$3")', unrecorded '$2'"
		failed=1
	fi
}

# program | argument | method:format listings compared with step's blocks
cases=(
	"jit||soft:blocks" "jit|rwx|soft:pt" "jit|shared|soft:blocks soft:pt"
	"jit-O2||soft:blocks" "jit-O2|rwx|soft:pt" "jit-O2|shared|soft:blocks"
)
for c in "${cases[@]}"; do
	IFS='|' read -r prog arg mfs <<<"$c"
	what="$prog${arg:+ $arg}"
	expect=$("$TESTPROGS/$prog" $arg) || die "$what does not run on its own"
	grep -q '^jit checksum ' <<<"$expect" || die "$what printed: $expect"
	mapfile -t cnt < <(counts "$prog" "$arg")
	# put 6 times, the 3 patches, _exit; put twice in shared
	case $arg in "") want=10 ;; rwx) want=7 ;; *) want=3 ;; esac
	[ "${#cnt[@]}" = "$want" ] || die "$what: $want stops expected with step, got ${#cnt[@]}"
	total=${cnt[$((want - 1))]}
	[ "$total" -gt 3000 ] || die "$what: only $total instructions recorded by step"
	ref=$TMPDIR/$prog.$arg.step.blocks
	listing "$prog" "$arg" step blocks "$ref" "${cnt[@]}"
	check_output "$what (step, blocks)" "$expect" "$ref.out"
	if grep -q '^ITEM\|^ERROR' "$ref" || [ "$(wc -l <"$ref")" != "$total" ]; then
		grep '^ITEM\|^ERROR' "$ref" | head -n 5 >&2
		die "$what: step's own listing is incomplete ($(wc -l <"$ref") of $total)"
	fi
	for mf in $mfs; do
		IFS=: read -r m fmt <<<"$mf"
		got=$TMPDIR/$prog.$arg.$m.$fmt
		listing "$prog" "$arg" "$m" "$fmt" "$got" "${cnt[@]}"
		check_output "$what ($m, $fmt)" "$expect" "$got.out"
		if grep -q '^ITEM\|^ERROR' "$got"; then
			note "$what ($m, $fmt): gaps or unlistable instructions:"
			grep '^ITEM\|^ERROR' "$got" | head -n 5 >&2
			failed=1
		elif ! cmp -s "$ref" "$got"; then
			note "$what ($m, $fmt): differs from step ($total instructions, $m: $(wc -l <"$got")):"
			diff -u "$ref" "$got" | head -n 20 >&2
			failed=1
		else
			note "ok $what ($m, $fmt): $total instructions, as step recorded them"
		fi
	done
done
[ "$failed" = 0 ] || die "code written at run time is not recorded as step records it"
