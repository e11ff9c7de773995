#!/usr/bin/env bash
# The pt and bts recorders' settings in the shell and on the command line:
# `set record pt NAME VALUE` / `show record pt [NAME]` (also gdb's `set
# record btrace pt ...`), `set record bts buffer-size`, `record pt filter
# ...`, and --pt-buffer, --pt-buffer-size, --pt-filter.  Each value is shown
# back as set, every bad value is refused with a message saying what is
# valid (a bad command-line value ends ptdbg with status 1 before anything
# runs), and `help set record` documents each of them.  gdb's `record
# btrace pt|bts` takes that method.
. "$(dirname "$0")/lib.bash"
need_prereqs

log=$TMPDIR/opts.log
CMDS=('show record pt'
      'set record pt buffer-size 64K' 'set record pt buffer full' 'set record pt kernel on'
      'set record pt ret-compression off' 'set record pt tsc on' 'set record pt mtc off'
      'set record pt cyc on' 'set record pt psb-period 3'
      'record pt filter main' 'record pt filter 0x1000/0x200@/bin/true'
      'echo @@SET\n' 'show record pt' 'record pt filter'
      'set record btrace pt buffer circular' 'show record btrace pt buffer'
      'record pt filter none' 'show record pt filter'
      'set record bts buffer-size 2M' 'show record bts buffer-size' 'show record btrace bts')
ptdbg_batch >"$log" || { cat "$log" >&2; die "ptdbg failed"; }
cat >"$TMPDIR/expect" <<'OUT'
The record pt buffer size is 4MB per thread.
The record pt buffer is circular.
The record pt kernel is off.
The record pt ret-compression is default.
The record pt tsc is default.
The record pt mtc is default.
The record pt cyc is default.
The record pt psb-period is default.
The record pt filter is none.
@@SET
The record pt buffer size is 64kB per thread.
The record pt buffer is full.
The record pt kernel is on.
The record pt ret-compression is off.
The record pt tsc is on.
The record pt mtc is off.
The record pt cyc is on.
The record pt psb-period is 3.
The record pt filters are main, 0x1000/0x200@/bin/true.
The record pt filters are main, 0x1000/0x200@/bin/true.
The record pt buffer is circular.
The record pt filter is none.
The record bts buffer size is 2MB per thread.
The record bts buffer size is 2MB per thread.
OUT
diff -u "$TMPDIR/expect" "$log" >&2 || die "settings are not shown back as set"

# bad values: one message each, saying what is valid; nothing changes
CMDS=('set record pt buffer-size 5000' 'set record pt buffer round'
      'set record pt kernel maybe' 'set record pt tsc sometimes' 'set record pt psb-period 16'
      'set record pt colour on' 'set record pt' 'show record pt colour'
      'set record bts buffer-size 3K' 'set record bts buffer full'
      'record pt filter 0x10/0@/bin/true' 'record pt filter a b'
      'record pt filter f1' 'record pt filter f2' 'record pt filter f3' 'record pt filter f4'
      'record pt filter f5' 'echo @@AFTER\n' 'show record pt buffer-size' 'show record pt filter')
ptdbg_batch >"$log"
cat >"$TMPDIR/expect" <<'OUT'
invalid pt buffer-size "5000": a power of two of pages (4K, 8K, ... 4M) is needed
invalid pt buffer "round" (circular: the newest trace survives, or full: drained at stops, nothing lost)
invalid pt kernel "maybe" (on or off)
invalid pt tsc "sometimes" (on or off, or default)
invalid pt psb-period "16" (0..15: PSB every 2^(n+11) bytes, or default)
unknown pt option "colour" (buffer-size, buffer, kernel, ret-compression, tsc, mtc, cyc, psb-period, filter)
"set record pt" must be followed by a setting.  Try "help set record".
unknown pt option "colour" (buffer-size, buffer, kernel, ret-compression, tsc, mtc, cyc, psb-period, filter)
invalid bts buffer-size "3K": a power of two of pages (4K, 8K, ... 4M) is needed
unknown bts option "buffer" (buffer-size)
invalid pt filter "0x10/0@/bin/true": START/SIZE@FILE wants two numbers (SIZE not 0) and a file, as in 0x1000/0x200@/usr/bin/prog
invalid pt filter "a b" (START/SIZE@FILE, FUNC@FILE, or none)
too many pt filters (at most 4; "none" clears them)
@@AFTER
The record pt buffer size is 4MB per thread.
The record pt filters are f1, f2, f3, f4.
OUT
diff -u "$TMPDIR/expect" "$log" >&2 || die "bad values are not refused as expected"

