#!/usr/bin/env bash
# gdb 13's command-file scripting in the shell, line for line against
# gdb: source (an empty file, blank and comment lines, indentation,
# source -v, nested files, "FILE:LINE: Error in sourced command file:"
# ending the file), if/else/end and while/loop_break/loop_continue/end
# (nested, in -x files, user commands and breakpoint command lists, void
# conditions false), define with $argc/$arg0... as text, redefinition,
# document/help, show user, hook-stop (printing a variable at every
# stop), hook-/hookpost-CMD, a loop of next in a user command, alias
# with its errors, set logging (the deprecated on/off, file, overwrite,
# redirect; the log files compared too), and the same typed on standard
# input, with the " >" prompts gdb gives body lines there.
. "$(dirname "$0")/lib.bash"
need_prereqs loops
need_gdb

W=$TMPDIR/cli
mkdir -p "$W"
cd "$W" || die "cannot cd to $W"
# an empty file, also the standard input of the runs (define reads its
# body there in batch mode)
: >empty.gdb
failed=0

# run NAME [options...]: the same command line to both, in $W; output
# and the log files gdb.txt and log2.txt (then removed) compared
run() {
	local name=$1 d
	shift
	for d in gdb ptdbg; do
		rm -f gdb.txt log2.txt
		if [ $d = gdb ]; then
			gdb -nx -batch "$@" <empty.gdb 2>&1
		else
			"$PTDBG" -batch "$@" <empty.gdb 2>&1
		fi | grep -v 'libthread_db' | normalize >"$TMPDIR/$name.$d"
		for f in gdb.txt log2.txt; do
			[ -f $f ] && { echo "== $f"; grep -v libthread_db $f | normalize; }
		done >>"$TMPDIR/$name.$d"
	done
	rm -f gdb.txt log2.txt
	if diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2; then
		note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
	else
		note "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
		failed=1
	fi
}

# source
printf '\n# a comment\n   \n\t# indented comment\n  echo indented\\n\n\necho last\\n\n' >plain.gdb
printf 'echo inner\\n\nsource missing.gdb\necho not here\\n\n' >inner.gdb
printf 'echo outer\\n\nsource inner.gdb\necho not here either\\n\n' >outer.gdb
run source -ex 'source empty.gdb' -ex 'source plain.gdb' -ex 'source -v plain.gdb' \
	-ex 'source' -ex 'source nosuch.gdb' -ex 'source outer.gdb' -ex 'echo after\n'
run source-x -x empty.gdb -x plain.gdb -x outer.gdb

# if, while, define, document, show user
cat >flow.gdb <<'EOF'
set $i = 0
while $i < 5
  set $i = $i + 1
  if $i == 2
    loop_continue
  end
  if $i == 4
    echo four: break\n
    loop_break
  else
    printf "i=%d\n", $i
  end
end
if $nosuch
  echo void is true\n
else
  echo void is false\n
end
if 0.5
  echo half is true\n
end
define args
  printf "argc=%d\n", $argc
  if $argc > 0
    echo first: $arg0\n
  end
  if $argc > 2
    print $arg2
  end
end
document args
Prints its arguments.
  if indented, a while it is text,
Second line of help.   
end
args
args 1 2
args 7 "x y" 'a'
args a\ b c
help args
help user-defined
show user args
show user
define args
  echo redefined $argc\n
end
args 1 2 3
define nest
  set $j = $arg0
  while $j > 0
    if $j % 2
      echo odd\n
    else
      echo even\n
    end
    set $j = $j - 1
  end
end
nest 3
show user nest
define many
  echo $arg11 $argc $arg1x $args $argcx\n
end
many 0 1 2 3 4 5 6 7 8 9 10 11
define recurse
  if $arg0 > 0
    printf "down %d\n", $arg0
    recurse $arg0-1
  end
end
recurse 3
define twoargs
  print $arg1
end
twoargs 1
echo not reached\n
EOF
run flow -x flow.gdb
# each error ends its -ex only
printf 'echo in\\n\nend\n' >body.gdb
run flow-errors -ex 'show user print' -ex 'show user nosuchcmd' -ex 'document nosuchcmd' \
	-ex 'document print' -ex 'define' -ex 'document' -ex 'if' -ex 'while' -ex 'loop_break' \
	-ex 'loop_continue' -ex 'else' -ex 'end' -ex 'print $argc' -ex 'define print' \
	-ex 'source body.gdb' -ex 'print 5' -ex 'define hook-nosuchcmd' -ex 'source body.gdb' \
	-ex 'define bad.name!' -ex 'if 1 +' -ex 'source body.gdb' -ex 'echo done\n'

