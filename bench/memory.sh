#!/usr/bin/env bash
# make bench, memory part (bench/run.sh runs it; it also runs alone once
# bench/run.sh built $B/bench): ptdbg's resident set when a recording of
# bench/work.c reaches _exit, for ITERS and MEM_ITERS iterations; the growth
# per recorded instruction between the two is what a long recording costs
# (goal <= 2 bytes with the pt format, soft and step).  Unbounded first;
# then bounded by buffer-size, measured between two sizes both past the
# bound, where it must stay flat however long the program runs.  The
# function-call segments that "info record" (and the call-history commands)
# build on demand are a cache of the history, not kept while recording;
# their cost is shown apart.
#
# glibc's malloc moves its mmap and trim thresholds with the allocation
# pattern, which makes the resident size jump by megabytes either way
# between runs (the heap in use does not); fixed thresholds make it follow
# what is held.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=${B:-build}
out="$B/bench"
ITERS=${ITERS:-${BENCH_ITERS:-6100}}
MEM_ITERS=${BENCH_MEM_ITERS:-$((ITERS * 10))}
BOUND=${BENCH_BOUND:-1048576}
export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=262144
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
growth() { # small-line big-line field
	awk -v a="$(echo "$1" | field "$3")" -v b="$(echo "$2" | field "$3")" \
	    -v x="$(echo "$1" | field recorded)" -v y="$(echo "$2" | field recorded)" \
	    'BEGIN { if (y > x) printf "%.2f", (b - a) / (y - x); else print "n/a" }'
}
mb() { awk -v a="$(echo "$1" | field rss)" 'BEGIN { printf "%.1f", a / 1048576 }'; }

echo "== memory: resident bytes per recorded instruction, $ITERS vs $MEM_ITERS iterations"
for name in "soft blocks" "soft pt" "step blocks" "step pt"; do
	small=$("$out/bench-record" --buffer-size=0 $name "$out/work" "$ITERS" | tail -1)
	big=$("$out/bench-record" --buffer-size=0 $name "$out/work" "$MEM_ITERS" | tail -1)
	printf "%-13s %s -> %s instructions: %s bytes/insn (%s with the function-call segments of info record)\n" \
		"$name," "$(echo "$small" | field recorded)" "$(echo "$big" | field recorded)" \
		"$(growth "$small" "$big" rss)" "$(growth "$small" "$big" rss_calls)"
done
for name in "soft pt" "step pt"; do
	small=$("$out/bench-record" --buffer-size="$BOUND" $name "$out/work" "$((MEM_ITERS / 2))" | tail -1)
	big=$("$out/bench-record" --buffer-size="$BOUND" $name "$out/work" "$MEM_ITERS" | tail -1)
	printf "%-13s buffer-size %s, %s -> %s instructions: %s bytes/insn (goal: about 0), resident %s -> %s MB, %s dropped\n" \
		"$name," "$BOUND" "$(echo "$small" | field recorded)" "$(echo "$big" | field recorded)" \
		"$(growth "$small" "$big" rss)" "$(mb "$small")" "$(mb "$big")" "$(echo "$big" | field dropped)"
done
