#!/usr/bin/env bash
# ptdbg's own int3 bytes (a user breakpoint, and the soft recorder's on
# every conditional/indirect branch it armed) never show through x,
# disassemble or the instruction history: every byte ptdbg shows of the
# program's text equals the file's.
. "$(dirname "$0")/lib.bash"

need_prereqs fib
out=$TMPDIR/out
"$PTDBG" -batch -ex 'break fib' -ex run -ex 'record soft' -ex continue -ex continue \
	-ex 'x/64xb fib' -ex 'disassemble /r fib' -ex 'record instruction-history /r 1,40' \
	--args "$TESTPROGS/fib" 5 >"$out" 2>&1 || die "ptdbg failed: $(cat "$out")"
grep -q 'Active\|Breakpoint 1, fib' "$out" || die "did not stop in fib: $(cat "$out")"
# x/64xb fib: the bytes must be the file's (non-PIE: vaddr = file offset + 0x400000)
start=$(nm "$TESTPROGS/fib" | awk '$3 == "fib" { print $1 }')
want=$(dd if="$TESTPROGS/fib" iflag=skip_bytes,count_bytes skip=$((16#$start - 0x400000)) count=64 status=none |
	od -An -tx1 -v | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
got=$(grep -E '^0x[0-9a-f]+ <fib(\+[0-9]+)?>:' "$out" | cut -d: -f2- | tr -s ' \t\n' ' ' |
	sed 's/0x//g; s/^ //; s/ $//')
[ "$got" = "$want" ] || die "x/64xb fib shows '$got', the file has '$want'"
# no int3 anywhere in the listings
if grep -E '\bint3\b|^[^:]*:[[:space:]]+cc[[:space:]]' "$out" | grep -v '^0x[0-9a-f]* <fib' >/dev/null; then
	die "an int3 shows: $(grep -nE '\bint3\b' "$out")"
fi
# the raw bytes disassemble /r shows are the file's too
objdump -d "$TESTPROGS/fib" | awk '/<fib>:/,/^$/' |
	sed -n 's/^ *\([0-9a-f]*\):\t\([0-9a-f ]*\)\t.*/\1 \2/p' >"$TMPDIR/objdump"
matched=0
while read -r addr bytes; do
	line=$(grep -m1 -E "^( +|=> )0x0*$addr <\\+" "$out") || continue
	case $line in
	*"$(echo "$bytes" | sed 's/ *$//')"*) matched=$((matched + 1)) ;;
	*) die "disassemble /r at 0x$addr: '$line', objdump: '$bytes'" ;;
	esac
done <"$TMPDIR/objdump"
[ "$matched" -ge 10 ] || die "only $matched disassembly lines compared"
note "ok no int3 shown"
