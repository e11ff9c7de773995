# ptdbg-report --load on a 32-bit trace (MODE.Exec 32-bit, as a 32-bit
# program traced on real hardware gives): the report's instructions, text
# and JSON, are decoded and listed in 32-bit mode as gdb lists i386 code
# (8-digit addresses, %ebp, and 48 as "dec %eax", which in 64-bit code
# would be a REX prefix of the mov after it); the tail's instruction
# (89 c3 after 48) is taken in 32-bit mode too.  Also --load's misuse.
set -eu
R="$BD/bin/ptdbg-report"
[ -x "$R" ] || { echo "ptdbg-report not built: $R"; exit 1; }
d="$TMPDIR/m32"
mkdir -p "$d"
# 8049000: push %ebp; mov %esp,%ebp; dec %eax; mov %eax,%ebx; nop
printf '\125\211\345\110\211\303\220' >"$d/code.bin"
{
	# PSB, MODE.Exec 32-bit, PSBEND
	printf '\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202'
	printf '\231\002\002\043'
	# MODE.Exec 32-bit, TIP.PGE 0x8049000 (sext-48)
	printf '\231\002\161\000\220\004\010\000\000'
	# FUP 0x8049003, TIP.PGD without ip: tracing stops before 8049003,
	# where the thread stands (the tail, 48 89 c3)
	printf '\175\003\220\004\010\000\000\001'
} >"$d/pt.bin"
printf 'ptdbg-bundle 1\ncpu 0 0 0\nmap 0x0 0x7 0x8049000 code.bin\nthread 7 pt.bin 0x8049003\n' \
	>"$d/manifest"

"$R" --load="$d" --insns=10 >"$TMPDIR/out" 2>"$TMPDIR/err" || {
	cat "$TMPDIR/err" "$TMPDIR/out"
	exit 1
}
sed -n '/^The last .* instructions/,/^$/p' "$TMPDIR/out" >"$TMPDIR/got"
printf '%s\n' \
	'The last 3 instructions (of 3 recorded):' \
	'1	   0x08049000:	push   %ebp' \
	'2	   0x08049001:	mov    %esp,%ebp' \
	'3	=> 0x08049003:	dec    %eax' \
	'' >"$TMPDIR/want"
diff -u "$TMPDIR/want" "$TMPDIR/got"
grep -q '^The end of the recorded trace\.$' "$TMPDIR/out" || { cat "$TMPDIR/out"; exit 1; }

"$R" --load="$d" --format=json -o "$TMPDIR/json" 2>"$TMPDIR/err" || {
	cat "$TMPDIR/err"
	exit 1
}
python3 - "$TMPDIR/json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
got = [(i["number"], i["pc"], i["text"]) for i in r["instructions"]]
want = [(1, "0x8049000", "push   %ebp"), (2, "0x8049001", "mov    %esp,%ebp"),
        (3, "0x8049003", "dec    %eax")]
assert got == want, got
assert r["stop"]["kind"] == "trace_end", r["stop"]
assert r["record"]["instructions"] == 2, r["record"]
PY

# Misuse: a program or -p with --load; a path that is no trace.
rc=0
"$R" --load="$d" -- /bin/true >/dev/null 2>"$TMPDIR/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q 'no program or process goes with it' "$TMPDIR/err" ||
	{ cat "$TMPDIR/err"; echo "--load with a program: exit $rc"; exit 1; }
rc=0
"$R" --load="$TMPDIR/nothing" -o "$TMPDIR/r.txt" >/dev/null 2>"$TMPDIR/err" || rc=$?
[ "$rc" -eq 1 ] && [ -s "$TMPDIR/err" ] && [ ! -e "$TMPDIR/r.txt" ] ||
	{ cat "$TMPDIR/err"; echo "--load of nothing: exit $rc"; exit 1; }
echo ok
