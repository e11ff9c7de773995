#!/usr/bin/env bash
# record save works for every recording (issue 14), not only those made
# with the trace format pt: a block recording (step's) is turned into PT
# through ptconv when saved (soft writes PT as it records), and
# the saved bundle loads with the same histories -- every instruction and
# the function-call history equal -- over a span with calls, signals and
# their handlers (testprogs/signal) and a longjmp (testprogs/unwind), and
# for a recording kept after the program exited.
. "$(dirname "$0")/lib.bash"
need_prereqs signal unwind

# histories OUT: the commands that print the whole history
histories() {
	CMDS+=("info record" "record instruction-history 1,1000000"
	       "record function-call-history /c 1,1000000")
}

check() {
	local name=$1 method=$2 prog=$3 live=$TMPDIR/$1.live loaded=$TMPDIR/$1.loaded
	shift 3
	rm -rf "$TMPDIR/$name.bundle"
	CMDS=("$@" "record save $TMPDIR/$name.bundle" "echo @@histories\n")
	histories
	ptdbg_batch --method="$method" -- "$TESTPROGS/$prog" >"$live" 2>&1 ||
		{ cat "$live" >&2; die "$name: ptdbg failed"; }
	grep -q "^Saved the recording to $TMPDIR/$name.bundle" "$live" ||
		{ cat "$live" >&2; die "$name: record save failed"; }
	CMDS=("echo @@histories\n")
	histories
	ptdbg_batch --load "$TMPDIR/$name.bundle" >"$loaded" 2>&1 ||
		{ cat "$loaded" >&2; die "$name: loading the bundle failed"; }
	# everything after the marker but the recorder's name
	local a b
	a=$(sed -n '/^@@histories/,$p' "$live" | grep -v '^Active record target\|^Recording format\|^Buffer size' |
		sed 's/(process [0-9]*)/(LWP N)/; s/(LWP [0-9]*)/(LWP N)/')
	b=$(sed -n '/^@@histories/,$p' "$loaded" | grep -v '^Active record target\|^Recording format\|^Buffer size' |
		sed 's/(process [0-9]*)/(LWP N)/; s/(LWP [0-9]*)/(LWP N)/')
	[ "$(grep -c . <<<"$a")" -gt 20 ] || die "$name: the history listing is too short: $a"
	if ! diff -u <(printf '%s\n' "$a") <(printf '%s\n' "$b") >&2; then
		die "$name: the loaded bundle's histories differ (--- recorded, +++ loaded)"
	fi
	note "ok $name: $(grep -c . <<<"$a") lines of history equal after save and load"
}

sig=("break main" run record "break $(line_of signal.c 'return 0;')" continue)
check signal-step step signal "${sig[@]}"
check signal-soft soft signal "${sig[@]}"
check unwind-step step unwind break\ main run record "break $(line_of unwind.c 'printf(')" continue
# kept after the exit
check exited-step step unwind "break $(line_of unwind.c 'r = catcher(1);')" run record continue
exit 0
