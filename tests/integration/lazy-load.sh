# ptdbg --load decodes a trace lazily: at load only the newest PSB segment,
# older ones when a reverse motion runs into the start of what is decoded,
# all of them for commands that show instruction numbers.  Every reverse
# motion on the loaded trace must stop where the same motion stops in the
# live session that recorded it (whose history is complete), and the
# numbers must be the same once everything is decoded.
set -eu
b="$TMPDIR/lazy"
motions=(-ex 'reverse-finish' -ex 'reverse-next' -ex 'reverse-step' -ex 'reverse-step'
	-ex 'reverse-finish' -ex 'reverse-stepi' -ex 'break fib' -ex 'reverse-continue'
	-ex 'reverse-finish' -ex 'reverse-finish' -ex 'reverse-next' -ex 'reverse-continue'
	-ex 'reverse-continue' -ex 'delete' -ex 'reverse-continue' -ex 'info record'
	-ex 'record instruction-history 1,5' -ex 'record goto end' -ex 'reverse-finish' -ex 'reverse-finish'
	-ex 'reverse-next' -ex 'reverse-step' -ex 'bt')
# fib(21): about 570,000 instructions, a PT stream of several PSB segments.
"$PTDBG" -batch -ex 'break main' -ex run -ex 'record soft pt' -ex 'break exit' -ex continue \
	-ex 'delete' -ex "record save $b" "${motions[@]}" --args "$TESTPROGS/fib" 21 >"$TMPDIR/live.out" 2>&1
grep -q "Saved the recording to $b" "$TMPDIR/live.out"
pt=$(ls "$b"/pt-*.bin)
size=$(stat -c %s "$pt")
if [ "$size" -lt 12288 ]; then
	echo "trace too small for several segments: $size bytes"; exit 1
fi
"$PTDBG" -batch --load "$b" "${motions[@]}" >"$TMPDIR/offline.out" 2>&1
# Everything after the save, less the lines naming the process or target.
filter() {
	grep -v '^Active record target\|^Recording format\|^Breakpoint [0-9]* at ' |
		sed 's/ for thread 1 (.*)\.$//; s/^Breakpoint [0-9]*, /Breakpoint N, /'
}
sed -n '/^Saved the recording/,$p' "$TMPDIR/live.out" | sed 1d | filter >"$TMPDIR/a"
filter <"$TMPDIR/offline.out" >"$TMPDIR/b"
test "$(grep -c 'fib (n=\|fib ()' "$TMPDIR/a")" -ge 3
grep -q 'No more reverse-execution history.' "$TMPDIR/a"
grep -q '^Recorded [0-9]* instructions' "$TMPDIR/a"
diff -u "$TMPDIR/a" "$TMPDIR/b"
# A backtrace offline names the bundle's executable as the main program:
# frames without line info in it get no "from FILE", as live.
"$PTDBG" -batch --load "$b" -ex 'reverse-finish' -ex 'reverse-next' -ex 'reverse-step' \
	-ex 'reverse-step' -ex 'reverse-finish' -ex 'reverse-stepi' -ex 'bt' >"$TMPDIR/bt.out" 2>&1
grep -q '^#[0-9] .* in printf@plt ()$' "$TMPDIR/bt.out" || { cat "$TMPDIR/bt.out"; exit 1; }
grep -q '^#[0-9] .* in main () at fib.c:23$' "$TMPDIR/bt.out"
echo ok
