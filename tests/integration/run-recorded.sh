#!/usr/bin/env bash
# Programs run to their end while being recorded, with each method, and
# behave exactly as they do without ptdbg: the same output and the same
# exit status.  Covers fork (the child inherits the text with whatever
# the recorder patched into it), exec (a new image replaces the recorded
# one), threads, signal handlers, dlopen, the vdso and longjmp.
. "$(dirname "$0")/lib.bash"

progs=(fork exec threads signal dlopen vdso longjmp loops)
need_prereqs "${progs[@]}" fib
methods=$(ptdbg_methods) || exit 1 # step and soft must be among them

failed=0
for prog in "${progs[@]}"; do
	# The reference: the program on its own.
	(cd "$TMPDIR" && "$TESTPROGS/$prog" >"$TMPDIR/$prog.direct" 2>&1)
	rc=$?
	if [ "$rc" = 0 ]; then
		want_end='exited normally]'
	else
		want_end=$(printf 'exited with code %02o]' "$rc")
	fi
	for m in $methods; do
		log=$TMPDIR/$prog.$m.log
		# Continue until the end: signal stops the program once (SIGUSR1),
		# threads before each worker's exit (as gdb record full), every
		# program before its exit_group; continues after the exit only
		# fail.
		CMDS=('break main' run record continue continue continue continue continue)
		(cd "$TMPDIR" && ptdbg_batch --method="$m" -- "$TESTPROGS/$prog") >"$log"
		ok=1
		# Every line the program printed on its own, in the same order.
		prev=0
		while IFS= read -r line; do
			n=$(grep -nxF -- "$line" "$log" | cut -d: -f1 | awk -v p="$prev" '$1 > p { print; exit }')
			if [ -z "$n" ]; then
				note "$prog ($m): missing output line: $line"
				ok=0
				break
			fi
			prev=$n
		done <"$TMPDIR/$prog.direct"
		if ! grep -q "^\[Inferior 1 (process [0-9]*) $want_end\$" "$log"; then
			note "$prog ($m): expected '[Inferior 1 (process N) $want_end'"
			ok=0
		fi
		if grep -q 'SIGTRAP' "$log"; then
			note "$prog ($m): a SIGTRAP reached the program"
			ok=0
		fi
		if [ "$ok" = 1 ]; then
			note "ok $prog ($m)"
		else
			sed 's/^/    /' "$log" | head -n 30 >&2
			failed=1
		fi
	done
done
[ "$failed" = 0 ] || die "programs behave differently while recorded"
