#!/usr/bin/env bash
# Short libFuzzer run over the PT decode path (the fast path compared with
# the plain libipt path on every input) and the bundle parser
# (tests/fuzz/fuzz-decode.c): the target built with clang
# -fsanitize=fuzzer,address,undefined (make fuzz), writes a seed
# corpus of synthesized traces (plus the inputs in tests/fuzz/seeds-decode
# it found once), and fuzzes FUZZ_RUNS inputs (default 1000) with a fixed
# -seed (1; 2 in build-san/), so each run is the same.
# Needs clang and its libFuzzer runtime (Debian: clang libclang-rt-14-dev);
# without them this test FAILS with a message saying what to install.
set -eu
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
work=${TMPDIR:-/tmp}/fuzz-decode.$$
mkdir -p "$work/corpus"
trap 'rm -rf "$work"' EXIT
runs=${FUZZ_RUNS:-1000} # each input is decoded several ways (fast path and libipt; serial, lazy, parallel)
[ "${B:-build}" = build-san ] && seed=2 || seed=1

CLANG=${CLANG:-clang}
if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "fuzz-decode: FAIL: '$CLANG' not found; install clang and its libFuzzer runtime" \
		"(Debian/Ubuntu: apt-get install clang libclang-rt-14-dev)" >&2
	exit 1
fi

# Probe the libFuzzer runtime first, so its absence gets its own message.
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$work/probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address -o "$work/probe" "$work/probe.c" >"$work/probe.log" 2>&1; then
	ver=$("$CLANG" -dumpversion | cut -d. -f1)
	echo "fuzz-decode: FAIL: $CLANG cannot link -fsanitize=fuzzer (libFuzzer runtime missing);" \
		"install libclang-rt-$ver-dev (Debian/Ubuntu)" >&2
	sed 's/^/    /' "$work/probe.log" | head -5 >&2
	exit 1
fi

# Built by make check's build step (make fuzz: build/fuzz/fuzz-decode and
# gen-seeds); this make finds them up to date, or builds them when the
# script runs alone.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" -s --no-print-directory -j2 \
	FUZZ_CC="$CLANG" build/fuzz/fuzz-decode build/fuzz/gen-seeds >&2
cp build/fuzz/fuzz-decode build/fuzz/gen-seeds "$work/"
"$work/gen-seeds" "$work/corpus"
# Inputs it found once (fixed defects, see tests/fuzz/open/README): run
# first, every time.
cp tests/fuzz/seeds-decode/* "$work/corpus/"
echo "fuzz-decode: $(ls "$work/corpus" | wc -l) seeds, fuzzing $runs inputs (seed $seed)"

# Leak checking stays on; a crash, leak, UB report or timeout fails the run.
cd "$work"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	./fuzz-decode -seed="$seed" -runs="$runs" -timeout=30 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 corpus 2>&1 | tail -n 25
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
	echo "fuzz-decode: FAIL: the fuzzer found a problem (exit $rc); the crashing input" \
		"(crash-*, leak-*, timeout-*) is kept in $work" >&2
	trap - EXIT
	exit 1
fi
echo "fuzz-decode: ok"
