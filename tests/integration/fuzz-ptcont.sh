#!/usr/bin/env bash
# Short libFuzzer run of tests/fuzz/fuzz-ptcont.c: on random PT streams
# over a small program (written from packet operations: mode changes,
# PSBs right after MODE packets, OVF, TIP.PGD/TIP.PGE pairs, a FUP with
# TIP.PGE in PSB+, tiny PSB periods, empty segments; or the synthesized
# traces gen-seeds writes, mutated), ptdbg's history built every way
# (batch sizes, 1 and 2 threads, lazy with tiny parts, the fast path on
# and off, the --load layout) must equal one continuous libipt block
# decode, number by number.  The inputs it found once
# (tests/fuzz/seeds-ptcont) and the synthesized traces run first, then
# FUZZ_RUNS new well-formed streams (default 150) with a fixed -seed (1;
# 2 in build-san/), so each run is the same, and as many again with
# timing packets (TSC, TMA, CBR, MTC, CYC) where hardware writes them,
# and with those and a Skylake's (and a function missing from the
# image), then an Apollo Lake's errata.
# Needs clang and its libFuzzer runtime (Debian: clang libclang-rt-14-dev);
# without them this test FAILS with a message saying what to install.
set -eu
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
work=${TMPDIR:-/tmp}/fuzz-ptcont.$$
mkdir -p "$work/corpus"
trap 'rm -rf "$work"' EXIT
runs=${FUZZ_RUNS:-150} # each input is decoded some 30 ways
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
# Inputs it found once (fixed defects, see tests/fuzz/open/README): run
# first, every time.
cp tests/fuzz/seeds-ptcont/* "$work/corpus/"
echo "fuzz-ptcont: $(ls "$work/corpus" | wc -l) seeds, fuzzing $runs inputs (seed $seed)"

# Leak checking stays on; a crash, leak, UB report or timeout fails the run.
cd "$work"
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
# The seeds as they are (damaged traces among them), each once.
./fuzz-ptcont -timeout=60 -rss_limit_mb=2048 corpus/* >seeds.log 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	grep -E "fuzz-ptcont:|Running:|ERROR" seeds.log | head -5 >&2
	echo "fuzz-ptcont: FAIL: a seed differs (exit $rc); see $work/seeds.log" >&2
	trap - EXIT
	exit 1
fi
# Then new inputs, read as well-formed streams (PTCONT_VALID: rounds of
# the program with PSB+ anywhere a hardware trace may have one).  Damaged
# traces (mutated bytes, random packets) still differ in ways listed in
# tests/fuzz/open/README: run this target without PTCONT_VALID to explore
# them.
mkdir valid
cp "$top"/tests/fuzz/seeds-ptcont-valid/* valid/
printf '\000\001\002\003\004\005\006' >valid/rounds
printf '\370\371\372\373\374\375\376\010\021\042\063\104\125\146' >valid/psbs
# well_formed DIR WHAT [VAR=VALUE...]: FUZZ_RUNS new well-formed streams
# from the corpus in valid/ (copied into DIR first), with those variables.
well_formed() {
	local dir=$1 what=$2 rc
	shift 2
	if [ "$dir" != valid ]; then
		mkdir "$dir"
		cp valid/* "$dir"/
	fi
	env PTCONT_VALID=1 "$@" ./fuzz-ptcont -seed="$seed" -runs="$runs" -timeout=60 \
		-rss_limit_mb=2048 -max_len=128 -print_final_stats=1 "$dir" 2>&1 | tail -n 25
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "fuzz-ptcont: FAIL: $what, the fuzzer found a problem (exit $rc); the crashing" \
			"input (crash-*, leak-*, timeout-*) is kept in $work" >&2
		trap - EXIT
		exit 1
	fi
}
well_formed valid "on well-formed streams"
# The same with timing packets where hardware writes them (TSC, TMA and
# CBR in PSB+, MTC, CYC, TSC and CBR between packets: PTCONT_TIMING in
# fuzz-ptcont.c), as real captures have them.
well_formed timing "with timing packets" PTCONT_TIMING=1
# And as a Skylake records them: libipt's errata for it on both sides
# (bdm70, skd010, skl014, ...; PTCONT_CPU), a TIP.PGD after a direct call
# out of the filtered range sometimes without its ip (SKL014).
# Here g (80-85) is also missing from the image on both sides, as in a
# capture whose image lacks a library: each call into it is a decode
# error and libipt goes on at the next PSB (PTCONT_HOLE).
well_formed skylake "with a Skylake's errata, g missing from the image" \
	PTCONT_CPU=6/0x4e PTCONT_TIMING=1 PTCONT_HOLE=0x80/0x86
# And as an Apollo Lake records them (APL11, APL12: overflows followed by
# a TIP.PGD, or by a FUP out of the filtered range; libipt reads ahead
# after them).
well_formed apollo "with an Apollo Lake's errata" PTCONT_CPU=6/0x5c PTCONT_TIMING=1
echo "fuzz-ptcont: ok"
