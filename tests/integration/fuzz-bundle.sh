#!/usr/bin/env bash
# libFuzzer over the trace bundle reader as `ptdbg --load DIR` runs it
# (tests/fuzz/fuzz-bundle.c): manifest, PT file, decoder image, the lazy
# history and a few motions on it.  Seeds are real recordings made here
# with the soft recorder and `record save` (fib: one thread, several PSB
# segments; threads: three), each thread's PT with the manifest, plus
# tests/fuzz/gen-seeds' synthesized manifests.  A fixed -seed and -runs
# keep the run the same every time; FUZZ_RUNS overrides the count.  Any
# crash, leak or sanitizer report fails.
source "$(dirname "$0")/lib.bash"
need_prereqs fib threads
fuzz_build
work=$TMPDIR/fuzz-bundle
mkdir -p "$work/corpus"
# From main to the printf (fib) or to the end of main (threads, past its
# workers' exits without stopping there): the
# program's own code only.  libc's map is dropped from the seeds, as its
# debug information would cost a second per input.
record() {
	local name=$1 to=$2 out
	shift 2
	out=$("$PTDBG" -batch -ex 'break main' -ex run -ex 'record soft pt' \
		-ex 'set record stop-at-thread-exit off' -ex "break $to" \
		-ex continue -ex "record save $work/$name" --args "$@" 2>&1)
	grep -q "Saved the recording to $work/$name" <<<"$out" || { echo "$out"; die "cannot record $name"; }
}
record fib "$(line_of fib.c 'printf(')" "$TESTPROGS/fib" 12
record threads "$(line_of threads.c 'return 0;')" "$TESTPROGS/threads"
n=0
for b in fib threads; do
	grep -v '^map .*/\(libc\|ld-linux\)\|^map .* mem-' "$work/$b/manifest" | grep -v '^thread ' >"$work/$b.head"
	while read -r _ tid file tail; do
		{ cat "$work/$b.head"; echo "thread $tid pt.bin $tail"; printf '\0'; cat "$work/$b/$file"; } \
			>"$work/corpus/$b-$tid"
		n=$((n + 1))
	done < <(grep '^thread ' "$work/$b/manifest")
	# all threads of the bundle over one file
	{ cat "$work/$b.head"; grep '^thread ' "$work/$b/manifest" | sed 's/ pt-[0-9]*\.bin / pt.bin /'
	  printf '\0'; cat "$work/$b/$(grep -m1 '^thread ' "$work/$b/manifest" | cut -d' ' -f3)"; } \
		>"$work/corpus/$b-all"
done
[ "$n" -ge 4 ] || die "expected 4 threads' traces in the seeds, got $n"
cd "$work" || exit 1
fuzz_run fuzz-bundle corpus "${FUZZ_RUNS:-2500}" -max_len=65536
echo "fuzz-bundle: ok"
