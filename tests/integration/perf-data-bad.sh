#!/usr/bin/env bash
# Lost AUX data (a hole between AUXTRACE chunks, an AUX record with the
# TRUNCATED flag) becomes an overflow gap, and the trace after it decodes.
# Broken and mismatched offline traces give one clear error line through
# `ptdbg --load`, never a crash: a perf.data cut short, with a bad magic,
# recorded per cpu, or without its binary (named, with its build-id); a
# binary found in perf's build-id cache instead of its path; a bundle and a
# perf.data opened against a rebuilt binary are refused with both
# build-ids; a bundle records the cpu it was recorded on; a perf.data that
# perf record itself wrote (a software event: no PT hardware here) is read
# through and refused as not Intel PT.
. "$(dirname "$0")/lib.bash"
need_prereqs fib loops

# A private copy of the program, so it can be replaced.
mkdir -p "$TMPDIR/bin"
cp "$TESTPROGS/fib" "$TMPDIR/bin/prog"
"$PTDBG" -batch --method=soft --trace-format=pt -ex 'break main' -ex run -ex record -ex 'break _exit' \
	-ex 'delete 1' -ex continue -ex "record save --perf-data $TMPDIR/p.data" -ex "record save $TMPDIR/b" \
	-ex 'info record' --args "$TMPDIR/bin/prog" 5 >"$TMPDIR/rec.out" 2>&1
