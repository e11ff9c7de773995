#!/usr/bin/env bash
# `run ARGS` with the redirections gdb users type (gdb starts the program
# through a shell): < FILE, > FILE, >> FILE, 2> FILE, 2>&1 (in order), &>
# FILE, quoted operators taken as arguments, set args keeping them for the
# next run.  The same commands under gdb 13 and ptdbg, on /bin/cat, must
# leave the same files and print the same lines; a redirection that
# cannot be done is an error, the program not started.
. "$(dirname "$0")/lib.bash"

need_gdb
# gdb starts the program with $SHELL (/bin/sh when it is unset, as under
# CI): there `&>out` means "in the background, then >out".  ptdbg reads
# the redirections as bash does, so gdb gets bash here.
export SHELL=/bin/bash
cat=$(command -v cat)
printf 'line one\nline two\n' >"$TMPDIR/in"
printf 'from a file\n' >"$TMPDIR/two words"

# run_both NAME CMD...: the commands in gdb (files under gdb/) and in
# ptdbg (files under ptdbg/), each in its own directory; compares the
# files and the outputs.
run_both() {
	local name=$1 d
	shift
	for d in gdb ptdbg; do
		rm -rf "${TMPDIR:?}/$d"
		mkdir -p "$TMPDIR/$d"
		cp "$TMPDIR/in" "$TMPDIR/two words" "$TMPDIR/$d/"
		local -a ex=()
		for c in "$@"; do ex+=(-ex "$c"); done
		if [ "$d" = gdb ]; then
			(cd "$TMPDIR/$d" && gdb -nx -q -batch "${ex[@]}" "$cat" </dev/null 2>&1) |
				grep -v -e libthread_db -e '^\[Thread debugging' | normalize >"$TMPDIR/$d.out"
		else
			(cd "$TMPDIR/$d" && "$PTDBG" -q -batch "${ex[@]}" "$cat" </dev/null 2>&1) |
				normalize >"$TMPDIR/$d.out"
		fi
	done
	diff -u "$TMPDIR/gdb.out" "$TMPDIR/ptdbg.out" >&2 || die "$name: ptdbg's output differs from gdb's (- gdb, + ptdbg)"
	diff -ru "$TMPDIR/gdb" "$TMPDIR/ptdbg" >&2 || die "$name: ptdbg's files differ from gdb's"
	note "$name: same output ($(wc -l <"$TMPDIR/ptdbg.out") lines) and files ($(ls "$TMPDIR/ptdbg" | wc -l))"
}

run_both in-out 'run - "two words" < in > out'
qgrep '^line two$' "$TMPDIR/ptdbg/out" || die "in-out: stdin did not reach the program"
qgrep '^from a file$' "$TMPDIR/ptdbg/out" || die "in-out: the quoted argument was split"
run_both err-to-out 'run nosuch >out 2>&1'
qgrep 'nosuch: No such file' "$TMPDIR/ptdbg/out" || die "err-to-out: stderr not in the file"
run_both dup-first 'run nosuch 2>&1 >out'
run_both append 'run in >>out' 'run in >> out'
[ "$(grep -c '^line one$' "$TMPDIR/ptdbg/out")" = 2 ] || die "append: the second run did not append"
run_both both 'run nosuch in &>out'
run_both stderr 'run nosuch 2>err'
run_both quoted "run '>' x"
run_both set-args 'set args <in >out' 'show args' 'run'
qgrep '^line two$' "$TMPDIR/ptdbg/out" || die "set-args: stdin did not reach the program"

# Errors: no file, a file that cannot be opened; the program is not run.
out=$(cd "$TMPDIR" && "$PTDBG" -q -batch -ex 'run < nosuch' -ex 'info inferiors' "$cat" </dev/null 2>&1)
[[ $out == *"nosuch: No such file or directory"* ]] || die "missing input: '$out'"
out=$(cd "$TMPDIR" && "$PTDBG" -q -batch -ex 'run >' "$cat" </dev/null 2>&1)
[[ $out == *"Missing file name after '>'"* ]] || die "no file name: '$out'"
out=$(cd "$TMPDIR" && "$PTDBG" -q -batch -ex 'run > /nonexistent/dir/f' -ex 'run < in' "$cat" </dev/null 2>&1)
[[ $out == *"/nonexistent/dir/f: No such file or directory"* ]] || die "bad output path: '$out'"
[[ $out == *"line two"* ]] || die "the run after a failed one: '$out'"
note "errors: said, nothing started"