# the command line
CMDS=('show record pt buffer' 'show record pt buffer-size' 'show record pt filter')
ptdbg_batch --pt-buffer=full --pt-buffer-size 16M --pt-filter=main --pt-filter /bin/true >"$log" ||
	{ cat "$log" >&2; die "ptdbg with --pt-* options failed"; }
printf '%s\n' 'The record pt buffer is full.' 'The record pt buffer size is 16MB per thread.' \
	'The record pt filters are main, /bin/true.' >"$TMPDIR/expect"
diff -u "$TMPDIR/expect" "$log" >&2 || die "--pt-* options not taken"
for bad in --pt-buffer=half --pt-buffer-size=3000 --pt-filter=1/0@/x --pt-filter='a b'; do
	CMDS=('echo RAN\n')
	ptdbg_batch "$bad" >"$log" && die "$bad: ptdbg must exit with status 1"
	grep -q '^ptdbg: invalid pt ' "$log" || { cat "$log" >&2; die "$bad: no message"; }
	grep -q RAN "$log" && die "$bad: commands ran after a bad option"
done
"$PTDBG" -batch --pt-buffer >"$log" 2>&1 && die "--pt-buffer without a value must fail"
grep -qF "option '--pt-buffer' requires an argument" "$log" || die "--pt-buffer without a value: no message"

# gdb's spelling of the methods: record btrace pt and record btrace bts
# take that method (a trace format may follow, as after record pt),
# record btrace alone the first that works; with the simulated PMU both
# work, without it each is refused with the method named
prog=$TESTPROGS/loops
CMDS=('break main' 'run' 'record btrace bts' 'info record' 'record stop' 'record btrace pt pt'
      'info record' 'record stop' 'record btrace' 'info record')
PTDBG_SIMULATE_PMU=pt ptdbg_batch -- "$prog" >"$log" || { cat "$log" >&2; die "record btrace failed"; }
grep '^Recording format:' "$log" >"$TMPDIR/got"
printf '%s\n' 'Recording format: Branch Trace Store.' 'Recording format: Intel Processor Trace.' \
	'Recording format: Intel Processor Trace.' >"$TMPDIR/expect"
diff -u "$TMPDIR/expect" "$TMPDIR/got" >&2 || die "record btrace pt|bts: not that method"
# (on a machine with that hardware: recording with it)
for m in "bts|Branch Trace Store" "pt|Intel Processor Trace"; do
	CMDS=('break main' 'run' "record btrace ${m%%|*}" 'info record')
	env -u PTDBG_SIMULATE_PMU "$PTDBG" -batch "${CMDS[@]/#/-ex=}" --args "$prog" >"$log" 2>&1
	grep -q -e "^cannot record with method '${m%%|*}': " -e "^Recording format: ${m#*|}\.$" "$log" ||
		{ cat "$log" >&2; die "record btrace ${m%%|*} without the PMU: no refusal naming it"; }
done

# --help and help set record name them all
"$PTDBG" --help >"$log" || die "ptdbg --help failed"
for o in --pt-buffer=full --pt-buffer-size=SIZE --pt-filter=FILTER 'ptdbg doctor'; do
	grep -qF -- "$o" "$log" || die "--help does not mention $o"
done
CMDS=('help set record' 'help record pt')
ptdbg_batch >"$log"
for s in 'set record pt buffer-size SIZE' 'set record pt buffer circular|full' \
	'set record pt kernel on|off' 'set record pt ret-compression on|off|default' \
	'set record pt tsc|mtc|cyc on|off|default' 'set record pt psb-period N|default' \
	'set record bts buffer-size SIZE' 'record pt filter FUNCTION|FILE|START/SIZE@FILE'; do
	grep -qF -- "$s" "$log" || die "help does not document '$s'"
done
echo ok