grep -q "Saved the recording to $TMPDIR/p.data." "$TMPDIR/rec.out" || { cat "$TMPDIR/rec.out" >&2; die "no perf.data saved"; }
n=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$TMPDIR/rec.out")
[ -n "$n" ] || die "no instruction count"
id=$(sed -n "s|^build-id \([0-9a-f]*\) $TMPDIR/bin/prog\$|\1|p" "$TMPDIR/b/manifest")
[ ${#id} = 40 ] || { cat "$TMPDIR/b/manifest" >&2; die "the bundle has no build-id for the program"; }
# the recording cpu, as /proc/cpuinfo has it
fam=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
model=$(awk -F': ' '/^model\t/ { print $2; exit }' /proc/cpuinfo)
grep -q "^cpu $fam $model [0-9]* [A-Za-z]*\$" "$TMPDIR/b/manifest" || { cat "$TMPDIR/b/manifest" >&2; die "the bundle's cpu is not this cpu ($fam $model)"; }

load() { # file-or-dir out -> ptdbg's status
	"$PTDBG" -batch --load "$1" -ex 'info record' >"$2" 2>&1
}
must_fail() { # file-or-dir expected-message
	local out=$TMPDIR/fail.out
	if load "$1" "$out"; then cat "$out" >&2; die "loading $1 succeeded"; fi
	grep -q "Segmentation\|Aborted\|AddressSanitizer\|runtime error" "$out" && { cat "$out" >&2; die "crash on $1"; }
	grep -qF -- "$2" "$out" || { cat "$out" >&2; die "loading $1: no '$2' in the message"; }
	test "$(grep -c "ptdbg: cannot load" "$out")" = 1 || { cat "$out" >&2; die "not one error line for $1"; }
}

# intact: the same count of instructions
load "$TMPDIR/p.data" "$TMPDIR/ok.out" || { cat "$TMPDIR/ok.out" >&2; die "the perf.data does not load"; }
grep -q "^Recorded $n instructions" "$TMPDIR/ok.out" || { cat "$TMPDIR/ok.out" >&2; die "the perf.data loads another history"; }

# cut short, bad magic, per cpu (AUXTRACE cpu field of the first record)
head -c 2000 "$TMPDIR/p.data" >"$TMPDIR/cut.data"
must_fail "$TMPDIR/cut.data" "outside the file"
cp "$TMPDIR/p.data" "$TMPDIR/magic.data"
printf 'PERFILEX' | dd of="$TMPDIR/magic.data" conv=notrunc 2>/dev/null
must_fail "$TMPDIR/magic.data" "not a perf.data (no PERFILE2 magic)"
cp "$TMPDIR/p.data" "$TMPDIR/percpu.data"
off=$(python3 - "$TMPDIR/percpu.data" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
doff, dsz = struct.unpack_from('<QQ', d, 40)
p = doff
while p < doff + dsz:
    t, misc, sz = struct.unpack_from('<IHH', d, p)
    if t == 71:
        print(p + 40)
        break
    p += sz + (struct.unpack_from('<Q', d, p + 8)[0] if t == 71 else 0)
EOF
)
[ -n "$off" ] || die "no AUXTRACE record in the perf.data"
printf '\0\0\0\0' | dd of="$TMPDIR/percpu.data" bs=1 seek="$off" conv=notrunc 2>/dev/null
must_fail "$TMPDIR/percpu.data" "record with 'perf record -e intel_pt//u --per-thread -- PROGRAM' instead"

# the binary gone: named with its build-id
mv "$TMPDIR/bin/prog" "$TMPDIR/bin/prog.saved"
export PERF_BUILDID_DIR=$TMPDIR/cache
must_fail "$TMPDIR/p.data" "'$TMPDIR/bin/prog' (build-id $id), which is neither at that path nor in $TMPDIR/cache/.build-id"
# found in perf's build-id cache instead
mkdir -p "$PERF_BUILDID_DIR/.build-id/${id:0:2}/${id:2}"
cp "$TMPDIR/bin/prog.saved" "$PERF_BUILDID_DIR/.build-id/${id:0:2}/${id:2}/elf"
load "$TMPDIR/p.data" "$TMPDIR/cache.out" || { cat "$TMPDIR/cache.out" >&2; die "not found in the build-id cache"; }
grep -q "^Recorded $n instructions" "$TMPDIR/cache.out" || die "the cache copy gives another history"
rm -rf "$PERF_BUILDID_DIR"

# a rebuilt binary at the path: both refused, with both build-ids
cp "$TESTPROGS/loops" "$TMPDIR/bin/prog"
other=$(readelf -n "$TMPDIR/bin/prog" | awk '/Build ID:/ { print $3 }')
[ "$other" != "$id" ] || die "the two programs have one build-id"
must_fail "$TMPDIR/p.data" "'$TMPDIR/bin/prog' is not the file that was recorded (build-id $id)"
must_fail "$TMPDIR/b" "'$TMPDIR/bin/prog' is not the file that was recorded (its build-id is $other, the trace wants $id)"
# and the original back: both load again
cp "$TMPDIR/bin/prog.saved" "$TMPDIR/bin/prog"
load "$TMPDIR/b" "$TMPDIR/b.out" || { cat "$TMPDIR/b.out" >&2; die "the bundle does not load with its binary back"; }
grep -q "^Recorded $n instructions" "$TMPDIR/b.out" || die "the bundle gives another history"

# lost data: an [overflow] gap where it was lost, the rest decodes; a
# contiguous split changes nothing
"$PTDBG" -batch --method=soft --trace-format=pt -ex 'break fib' -ex run -ex record -ex continue -ex continue \
	-ex continue -ex continue -ex "record save --perf-data $TMPDIR/f.data" -ex 'info record' \
	--args "$TESTPROGS/fib" 6 >"$TMPDIR/f.out" 2>&1
nf=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$TMPDIR/f.out")
[ -n "$nf" ] || { cat "$TMPDIR/f.out" >&2; die "no fib recording"; }
last_pc() { grep -oE '^[0-9]+	(=> )? *0x[0-9a-f]+' "$1" | tail -n 1 | grep -oE '0x[0-9a-f]+'; }
"$PTDBG" -batch --load "$TMPDIR/f.data" -ex 'record instruction-history 1,100000' >"$TMPDIR/intact.out" 2>&1
want_last=$(last_pc "$TMPDIR/intact.out")
[ -n "$want_last" ] || die "no listing of the intact perf.data"
for mode in contiguous hole truncated; do
	python3 "$TOP/tests/integration/perf_split.py" "$TMPDIR/f.data" "$TMPDIR/$mode.data" $mode ||
		die "cannot split the perf.data ($mode)"
	"$PTDBG" -batch --load "$TMPDIR/$mode.data" -ex 'info record' -ex 'record instruction-history 1,100000' \
		>"$TMPDIR/$mode.out" 2>&1 || { cat "$TMPDIR/$mode.out" >&2; die "$mode: --load failed"; }
	got=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$TMPDIR/$mode.out")
	novf=$(grep -c '^[0-9]*	\[overflow\]$' "$TMPDIR/$mode.out")
	[ "$(last_pc "$TMPDIR/$mode.out")" = "$want_last" ] || { cat "$TMPDIR/$mode.out" >&2; die "$mode: the trace after the split does not decode to its end"; }
	if [ $mode = contiguous ]; then
		[ "$got" = "$nf" ] && [ "$novf" = 0 ]
	else
		[ "$novf" = 1 ] && [ "$got" -gt 0 ] && [ "$got" -lt "$nf" ]
	fi || { cat "$TMPDIR/$mode.out" >&2; die "$mode: $got instructions, $novf overflow gaps (intact: $nf)"; }
done

# perf's own writer: every header, feature and record of a real perf.data
# is walked, and the file is refused for what it is
PERF=$(find_perf) || die "no working perf (install linux-perf)"
"$PERF" record -q -e cpu-clock --per-thread -o "$TMPDIR/sw.data" -- "$TESTPROGS/fib" 5 >"$TMPDIR/sw.rec" 2>&1 ||
	{ cat "$TMPDIR/sw.rec" >&2; die "perf record of a software event failed"; }
must_fail "$TMPDIR/sw.data" "sw.data has no PERF_RECORD_AUXTRACE_INFO: not an Intel PT recording; record with 'perf record -e intel_pt//u --per-thread -- PROGRAM'"
# compressed by perf record -z
"$PERF" record -q -z -e cpu-clock --per-thread -o "$TMPDIR/z.data" -- "$TESTPROGS/fib" 5 >"$TMPDIR/z.rec" 2>&1 ||
	{ cat "$TMPDIR/z.rec" >&2; die "perf record -z of a software event failed"; }
must_fail "$TMPDIR/z.data" "z.data is compressed (perf record -z), which ptdbg does not read; record without -z"
# written to a pipe
"$PERF" record -q -e cpu-clock --per-thread -o - -- "$TESTPROGS/fib" 5 >"$TMPDIR/pipe.data" 2>"$TMPDIR/pipe.rec" ||
	{ cat "$TMPDIR/pipe.rec" >&2; die "perf record -o - of a software event failed"; }
must_fail "$TMPDIR/pipe.data" "pipe.data was written to a pipe (perf record -o -), which ptdbg does not read; record to a file"

# the command: an argument is required; a blocks recording is converted
# to PT (ptconv) and saved like a pt one, and loads with its instructions
"$PTDBG" -batch -ex 'break main' -ex run -ex 'record soft pt' -ex 'record save --perf-data' \
	-ex 'record stop' -ex 'record soft' -ex 'next' -ex "record save --perf-data $TMPDIR/x.data" \
	--args "$TESTPROGS/fib" 3 >"$TMPDIR/cmd.out" 2>&1
grep -q '^Argument required (perf.data file to write).$' "$TMPDIR/cmd.out" || { cat "$TMPDIR/cmd.out" >&2; die "no argument error"; }
grep -q "^Saved the recording to $TMPDIR/x.data" "$TMPDIR/cmd.out" ||
	{ cat "$TMPDIR/cmd.out" >&2; die "a blocks recording is not saved as perf.data"; }
"$PTDBG" -batch --load "$TMPDIR/x.data" -ex 'info record' >"$TMPDIR/x.load" 2>&1 ||
	{ cat "$TMPDIR/x.load" >&2; die "the perf.data of a blocks recording does not load"; }
grep -q '^Recorded [1-9][0-9]* instructions' "$TMPDIR/x.load" ||
	{ cat "$TMPDIR/x.load" >&2; die "the perf.data of a blocks recording holds no instructions"; }
echo ok
