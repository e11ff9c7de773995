# record save / ptdbg --load: a trace bundle written from a step recording
# kept as PT decodes offline into the same history (instruction and
# function-call listings identical to the live ones); reverse stepping and
# record goto work offline; broken bundles give one clear error line.
set -eu
b="$TMPDIR/bundle"
cmds=(-ex 'record instruction-history 1,40' -ex 'record function-call-history /c /i 1,30' -ex 'info record')
"$PTDBG" -batch -ex 'break fib' -ex run -ex 'record step pt' -ex 'continue' -ex 'continue' -ex 'continue' \
	"${cmds[@]}" -ex "record save $b" --args "$TESTPROGS/fib" 6 >"$TMPDIR/live.out" 2>&1
grep -q "Saved the recording to $b" "$TMPDIR/live.out"
test -f "$b/manifest"
"$PTDBG" -batch --load "$b" "${cmds[@]}" >"$TMPDIR/offline.out" 2>&1
# the listings must match line for line (info record differs in its process line)
sed -n '/^1\t/,/^Active record/p' "$TMPDIR/live.out" | grep -v '^Active' >"$TMPDIR/a"
sed -n '/^1\t/,/^Active record/p' "$TMPDIR/offline.out" | grep -v '^Active' >"$TMPDIR/b"
test "$(wc -l <"$TMPDIR/a")" -ge 30
diff -u "$TMPDIR/a" "$TMPDIR/b"
grep -q '^Recorded [0-9]* instructions in [0-9]* functions (0 gaps)' "$TMPDIR/offline.out"
# offline motions
"$PTDBG" -batch --load "$b" -ex 'record goto begin' -ex 'stepi' -ex 'info record' -ex 'reverse-stepi' \
	-ex 'reverse-stepi' -ex 'record goto end' >"$TMPDIR/mot.out" 2>&1
grep -q 'Replay in progress.  At instruction 2.' "$TMPDIR/mot.out"
grep -q 'No more reverse-execution history.' "$TMPDIR/mot.out"
# broken bundles
if "$PTDBG" -batch --load "$TMPDIR/nonexistent" -ex 'info record' >"$TMPDIR/e1" 2>&1; then
	echo "loading a missing bundle succeeded"; exit 1
fi
grep -q "cannot load '$TMPDIR/nonexistent'" "$TMPDIR/e1"
mkdir -p "$TMPDIR/bad"
printf 'ptdbg-bundle 1\ncpu 6 142\nthread 1 pt.bin 0x0\n' >"$TMPDIR/bad/manifest"
if "$PTDBG" -batch --load "$TMPDIR/bad" >"$TMPDIR/e2" 2>&1; then
	echo "loading a malformed bundle succeeded"; exit 1
fi
grep -q "manifest:2:" "$TMPDIR/e2"
# a corrupted PT stream still loads, as a history with a gap; no crash:
# ptdbg exits 0 (its last command worked), so set -e fails the test on a
# crash or an error
cp -r "$b" "$TMPDIR/corrupt"
f=$(ls "$TMPDIR"/corrupt/pt-*.bin)
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$f" bs=1 seek=40 conv=notrunc 2>/dev/null
"$PTDBG" -batch --load "$TMPDIR/corrupt" -ex 'info record' -ex 'record instruction-history 1,5' >"$TMPDIR/e3" 2>&1
grep -q '^Recorded [0-9]* instructions in [0-9]* functions ([1-9][0-9]* gaps)' "$TMPDIR/e3" || { cat "$TMPDIR/e3"; exit 1; }
grep -q '^[0-9]*	\[decode error (-[0-9]*): ' "$TMPDIR/e3" || { cat "$TMPDIR/e3"; exit 1; }
# stepping backward over what the damage left: gaps are stepped over (as
# gdb does), never shown as a position
"$PTDBG" -batch --load "$TMPDIR/corrupt" -ex 'reverse-stepi' -ex 'reverse-stepi' -ex 'reverse-continue' \
	-ex 'stepi' >"$TMPDIR/e5" 2>&1
if grep -q '0x0000000000000000 in\|No more reverse-execution history: a gap' "$TMPDIR/e5"; then
	cat "$TMPDIR/e5"; exit 1
fi
# (how many: as a continuous libipt decode of the damaged bytes gives them)
grep -q '^(stepped over a gap in the trace: \|^(stepped over [0-9]* gaps in the trace, ' "$TMPDIR/e5" ||
	{ cat "$TMPDIR/e5"; exit 1; }
# garbage after the last packet: one gap, shown as gdb shows it, with
# libipt's error code and message
cp -r "$b" "$TMPDIR/tailjunk"
f=$(ls "$TMPDIR"/tailjunk/pt-*.bin)
printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' >>"$f"
"$PTDBG" -batch --load "$TMPDIR/tailjunk" -ex 'info record' -ex 'record instruction-history -' \
	-ex 'record function-call-history -' >"$TMPDIR/e6" 2>&1
grep -q '(1 gaps)' "$TMPDIR/e6" || { cat "$TMPDIR/e6"; exit 1; }
test "$(grep -cE '^[0-9]+	\[decode error \(-[0-9]+\): [a-z].*\]$' "$TMPDIR/e6")" -eq 2 || { cat "$TMPDIR/e6"; exit 1; }
# a blocks recording is saved too (turned into PT; record-save-all.sh
# compares its histories) and loads
"$PTDBG" -batch -ex 'break fib' -ex run -ex 'record step' -ex continue -ex "record save $TMPDIR/x" \
	--args "$TESTPROGS/fib" 3 >"$TMPDIR/e4" 2>&1 || { cat "$TMPDIR/e4"; exit 1; }
grep -q "Saved the recording to $TMPDIR/x" "$TMPDIR/e4" || { cat "$TMPDIR/e4"; exit 1; }
"$PTDBG" -batch --load "$TMPDIR/x" -ex 'info record' >"$TMPDIR/e5" 2>&1 || { cat "$TMPDIR/e5"; exit 1; }
grep -q '^Recorded [1-9][0-9]* instructions' "$TMPDIR/e5" || { cat "$TMPDIR/e5"; exit 1; }
echo ok
