#!/usr/bin/env bash
# make bench: speed figures as ratios against baselines measured in this
# same run (never absolute timings compared with constants).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=${B:-build}
out="$B/bench"
mkdir -p "$out"
LIBS="-lipt -lZydis -lZycore -ldw -lelf -lunwind-ptrace -lunwind-generic -lunwind -lz -lpthread"
cc -O0 -g -no-pie -fno-pie -o "$out/work" bench/work.c
cc -O2 -g -Iinclude -Isrc -o "$out/bench-record" bench/bench-record.c "$B/libptdbg.a" $LIBS
cc -O2 -g -Iinclude -Isrc -Itests/unit -o "$out/bench-decode" bench/bench-decode.c "$B/libptdbg.a" $LIBS

ITERS=${BENCH_ITERS:-6100}   # about 500k instructions from main to _exit
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "== recording: bench/work.c $ITERS, from main to _exit (wall time)"
step=$("$out/bench-record" step blocks "$out/work" "$ITERS" | tail -1)
echo "step, blocks:           $step"
steppt=$("$out/bench-record" step pt "$out/work" "$ITERS" | tail -1)
echo "step, pt:               $steppt"
soft=$("$out/bench-record" soft blocks "$out/work" "$ITERS" | tail -1)
echo "soft, blocks:           $soft"
softpt=$("$out/bench-record" soft pt "$out/work" "$ITERS" | tail -1)
echo "soft, pt:               $softpt"
nopin=$(PTDBG_NO_PIN=1 "$out/bench-record" soft blocks "$out/work" "$ITERS" | tail -1)
echo "soft, blocks, no pin:   $nopin"

# gdb 13 record full over the same span, as the outside baseline.
gdbt0=$(date +%s.%N)
timeout 1800 gdb -batch -nx -ex 'set pagination off' -ex 'break main' -ex run \
	-ex 'set record full insn-number-max unlimited' -ex 'record full' \
	-ex 'break _exit' -ex continue -ex 'info record' --args "$out/work" "$ITERS" \
	>"$out/gdb-record-full.log" 2>&1 || true
gdbt1=$(date +%s.%N)
gdbs=$(awk -v a="$gdbt0" -v b="$gdbt1" 'BEGIN { printf "%.3f", b - a }')
echo "gdb record full:        seconds=$gdbs ($(grep -m1 'Log contains' "$out/gdb-record-full.log" || echo 'see its log'))"

st=$(echo "$step" | field seconds)
so=$(echo "$soft" | field seconds)
np=$(echo "$nopin" | field seconds)
echo
echo "ratio step/soft wall time:             $(ratio "$st" "$so")   (goal >= 8)"
echo "ratio gdb-record-full/soft wall time:  $(ratio "$gdbs" "$so")   (goal >= 30)"
echo "ratio gdb-record-full/step wall time:  $(ratio "$gdbs" "$st")"
echo "soft stops per conditional+indirect branch: $(echo "$soft" | field stops_per_branch)   (goal <= 1.05)"
echo "ratio unpinned/pinned wall time (soft): $(ratio "$np" "$so")"
echo "history bytes per instruction: blocks $(echo "$step" | field bytes_per_insn), pt $(echo "$steppt" | field bytes_per_insn)"

echo
B="$B" ITERS="$ITERS" bash bench/memory.sh
echo
echo "== decoding (src/decode): synthesized PT, ${BENCH_PT_MB:-64} MB"
"$out/bench-decode" "${BENCH_PT_MB:-64}"
