#!/usr/bin/env bash
# make bench: speed figures as ratios against baselines measured in this
# same run (never absolute timings compared with constants).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=${B:-build}
out="$B/bench"
mkdir -p "$out"
CFLAGS_W="-O0 -g -no-pie -fno-pie"
cc $CFLAGS_W -o "$out/work" bench/work.c
cc -O2 -g -Iinclude -Isrc -o "$out/bench-record" bench/bench-record.c "$B/libptdbg.a" \
	-lipt -lZydis -lZycore -ldw -lelf -lunwind-ptrace -lunwind-generic -lunwind -lpthread

ITERS=${BENCH_ITERS:-6000}   # about 500k instructions
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "== recording: workload bench/work $ITERS (from main to _exit)"
step=$("$out/bench-record" step blocks "$out/work" "$ITERS" | tail -1)
echo "step, blocks:          $step"
steppt=$("$out/bench-record" step pt "$out/work" "$ITERS" | tail -1)
echo "step, pt:              $steppt"
nopin=$(PTDBG_NO_PIN=1 "$out/bench-record" step blocks "$out/work" "$ITERS" | tail -1)
echo "step, blocks, no pin:  $nopin"
st=$(echo "$step" | field seconds)
np=$(echo "$nopin" | field seconds)
echo "ratio unpinned/pinned wall time (step): $(ratio "$np" "$st")"

# gdb 13 record full over the same span, as the outside baseline.
gdbt0=$(date +%s.%N)
timeout 1200 gdb -batch -nx -ex 'set pagination off' -ex 'break main' -ex run \
	-ex 'set record full insn-number-max unlimited' -ex 'record full' \
	-ex 'break _exit' -ex continue -ex 'info record' --args "$out/work" "$ITERS" \
	>"$out/gdb-record-full.log" 2>&1 || true
gdbt1=$(date +%s.%N)
gdbs=$(awk -v a="$gdbt0" -v b="$gdbt1" 'BEGIN { printf "%.3f", b - a }')
echo "gdb record full:       seconds=$gdbs ($(grep -m1 'Log contains' "$out/gdb-record-full.log" || echo 'see log'))"
echo "ratio gdb-record-full/step wall time: $(ratio "$gdbs" "$st")"
