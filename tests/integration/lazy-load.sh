# ptdbg --load decodes a trace lazily: at load only the newest PSB segment,
# older ones when a reverse motion runs into the start of what is decoded,
# all of them for commands that show instruction numbers.  Every reverse
# motion on the loaded trace must stop where the same motion stops in the
# live session that recorded it (whose history is complete), and the
# numbers must be the same once everything is decoded.  Frame arguments
# the live session read from the registers the soft recorder kept at a
# position are <unavailable> in the loaded trace, which has no registers
# of the past (past_args); every other value must be the same.
. "$(dirname "$0")/lib.bash"
set -e
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
# Everything after the save, less the lines naming the process or target
# and the live session's note that it reads the present memory.
filter() {
	grep -v '^Active record target\|^Recording format\|^Buffer size\|^Breakpoint [0-9]* at ' |
		grep -v '^warning: memory is shown as it is now' |
		sed 's/ for thread 1 (.*)\.$//; s/^Breakpoint [0-9]*, /Breakpoint N, /'
}
sed -n '/^Saved the recording/,$p' "$TMPDIR/live.out" | sed 1d | filter >"$TMPDIR/a"
filter <"$TMPDIR/offline.out" >"$TMPDIR/b"
test "$(grep -c 'fib (n=\|fib ()' "$TMPDIR/a")" -ge 3
grep -q 'No more reverse-execution history.' "$TMPDIR/a"
grep -q '^Recorded [0-9]* instructions' "$TMPDIR/a"
past_args "$TMPDIR/a" "$TMPDIR/b"
# A backtrace offline names the bundle's executable as the main program:
# frames without line info in it get no "from FILE", as live (printf@plt,
# entered again from main's call: printf's frame replaces the stub's).
"$PTDBG" -batch --load "$b" -ex 'reverse-finish' -ex 'reverse-next' -ex 'reverse-step' \
	-ex 'reverse-step' -ex 'reverse-finish' -ex 'reverse-stepi' -ex 'reverse-finish' -ex 'stepi' \
	-ex 'bt' >"$TMPDIR/bt.out" 2>&1
grep -q '^#[0-9] .* in printf@plt ()$' "$TMPDIR/bt.out" || { cat "$TMPDIR/bt.out"; exit 1; }
grep -q '^#[0-9] .* in main (argc=<unavailable>, argv=<unavailable>) at fib.c:23$' "$TMPDIR/bt.out"
# A bundle of several threads: each can be selected and browsed offline.
"$PTDBG" -batch -ex 'break main' -ex run -ex 'record soft pt' -ex 'break _exit' \
	-ex 'set record stop-at-thread-exit off' -ex continue \
	-ex "record save $TMPDIR/thr" --args "$TESTPROGS/threads" >"$TMPDIR/thr.out" 2>&1
test "$(ls "$TMPDIR"/thr/pt-*.bin | wc -l)" -eq 3 || { cat "$TMPDIR/thr.out"; exit 1; }
"$PTDBG" -batch --load "$TMPDIR/thr" -ex 'info threads' -ex 'thread 2' -ex 'reverse-stepi' \
	-ex 'info record' >"$TMPDIR/thr2.out" 2>&1
grep -Eq '^\* 1  *LWP [0-9]*  *(__GI_)?_exit \(status=<unavailable>\) ' "$TMPDIR/thr2.out" || { cat "$TMPDIR/thr2.out"; exit 1; }
grep -q '^  3  *LWP [0-9]*  *0x[0-9a-f]* in ' "$TMPDIR/thr2.out"
# each thread's frame line has that thread's arguments (not thread 1's)
if grep '^  [23] ' "$TMPDIR/thr2.out" | qgrep 'status='; then cat "$TMPDIR/thr2.out"; exit 1; fi
grep -q '^\[Switching to thread 2 (LWP [0-9]*)\]' "$TMPDIR/thr2.out"
grep -q '^Recorded [0-9]* instructions in [0-9]* functions (0 gaps) for thread 2 ' "$TMPDIR/thr2.out"
if grep -q '0x0000000000000000\|No thread' "$TMPDIR/thr2.out"; then cat "$TMPDIR/thr2.out"; exit 1; fi
echo ok
