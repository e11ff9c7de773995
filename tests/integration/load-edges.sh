# Loaded traces at their edges: a trace whose newest PSB segment holds no
# instruction (tracing off when it was written), a trace that ends in a
# gap and has no tail pc, and function-call-history /l for functions
# without line information.
set -eu
b="$TMPDIR/edges"
"$PTDBG" -batch -ex 'break main' -ex run -ex 'record soft pt' -ex 'break exit' -ex continue \
	-ex "record save $b" --args "$TESTPROGS/fib" 5 >"$TMPDIR/live.out" 2>&1
grep -q "Saved the recording to $b" "$TMPDIR/live.out"
pt=$(ls "$b"/pt-*.bin)

# An empty newest segment: a PSB+ without FUP (tracing disabled), no tail.
cp -r "$b" "$TMPDIR/empty"
f="$TMPDIR/empty/$(basename "$pt")"
printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\043' >>"$f"
sed -i 's/^\(thread [0-9]* [^ ]*\) 0x[0-9a-f]*$/\1 0x0/' "$TMPDIR/empty/manifest"
"$PTDBG" -batch --load "$TMPDIR/empty" -ex 'reverse-stepi' -ex 'info record' >"$TMPDIR/e1" 2>&1
if grep -q 'outside the history' "$TMPDIR/e1"; then cat "$TMPDIR/e1"; exit 1; fi
grep -q '(0 gaps)' "$TMPDIR/e1" || { cat "$TMPDIR/e1"; exit 1; }

# Ends in a gap (garbage after the last packet), no tail pc: one gap
# counted, and record goto end goes to the last instruction.
cp -r "$b" "$TMPDIR/gapend"
f="$TMPDIR/gapend/$(basename "$pt")"
printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' >>"$f"
sed -i 's/^\(thread [0-9]* [^ ]*\) 0x[0-9a-f]*$/\1 0x0/' "$TMPDIR/gapend/manifest"
"$PTDBG" -batch --load "$TMPDIR/gapend" -ex 'info record' -ex 'record goto 1' \
	-ex 'record goto end' -ex 'info record' >"$TMPDIR/e2" 2>&1
grep -q '(1 gaps)' "$TMPDIR/e2" || { cat "$TMPDIR/e2"; exit 1; }
if grep -q 'is a gap' "$TMPDIR/e2"; then cat "$TMPDIR/e2"; exit 1; fi
grep -q '^Replay in progress.  At instruction [0-9]*\.$' "$TMPDIR/e2" || { cat "$TMPDIR/e2"; exit 1; }

# /l: functions without line information (printf@plt, libc) get no "at".
"$PTDBG" -batch --load "$b" -ex 'record function-call-history /l 1,200' >"$TMPDIR/e3" 2>&1
grep -q '	at .*fib\.c:[0-9]' "$TMPDIR/e3" || { cat "$TMPDIR/e3"; exit 1; }
if grep -q '	at $' "$TMPDIR/e3"; then cat "$TMPDIR/e3"; exit 1; fi
grep -qv '	at ' "$TMPDIR/e3"
