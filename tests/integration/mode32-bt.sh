# A backtrace in 32-bit code of a loaded trace (MODE.Exec 32-bit, as a
# 32-bit program traced on real hardware gives; issue 9's leftovers): the
# caller's return address comes from decoding its call as 32-bit code,
# and frames print 8-digit addresses as gdb's i386 does.  The call is
# 66 e8 rel16 -- 4 bytes in 32-bit code, 6 when taken as 64-bit code
# (which gave the return address 0x1006) -- at 0x1000, to 0x1010.
set -eu
d="$TMPDIR/m32bt"
mkdir -p "$d"
# 1000: call 0x1010 (66 e8 0c 00); nop x12; 1010: push %ebp; mov %esp,%ebp; nop
printf '\146\350\014\000\220\220\220\220\220\220\220\220\220\220\220\220\125\211\345\220' \
	>"$d/code.bin"
{
	# PSB, MODE.Exec 32-bit, PSBEND
	printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202'
	printf '\231\002\002\043'
	# MODE.Exec 32-bit, TIP.PGE 0x1000 (sext-48)
	printf '\231\002\161\000\020\000\000\000\000'
	# FUP 0x1013, TIP.PGD without ip: the thread stands at 0x1013
	printf '\175\023\020\000\000\000\000\001'
} >"$d/pt.bin"
printf 'ptdbg-bundle 1\ncpu 0 0 0\nmap 0x0 0x14 0x1000 code.bin\nthread 7 pt.bin 0x1013\n' \
	>"$d/manifest"
"$PTDBG" -batch --load "$d" -ex 'bt' -ex 'record goto 3' -ex 'bt' -ex 'frame 1' \
	>"$TMPDIR/out" 2>&1 || { cat "$TMPDIR/out"; exit 1; }
printf '%s\n' \
	'#0  0x00001013 in ?? ()' \
	'#1  0x00001004 in ?? ()' \
	'#0  0x00001011 in ?? ()' \
	'#0  0x00001011 in ?? ()' \
	'#1  0x00001004 in ?? ()' \
	'#1  0x00001004 in ?? ()' >"$TMPDIR/want"
diff -u "$TMPDIR/want" "$TMPDIR/out"
