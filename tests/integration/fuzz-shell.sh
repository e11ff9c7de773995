#!/usr/bin/env bash
# libFuzzer over what a user types into the shell (tests/fuzz/fuzz-shell.c):
# command lines and expressions, in an empty session, with a program set
# but not started, and on a loaded trace bundle (recorded here from fib
# with the soft recorder and `record save`).  Seeds: tests/fuzz/seeds-shell
# (the first byte picks the session).  A fixed -seed and -runs keep the run
# the same every time; FUZZ_RUNS overrides the count.  Any crash, leak or
# sanitizer report fails.
source "$(dirname "$0")/lib.bash"
need_prereqs fib
fuzz_build
work=$TMPDIR/fuzz-shell
mkdir -p "$work/corpus"
cp "$TOP"/tests/fuzz/seeds-shell/* "$work/corpus/"
# Recorded from main up to the printf, and only fib's own map kept: the
# history commands have calls and lines to work on, and each input loads
# the bundle fast (libc's debug information would cost a second each).
out=$("$PTDBG" -batch -ex 'break main' -ex run -ex 'record soft pt' \
	-ex "break $(line_of fib.c 'printf(')" -ex continue \
	-ex "record save $work/full" --args "$TESTPROGS/fib" 6 2>&1)
grep -q "Saved the recording to $work/full" <<<"$out" || { echo "$out"; die "cannot record the bundle"; }
mkdir "$work/bundle"
cp "$work"/full/*.bin "$work/bundle/"
grep -v '^\(map\|build-id\|checksum\) .*/\(libc\|ld-linux\)' "$work/full/manifest" >"$work/bundle/manifest"
grep -q "^map .*/fib\$" "$work/bundle/manifest" || { cat "$work/full/manifest"; die "no map of fib in the bundle"; }
cd "$work" || exit 1
FUZZ_SHELL_PROG=$TESTPROGS/fib FUZZ_SHELL_BUNDLE=$work/bundle \
	fuzz_run fuzz-shell corpus "${FUZZ_RUNS:-3000}" -max_len=2048
echo "fuzz-shell: ok"
