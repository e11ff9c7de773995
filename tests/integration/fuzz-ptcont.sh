#!/usr/bin/env bash
# Short libFuzzer run of tests/fuzz/fuzz-ptcont.c: on random PT streams
# over a small program (written from packet operations: mode changes,
# PSBs right after MODE packets, OVF, TIP.PGD/TIP.PGE pairs, a FUP with
# TIP.PGE in PSB+, tiny PSB periods, empty segments; or the synthesized
# traces gen-seeds writes, mutated), ptdbg's history built every way
# (batch sizes, 1 and 2 threads, lazy with tiny parts, the fast path on
# and off, the --load layout) must equal one continuous libipt block
# decode, number by number.  The inputs it found once
# (tests/fuzz/seeds-ptcont) run first, then FUZZ_RUNS inputs (default
# 300) with a fixed -seed (1; 2 in build-san/), so each run is the same.
# Needs clang and its libFuzzer runtime (Debian: clang libclang-rt-14-dev);
# without them this test FAILS with a message saying what to install.
set -eu
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
work=${TMPDIR:-/tmp}/fuzz-ptcont.$$
mkdir -p "$work/corpus"
trap 'rm -rf "$work"' EXIT
runs=${FUZZ_RUNS:-300} # each input is decoded some 30 ways
[ "${B:-build}" = build-san ] && seed=2 || seed=1

CLANG=${CLANG:-clang}
if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "fuzz-ptcont: FAIL: '$CLANG' not found; install clang and its libFuzzer runtime" \
		"(Debian/Ubuntu: apt-get install clang libclang-rt-14-dev)" >&2
	exit 1
fi

# Probe the libFuzzer runtime first, so its absence gets its own message.
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$work/probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address -o "$work/probe" "$work/probe.c" >"$work/probe.log" 2>&1; then
	ver=$("$CLANG" -dumpversion | cut -d. -f1)
	echo "fuzz-ptcont: FAIL: $CLANG cannot link -fsanitize=fuzzer (libFuzzer runtime missing);" \
		"install libclang-rt-$ver-dev (Debian/Ubuntu)" >&2
	sed 's/^/    /' "$work/probe.log" | head -5 >&2
	exit 1
fi

# Built by make check's build step (make fuzz: build/fuzz/fuzz-ptcont and
# gen-seeds); this make finds them up to date, or builds them when the
# script runs alone.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" -s --no-print-directory -j2 \
	FUZZ_CC="$CLANG" build/fuzz/fuzz-ptcont build/fuzz/gen-seeds >&2
cp build/fuzz/fuzz-ptcont build/fuzz/gen-seeds "$work/"
"$work/gen-seeds" "$work/corpus"
rm -f "$work"/corpus/bundle-*
# Inputs this target and fuzz-decode found once (fixed defects, see
# tests/fuzz/open/README): run first, every time.
cp tests/fuzz/seeds-ptcont/* tests/fuzz/seeds-decode/* "$work/corpus/"
echo "fuzz-ptcont: $(ls "$work/corpus" | wc -l) seeds, fuzzing $runs inputs (seed $seed)"

# Leak checking stays on; a crash, leak, UB report or timeout fails the run.
cd "$work"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	./fuzz-ptcont -seed="$seed" -runs="$runs" -timeout=30 -rss_limit_mb=2048 -max_len=4096 \
	-print_final_stats=1 corpus 2>&1 | tail -n 25
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
	echo "fuzz-ptcont: FAIL: the fuzzer found a problem (exit $rc); the crashing input" \
		"(crash-*, leak-*, timeout-*) is kept in $work" >&2
	trap - EXIT
	exit 1
fi
echo "fuzz-ptcont: ok"
