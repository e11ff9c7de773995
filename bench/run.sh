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

# Memory: ptdbg's resident set when the recording reaches _exit, for the
# workload above and one MEM_ITERS long; the growth per recorded
# instruction is what a long recording costs (goal <= 2 bytes with the pt
# format).  Unbounded here; then bounded by buffer-size, where it must stay
# flat however long the program runs.  The function-call segments that
# "info record" (and call-history commands) build on demand are a cache of
# the history, not kept while recording; their cost is shown apart.
MEM_ITERS=${BENCH_MEM_ITERS:-$((ITERS * 10))}
BOUND=${BENCH_BOUND:-1048576}
growth() { # small-line big-line field
	awk -v a="$(echo "$1" | field "$3")" -v b="$(echo "$2" | field "$3")" \
	    -v x="$(echo "$1" | field recorded)" -v y="$(echo "$2" | field recorded)" \
	    'BEGIN { if (y > x) printf "%.2f", (b - a) / (y - x); else print "n/a" }'
}
echo
echo "== memory: resident bytes per recorded instruction, $ITERS vs $MEM_ITERS iterations"
for mf in "soft blocks:$soft" "soft pt:$softpt" "step blocks:$step" "step pt:$steppt"; do
	name=${mf%%:*}
	small=${mf#*:}
	big=$("$out/bench-record" $name "$out/work" "$MEM_ITERS" | tail -1)
	printf "%-13s %s -> %s instructions: %s bytes/insn (%s with the function-call segments of info record)\n" \
		"$name," "$(echo "$small" | field recorded)" "$(echo "$big" | field recorded)" \
		"$(growth "$small" "$big" rss)" "$(growth "$small" "$big" rss_calls)"
done
# Bounded: both sizes past the bound, so the growth between them is what a
# recording that goes on costs once its buffer is full.
mb() { awk -v a="$(echo "$1" | field rss)" 'BEGIN { printf "%.1f", a / 1048576 }'; }
for name in "soft pt" "step pt"; do
	small=$("$out/bench-record" --buffer-size="$BOUND" $name "$out/work" "$((MEM_ITERS / 2))" | tail -1)
	big=$("$out/bench-record" --buffer-size="$BOUND" $name "$out/work" "$MEM_ITERS" | tail -1)
	printf "%-13s buffer-size %s, %s -> %s instructions: %s bytes/insn (goal: about 0), resident %s -> %s MB, %s dropped\n" \
		"$name," "$BOUND" "$(echo "$small" | field recorded)" "$(echo "$big" | field recorded)" \
		"$(growth "$small" "$big" rss)" "$(mb "$small")" "$(mb "$big")" "$(echo "$big" | field dropped)"
done
echo
echo "== decoding (src/decode): synthesized PT, ${BENCH_PT_MB:-64} MB"
"$out/bench-decode" "${BENCH_PT_MB:-64}"
