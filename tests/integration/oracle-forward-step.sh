# Oracle: forward step/next/finish/stepi/nexti land on the same pcs in
# ptdbg as in gdb 13, live and while recording (the recording run loop
# applies the same stepping rules, src/replay/live.c).
set -u
fails=0
check() { # rec prog bp cmd count [args]
	local rec=$1 prog=$2 bp=$3 cmd=$4 n=$5
	shift 5
	local g=(-batch -nx -ex 'set pagination off' -ex "break $bp" -ex run)
	local p=(-batch -ex "break $bp" -ex run)
	# (gdb runs live: no stop before a worker's exit, as its record full
	# and ptdbg's recording make)
	[ "$rec" = live ] || p+=(-ex 'set record stop-at-thread-exit off')
	[ "$rec" = rec ] && p+=(-ex record)
	[ "$rec" = recstep ] && p+=(-ex "record step")
	for _ in $(seq "$n"); do
		g+=(-ex "$cmd" -ex 'p $pc')
		p+=(-ex "$cmd" -ex 'p $pc')
	done
	local pat='^\$[0-9]* = (void (\*)()) 0x[0-9a-f]*'
	gdb "${g[@]}" --args "$TESTPROGS/$prog" "$@" 2>/dev/null | grep -o "$pat" | sed 's/.* //' >"$TMPDIR/g"
	"$PTDBG" "${p[@]}" --args "$TESTPROGS/$prog" "$@" 2>/dev/null | grep -o "$pat" | sed 's/.* //' >"$TMPDIR/p"
	if [ "$(wc -l <"$TMPDIR/g")" -ne "$n" ]; then
		echo "gdb gave $(wc -l <"$TMPDIR/g") pcs for $prog $cmd x$n"; fails=$((fails + 1)); return
	fi
	if ! diff -u "$TMPDIR/g" "$TMPDIR/p" >"$TMPDIR/d"; then
		echo "DIFF ($rec) $prog: $cmd x$n"; head -20 "$TMPDIR/d"; fails=$((fails + 1))
	else
		echo "same ($rec) $prog: $cmd x$n"
	fi
}
for mode in live rec; do
	check $mode fib main step 25 5
	check $mode fib main next 4 5
	check $mode fib fib finish 3 5
	check $mode loops main next 20
	check $mode funcptr main step 25
	check $mode switch main step 20
	check $mode signal main next 8
	check $mode signal handler step 8
	check $mode tailcall-O2 main step 15
	check $mode fib main nexti 20 4
done
check rec longjmp main step 25
# next over pthread_create: the new thread starts while the soft recorder
# has lifted an int3 the new thread had just hit (a "moribund" breakpoint)
check rec threads main next 10
check recstep threads main next 10
exit $((fails != 0))