# with a program: hook-stop, hookpost, a while of next, breakpoint
# command bodies with if/else
cat >prog.gdb <<'EOF'
define hook-stop
  printf "hook-stop: v=%d\n", v
end
break weigh
commands
  silent
  if v == 2
    echo v is two\n
  else
    printf "at weigh v=%d\n", v
  end
end
info breakpoints
run
define hook-stop
  echo stopped\n
end
continue
define nexts
  set $k = 0
  while $k < $arg0
    next
    set $k = $k + 1
  end
end
delete
nexts 3
define hookpost-echo
  echo [after echo]\n
end
define hook-echo
  echo [before echo]\n
end
echo hooked\n
define hook-nosuchcmd
end
show user
EOF
run prog -x prog.gdb "$TESTPROGS/loops"

# alias
run alias -ex 'alias sp = step' -ex 'alias -a spp = step' -ex 'alias step = next' \
	-ex 'alias zz = nosuch' -ex 'alias pp = print 1+' -ex 'pp 2' -ex 'alias' -ex 'alias x' \
	-ex 'alias sp = next' -ex 'alias y = pp' -ex 'y 40' -ex 'alias ib = info breakpoints' \
	-ex 'ib' -ex 'alias -- q2 = echo hi\n' -ex 'q2' -ex 'alias = print' \
	-ex 'alias a b = print' -ex 'alias bt = print' -ex 'alias b = print'

# set logging
run logging -ex 'show logging' -ex 'set logging on' -ex 'echo A\n' -ex 'bogus' \
	-ex 'set logging off' -ex 'set logging file log2.txt' -ex 'set logging overwrite on' \
	-ex 'set logging redirect on' -ex 'show logging' -ex 'set logging enabled on' \
	-ex 'echo B\n' -ex 'print 1+1' -ex 'set logging redirect off' \
	-ex 'set logging enabled on' -ex 'set logging enabled off' -ex 'show logging file' \
	-ex 'show logging enabled' -ex 'show logging overwrite' -ex 'show logging redirect' \
	-ex 'set logging enabled' -ex 'echo C\n' -ex 'set logging enabled off' -ex 'set logging' \
	-ex 'set logging bogus' -ex 'set logging enabled maybe' -ex 'set logging file' \
	-ex 'show logging bogus' -ex 'echo D\n'

# gdb 13's deprecated on and off: warned of once each, no argument,
# abbreviations and ambiguities
run logging-deprecated -ex 'set logging on log2.txt' -ex 'echo x\n' -ex 'set logging off' \
	-ex 'set logging of' -ex 'set logging o' -ex 'set logging ov' -ex 'set logging off x' \
	-ex 'set logging o on' -ex 'show logging o' -ex 'set logging on' -ex 'echo y\n' \
	-ex 'set logging of' -ex 'echo z\n'

# the stops and frames of a program go to the log, its own output not
run logging-prog -ex 'break weigh' -ex 'set logging redirect on' -ex 'set logging enabled on' \
	-ex run -ex bt -ex 'info frame' -ex 'set logging enabled off' -ex 'info breakpoints' \
	-ex 'set logging enabled on' -ex continue -ex 'set logging enabled off' "$TESTPROGS/loops"

# typed on standard input (a pipe): gdb prompts for body lines with one
# space per open block before ">"
cat >typed.in <<'EOF'
set $i = 0
while $i < 2
if $i == 0
echo zero\n
else
echo other\n
end
set $i = $i + 1
end
define foo
echo foo $arg0\n
end
foo 1

define bar
echo bar\n
dont-repeat
end
bar

document foo
Does foo.
end
help foo
show user
set logging enabled on
echo logged\n
set logging enabled off
loop_break
else
end
if
while
define
document nosuch
EOF
for d in gdb ptdbg; do
	rm -f gdb.txt
	if [ $d = gdb ]; then
		gdb -nx -q <typed.in 2>&1
	else
		"$PTDBG" -q <typed.in 2>&1 | sed 's/^(ptdbg) /(gdb) /; s/(ptdbg) /(gdb) /g'
	fi >"$TMPDIR/typed.$d"
	{ echo "== gdb.txt"; [ -f gdb.txt ] && cat gdb.txt; } | sed 's/(ptdbg) /(gdb) /g' >>"$TMPDIR/typed.$d"
done
if diff -u "$TMPDIR/typed.gdb" "$TMPDIR/typed.ptdbg" >&2; then
	note "typed: $(wc -l <"$TMPDIR/typed.ptdbg") lines identical to gdb's"
else
	note "typed: ptdbg differs from gdb (- gdb, + ptdbg)"
	failed=1
fi

[ "$failed" = 0 ] || die "command scripts differ from gdb"
