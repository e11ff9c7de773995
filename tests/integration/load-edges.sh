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

# An instruction whose bytes are in two map records: the program's map
# split inside fib's "mov %rsp,%rbp" (every call of fib straddles it).  The
# history is the same as with one map record.
fib=$(nm "$TESTPROGS/fib" | awk '$3 == "fib" { print $1 }')
cut=$(printf '0x%x' $((0x$fib + 2)))
cp -r "$b" "$TMPDIR/split"
while IFS= read -r line; do
	read -r kind off size vaddr path <<<"$line"
	if [ "$kind" = map ] && [ $((vaddr)) -le $((cut)) ] && [ $((cut)) -lt $((vaddr + size)) ]; then
		first=$((cut - vaddr))
		printf 'map 0x%x 0x%x 0x%x %s\n' $((off)) $first $((vaddr)) "$path"
		printf 'map 0x%x 0x%x 0x%x %s\n' $((off + first)) $((size - first)) $((cut)) "$path"
	else
		printf '%s\n' "$line"
	fi
done <"$b/manifest" >"$TMPDIR/split/manifest"
test "$(grep -c '^map' "$TMPDIR/split/manifest")" -eq $(($(grep -c '^map' "$b/manifest") + 1))
# the instructions of the first call of fib
at=$("$PTDBG" -batch --load "$b" -ex 'record function-call-history /i 1,1000' |
	awk '$2 == "fib" { sub(/,.*/, "", $4); print $4; exit }')
test -n "$at"
cmds=(-ex 'info record' -ex "record instruction-history $at,+30" -ex 'record function-call-history /ci 1,400'
	-ex "record goto $((at + 3))" -ex 'bt' -ex 'reverse-stepi' -ex 'reverse-stepi' -ex 'bt')
"$PTDBG" -batch --load "$b" "${cmds[@]}" >"$TMPDIR/one" 2>&1
"$PTDBG" -batch --load "$TMPDIR/split" "${cmds[@]}" >"$TMPDIR/two" 2>&1
grep -q '<fib+1>:' "$TMPDIR/one" || { cat "$TMPDIR/one"; exit 1; }
diff -u "$TMPDIR/one" "$TMPDIR/two"

# A bundle missing one of its files: the load fails with one message
# naming that file (issue 14: it came out garbled, the error buffer
# formatted into itself), exit 1, and ptdbg-report says the same.
cp -r "$b" "$TMPDIR/nomem"
mem=$(sed -n 's/^map .* \(mem-[0-9a-f]*\.bin\)$/\1/p' "$b/manifest" | head -n 1)
test -n "$mem" || { cat "$b/manifest"; exit 1; }
rm "$TMPDIR/nomem/$mem"
rc=0
"$PTDBG" -batch --load "$TMPDIR/nomem" -ex 'info record' >"$TMPDIR/nomem.out" 2>&1 || rc=$?
test "$rc" = 1
diff -u <(echo "ptdbg: cannot load '$TMPDIR/nomem': cannot read '$TMPDIR/nomem/$mem': No such file or directory") "$TMPDIR/nomem.out"
cp -r "$b" "$TMPDIR/nopt"
rm "$TMPDIR/nopt/$(basename "$pt")"
rc=0
"$PTDBG" -batch --load "$TMPDIR/nopt" -ex 'info record' >"$TMPDIR/nopt.out" 2>&1 || rc=$?
test "$rc" = 1
diff -u <(echo "ptdbg: cannot load '$TMPDIR/nopt': cannot open '$TMPDIR/nopt/$(basename "$pt")': No such file or directory") "$TMPDIR/nopt.out"
rc=0
"$BD/bin/ptdbg-report" --load "$TMPDIR/nomem" >"$TMPDIR/nomem.rep" 2>&1 || rc=$?
test "$rc" != 0
grep -qF "cannot read '$TMPDIR/nomem/$mem': No such file or directory" "$TMPDIR/nomem.rep" || { cat "$TMPDIR/nomem.rep"; exit 1; }
if grep -q "$TMPDIR/nomem: $TMPDIR/nomem" "$TMPDIR/nomem.rep"; then cat "$TMPDIR/nomem.rep"; exit 1; fi
