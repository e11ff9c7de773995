# Shared helpers for tests/integration/*.sh (sourced; not a test itself,
# which is why it does not end in .sh).
#
# tests/run-all.sh gives every script B, PTDBG, TESTPROGS, TOP and a fresh
# TMPDIR; the defaults below let a script also run by hand from the
# checkout (bash tests/integration/NAME.sh).  Everything here drives the
# real ptdbg shell and, as the independent oracle, gdb 13 with `record
# full`.  Addresses are stable because the test programs are non-PIE and
# both debuggers run them with ASLR disabled.

set -u -o pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
B=${B:-build}
# the build directory, absolute (B may be either)
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
PTDBG=${PTDBG:-$BD/bin/ptdbg}
TESTPROGS=${TESTPROGS:-$TOP/testprogs/build}
# on_exit CMD: run CMD (with eval) when the script exits, in order.
_exit_cmds=()
on_exit() { _exit_cmds+=("$1"); }
_run_exit_cmds() {
	local c
	for c in "${_exit_cmds[@]}"; do eval "$c"; done
}
trap _run_exit_cmds EXIT

if [ -z "${TMPDIR:-}" ] || [ "${TMPDIR:-}" = /tmp ]; then
	TMPDIR=$(mktemp -d)
	on_exit 'rm -rf "$TMPDIR"'
fi
export TMPDIR
GOLDEN=${GOLDEN:-$TOP/tests/golden}
GDB_REVPCS=$TOP/tests/integration/gdb_revpcs.py
SRCDIR=$TOP/testprogs

# Messages from a test go to stderr so they land in the log next to the
# output of the failing command.
note() { printf '%s\n' "$*" >&2; }
die() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
# grep -q for the end of a pipeline: reads all its input.  grep -q exits at
# the first match, and the writer before it (bash's echo writes a line at
# a time) then dies of SIGPIPE, which pipefail reports as a failure of the
# whole pipeline: a test that fails or passes by scheduling.
qgrep() { grep "$@" >/dev/null; }

# rsp_pkt PAYLOAD: the gdb remote-protocol packet framing PAYLOAD
rsp_pkt() {
	local p=$1 s=0 i c
	for ((i = 0; i < ${#p}; i++)); do
		printf -v c '%d' "'${p:i:1}"
		s=$(((s + c) & 255))
	done
	printf '$%s#%02x' "$p" "$s"
}

need_prereqs() {
	[ -x "$PTDBG" ] || die "ptdbg shell not built: $PTDBG"
	[ -d "$TESTPROGS" ] || die "test programs not built: $TESTPROGS"
	local p
	for p in "$@"; do
		[ -x "$TESTPROGS/$p" ] || die "test program missing: $TESTPROGS/$p"
	done
}

need_gdb() {
	command -v gdb >/dev/null || die "gdb not installed (it is the oracle)"
}

# gdb as every test runs it: with a remote timeout of 60 s, not 2.  On a
# loaded machine (make check runs tests side by side) a reply of
# ptdbg-server (a btrace document, the attach to a thousand threads) can
# take longer than 2 s; gdb then sends its packet again and reads the late
# reply as the answer to the next one, and the session garbles ("not
# well-formed (invalid token)").  A timeout is a timing assertion; a
# server that hangs still fails, at the script's guard.
gdb() { command gdb -iex 'set remotetimeout 60' "$@"; }

# The line number of the first line of testprogs/FILE containing the
# fixed string PATTERN, so tests do not hard-code line numbers.
line_of() {
	local n
	n=$(grep -nF -- "$2" "$SRCDIR/$1" | head -n 1 | cut -d: -f1)
	[ -n "$n" ] || die "no line with '$2' in $1"
	printf '%s:%s\n' "$1" "$n"
}

# Runs ptdbg in batch mode: ptdbg_batch [ptdbg options...] -- program [args...]
# Each element of the array CMDS becomes one -ex.  Output (stdout and
# stderr, in the order written) goes to stdout; the exit status is ptdbg's.
ptdbg_batch() {
	local opts=() ex=() c
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	for c in "${CMDS[@]}"; do ex+=(-ex "$c"); done
	if [ $# -gt 0 ]; then
		"$PTDBG" -batch "${opts[@]}" "${ex[@]}" --args "$@" 2>&1
	else
		"$PTDBG" -batch "${opts[@]}" "${ex[@]}" 2>&1
	fi
}

# Same for gdb (no init files, pagination off); program and arguments
# after --.
gdb_batch() {
	local opts=() ex=(-ex 'set pagination off' -ex 'set confirm off') c
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	for c in "${CMDS[@]}"; do ex+=(-ex "$c"); done
	gdb -nx -batch "${opts[@]}" "${ex[@]}" --args "$@" 2>&1
}

# The address gdb puts a breakpoint at for SPEC (a function or file:line)
# in program PROG, as 0x... .  Both debuggers are then given `break *ADDR`
# so a test of history contents does not depend on how each resolves
# locations (the golden tests cover that separately).
bp_addr() {
	local prog=$1 spec=$2 a
	a=$(gdb -nx -batch -ex "break $spec" "$TESTPROGS/$prog" 2>/dev/null |
		sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\).*/\1/p' | head -n 1)
	[ -n "$a" ] || die "gdb cannot place a breakpoint at $spec in $prog"
	printf '%s\n' "$a"
}

# Makes output comparable between runs and checkouts: the test program
# directory becomes testprogs/, process and thread ids become PID/LWP, and
# addresses on the stack (argv=0x7fffffffe738 in frame lines) become
# 0xSTACK: with ASLR off the stack ends at 0x7ffffffff000, but where its
# contents start depends on the environment's and the arguments' sizes.
# (Shared libraries, at 0x7ffff7..., stay where they are.)
normalize() {
	sed -e "s#$TESTPROGS/#testprogs/build/#g" \
	    -e "s#$SRCDIR/#testprogs/#g" \
	    -e "s#$TOP/#TOP/#g" \
	    -e 's/process [0-9][0-9]*/process PID/g' \
	    -e 's/LWP [0-9][0-9]*/LWP N/g' \
	    -e 's/Thread 0x[0-9a-f]*/Thread 0xX/g' | norm_stack
}

# Stack addresses become 0xSTACK (see normalize): gdb and ptdbg start the
# program with different environments (gdb adds LINES and COLUMNS), so
# frame lines such as "main (argc=1, argv=0x7fffffffe738)" differ there.
norm_stack() {
	sed -e 's/\b0x\(0000\)\{0,1\}7ffffff[d-f][0-9a-f]\{4\}\b/0xSTACK/g'
}

# past_args GDB PTDBG: compares two outputs of the same session in the
# recorded past, gdb 13 record full's (which has the registers and memory
# of the past) and ptdbg's, after norm_stack.  Where ptdbg prints a frame
# argument as <unavailable> (the recorder did not keep the registers
# there, as gdb's record btrace says) gdb's value for it is not compared;
# every other value must be gdb's.  Prints the diff and fails on a
# difference.
past_args() {
	python3 - "$1" "$2" <<'PY' || return 1
import re, subprocess, sys, tempfile
g = open(sys.argv[1]).read().split("\n")
p = open(sys.argv[2]).read().split("\n")
arg = re.compile(r"(\w+)=(<unavailable>)")
for i, line in enumerate(p):
	if i >= len(g) or "=<unavailable>" not in line:
		continue
	for m in arg.finditer(line):
		# gdb's value of the same argument on the same line: up to the
		# next ", name=" or the ") " that closes the list
		g[i] = re.sub(r"\b%s=(.*?)(?=, \w+=|\) at |\) from |\)$)" % re.escape(m.group(1)),
			      m.group(1) + "=<unavailable>", g[i], count=1)
with tempfile.NamedTemporaryFile("w", delete=False) as f:
	f.write("\n".join(g))
sys.exit(subprocess.call(["diff", "-u", f.name, sys.argv[2]], stdout=sys.stderr))
PY
}

# Compares ACTUAL (a file) with tests/golden/NAME.out.  With
# UPDATE_GOLDEN=1 it rewrites the expected file instead (then review the
# diff before committing it).
check_golden() {
	local name=$1 actual=$2 expect=$GOLDEN/$1.out
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$actual" "$expect"
		note "updated $expect"
		return 0
	fi
	[ -f "$expect" ] || die "no expected output $expect"
	if ! diff -u "$expect" "$actual" >&2; then
		note "golden $name differs (expected: $expect)"
		return 1
	fi
}

# The recording methods this ptdbg accepts (parsed from the error for an
# unknown one, so a method that lands is tested without editing the tests)
# and that can record on this machine.  auto is left out: it is one of the
# others.  step and soft need nothing but ptrace, so they MUST record
# everywhere: one that is missing or fails to start fails the test (with
# ptdbg's reason), it is never quietly left out.  pt and bts need hardware
# that VMs lack; when they refuse, the reason is noted in the log.
# METHODS="a b", if set, is used instead (how a test is run for one
# method only, e.g. the soft-recorder variants).
REQUIRED_METHODS=${REQUIRED_METHODS:-step soft}
ptdbg_methods() {
	local cache=$TMPDIR/.ptdbg-methods m out all r
	if [ -n "${METHODS:-}" ]; then
		printf '%s\n' $METHODS
		return
	fi
	if [ ! -f "$cache" ]; then
		all=$("$PTDBG" -batch --method=no-such-method 2>&1 |
			sed -n 's/.*(valid: \(.*\)).*/\1/p' | tr -d ' ' | tr ',' '\n' | grep -v -x auto)
		for r in $REQUIRED_METHODS; do
			grep -qx "$r" <<<"$all" || die "ptdbg does not offer the recording method $r (valid: $(echo $all))"
		done
		for m in $all; do
			out=$("$PTDBG" -batch -ex 'break main' -ex run -ex "record $m" \
				-ex 'info record' "$TESTPROGS/fib" 2>&1)
			if grep -q '^Active record target' <<<"$out"; then
				echo "$m"
			elif grep -qx "$m" <<<"$(printf '%s\n' $REQUIRED_METHODS)"; then
				printf '%s\n' "$out" | tail -n 5 >&2
				die "ptdbg cannot record with method $m, which must work on every machine"
			else
				note "method $m refused on this machine: $(grep -m 1 'cannot record' <<<"$out")"
			fi
		done >"$cache.tmp" || exit 1
		mv "$cache.tmp" "$cache"
	fi
	cat "$cache"
}

# The pc printed (by `echo STOPPED-AT\n` and `p/x $pc`) in log file $1.
stopped_at() {
	sed -n '/^STOPPED-AT$/{n;s/^\$[0-9]* = //p;}' "$1" | head -n 1
}

# gdb_pcs OUT A B NCONT PROG [ARGS...]: with gdb record full, break at
# address A, record, continue NCONT times (the last must stop at address
# B; the others at signals, which continue then delivers), and write the
# pc of every instruction recorded between A and B (oldest first, A
# included, B not) to OUT.
gdb_pcs() {
	local out=$1 a=$2 b=$3 ncont=$4 i log
	shift 4
	log=$out.gdblog
	CMDS=("break *$a" run 'record full' 'set record full insn-number-max unlimited'
	      delete "break *$b")
	for ((i = 0; i < ncont; i++)); do CMDS+=(continue); done
	CMDS+=('echo STOPPED-AT\n' 'p/x $pc' "source $GDB_REVPCS" "reverse-pcs $out")
	rm -f "$out"
	LD_BIND_NOW=1 gdb_batch -- "$@" >"$log"
	if [ "$(stopped_at "$log")" != "$b" ] || [ ! -s "$out" ]; then
		tail -n 20 "$log" >&2
		die "gdb record full did not get from $a to $b in $*"
	fi
}

# ptdbg_pcs OUT METHOD A B NCONT PROG [ARGS...]: the same span recorded by
# ptdbg with METHOD, listed with record instruction-history; the pcs of
# the listed instructions go to OUT.
ptdbg_pcs() {
	local out=$1 method=$2 a=$3 b=$4 ncont=$5 i log
	shift 5
	log=$out.ptdbglog
	CMDS=("break *$a" run record delete "break *$b")
	for ((i = 0; i < ncont; i++)); do CMDS+=(continue); done
	CMDS+=('echo STOPPED-AT\n' 'p/x $pc' 'info record'
	       'set record instruction-history-size unlimited'
	       'echo HISTORY-LISTING\n' 'record instruction-history /f')
	LD_BIND_NOW=1 ptdbg_batch --method="$method" -- "$@" >"$log"
	if [ "$(stopped_at "$log")" != "$b" ]; then
		tail -n 20 "$log" >&2
		die "ptdbg ($method) did not get from $a to $b in $*"
	fi
	# Numbered listing lines: "N<tab>   0xADDR <fn+off>:<tab>insn" (a
	# "=> " marker may precede the address).  Anything else numbered,
	# such as a gap, is kept verbatim so that it shows up in the diff.
	sed -n '/^HISTORY-LISTING$/,$p' "$log" | awk '/^[0-9]+\t/ {
		if (match($0, /0x[0-9a-f]+/)) {
			a = substr($0, RSTART + 2, RLENGTH - 2); sub(/^0+/, "", a); print a
		} else print "ITEM: " $0
	}' >"$out"
}

# Compares two pc lists; on a difference prints where they part and the
# context around it (as pcs with gdb's symbolic names).
compare_pcs() {
	local expect=$1 actual=$2 what=$3
	if cmp -s "$expect" "$actual"; then
		return 0
	fi
	note "$what: instruction sequences differ (gdb record full: $(wc -l <"$expect") insns, ptdbg: $(wc -l <"$actual") insns)"
	diff -u "$expect" "$actual" | head -n 40 >&2
	return 1
}

# span_methods ALL ONLY: the methods to run a span with: ALL (from
# ptdbg_methods), restricted to the words of ONLY when ONLY is not empty
# and METHODS is not set (a known failure of one method on one span is
# kept out of the passing tests; METHODS=soft runs it in pending/).
span_methods() {
	local m
	if [ -z "$2" ] || [ -n "${METHODS:-}" ]; then
		printf '%s\n' $1
		return
	fi
	for m in $1; do
		case " $2 " in *" $m "*) echo "$m" ;; esac
	done
}

# insn_oracle SPAN...: oracle (b) over each SPAN
# "prog|from|to|ncont|args|only" (from/to: a function or file:line; ncont:
# continues from the first breakpoint to reach the second, more than one
# when signals stop the program on the way; only: see span_methods).
# Every method ptdbg can use is compared with gdb.  Returns nonzero if any
# differ.
insn_oracle() {
	local s prog from to ncont args only a b ref got m failed=0 methods
	methods=$(ptdbg_methods) || exit 1
	[ -n "$methods" ] || die "cannot get the list of recording methods from ptdbg"
	note "methods: $(echo $methods)"
	for s in "$@"; do
		IFS='|' read -r prog from to ncont args only <<<"$s"
		a=$(bp_addr "$prog" "$from") || exit 1
		b=$(bp_addr "$prog" "$to") || exit 1
		ref=$TMPDIR/$prog.gdb
		# shellcheck disable=SC2086 # args are words
		gdb_pcs "$ref" "$a" "$b" "$ncont" "$TESTPROGS/$prog" $args || exit 1
		for m in $(span_methods "$methods" "$only"); do
			got=$TMPDIR/$prog.$m
			# shellcheck disable=SC2086
			if ! (ptdbg_pcs "$got" "$m" "$a" "$b" "$ncont" "$TESTPROGS/$prog" $args); then
				failed=1
				continue
			fi
			if compare_pcs "$ref" "$got" "$prog $from..$to ($m)"; then
				note "ok $prog $from..$to ($m): $(wc -l <"$ref") instructions"
			else
				failed=1
			fi
		done
	done
	return $failed
}

# Turns the output of a session made by motion_cmds into one line per
# motion: "COMMAND | pc | Line N of FILE | no-history?".  Files are
# reduced to their base names (gdb prints the DW_AT_name, ptdbg may print
# the full path).  The symbol gdb prints after the pc is left out: where
# several names alias one address gdb names the function after its debug
# information and ptdbg after the ELF symbol table.
motion_summary() {
	awk '
		/^@@ / { if (cmd != "") print cmd " | " pc " | " line " | " nh
			 cmd = substr($0, 4); pc = "?"; line = "?"; nh = ""; inpc = 0; next }
		cmd == "" { next }
		/^No more reverse-execution history\.$/ { nh = "no-history" }
		/^@@pc$/ { inpc = 1; next }
		inpc && /^\$[0-9]+ = / { match($0, /0x[0-9a-f]+/); pc = substr($0, RSTART, RLENGTH); inpc = 0; next }
		/^Line [0-9]+ of "/ { match($0, /^Line [0-9]+ of "[^"]*"/); line = substr($0, 1, RLENGTH)
			 sub(/"[^"]*\//, "\"", line) }
		/^No line number information/ { line = "no line" }
		END { if (cmd != "") print cmd " | " pc " | " line " | " nh }'
}

# motion_oracle PROG FROM TO 'CMD;CMD;...' [ARGS...]: oracle (c).  Both
# gdb (record full) and every ptdbg method break at FROM, record, continue
# to TO, then run the motions; after each, the pc and the source line they
# landed on must be the same.  FROM and TO are resolved to addresses by
# gdb as in oracle (b); all breakpoints are deleted before the motions so
# that only the motions decide where they stop.  ONLY=... in the
# environment restricts the methods as for span_methods; NCONT=N continues
# N times to reach TO (the others stop at signals, as in oracle (b)).
motion_oracle() {
	local prog=$1 from=$2 to=$3 cmds=$4 a b c m failed=0 ref got methods i
	local -a motions conts=()
	shift 4
	for ((i = 0; i < ${NCONT:-1}; i++)); do conts+=(continue); done
	a=$(bp_addr "$prog" "$from") || exit 1
	b=$(bp_addr "$prog" "$to") || exit 1
	IFS=';' read -r -a motions <<<"$cmds"
	_motion_cmds() {
		CMDS+=(delete)
		for c in "${motions[@]}"; do
			CMDS+=("echo @@ $c\\n" "$c" 'echo @@pc\n' 'p $pc' 'info line *$pc')
		done
	}
	ref=$TMPDIR/$prog.motions.gdb
	CMDS=("break *$a" run 'record full' 'set record full insn-number-max unlimited'
	      delete "break *$b" "${conts[@]}" 'echo STOPPED-AT\n' 'p/x $pc')
	_motion_cmds
	LD_BIND_NOW=1 gdb_batch -- "$TESTPROGS/$prog" "$@" >"$ref.log"
	[ "$(stopped_at "$ref.log")" = "$b" ] || { tail -n 20 "$ref.log" >&2; die "gdb did not get from $from to $to in $prog"; }
	motion_summary <"$ref.log" >"$ref"
	methods=$(ptdbg_methods) || exit 1
	for m in $(span_methods "$methods" "${ONLY:-}"); do
		got=$TMPDIR/$prog.motions.$m
		CMDS=("break *$a" run record delete "break *$b" "${conts[@]}" 'echo STOPPED-AT\n' 'p/x $pc')
		_motion_cmds
		LD_BIND_NOW=1 ptdbg_batch --method="$m" -- "$TESTPROGS/$prog" "$@" >"$got.log"
		if [ "$(stopped_at "$got.log")" != "$b" ]; then
			tail -n 20 "$got.log" >&2
			note "ptdbg ($m) did not get from $from to $to in $prog"
			failed=1
			continue
		fi
		motion_summary <"$got.log" >"$got"
		if diff -u "$ref" "$got" >"$got.diff"; then
			note "ok $prog ($m): ${#motions[@]} motions land where gdb's do"
		else
			note "$prog ($m): motions land elsewhere than gdb's (--- gdb record full, +++ ptdbg):"
			cat "$got.diff" >&2
			failed=1
		fi
	done
	return $failed
}

# perf: Debian's /usr/bin/perf is a wrapper that wants a perf_X.Y for the
# running kernel; fall back to the versioned binaries it would run.
# Prints a working perf binary (the oracle of the perf.data tests).
find_perf() {
	local p
	for p in ${PERF:-} perf /usr/bin/perf_* /usr/lib/linux-tools*/perf /usr/lib/linux-tools/*/perf; do
		[ -n "$p" ] || continue
		command -v "$p" >/dev/null 2>&1 || [ -x "$p" ] || continue
		if "$p" --version 2>/dev/null | qgrep '^perf version'; then
			printf '%s\n' "$p"
			return 0
		fi
	done
	return 1
}

# fuzz_build: builds the libFuzzer targets (build/fuzz/fuzz-*, `make fuzz`:
# clang -fsanitize=fuzzer,address,undefined).  Needs clang and its
# libFuzzer runtime; without them the test FAILS saying what to install.
fuzz_build() {
	local clang=${FUZZ_CC:-clang} ver
	command -v "$clang" >/dev/null 2>&1 ||
		die "'$clang' not found; install clang and its libFuzzer runtime (Debian/Ubuntu: apt-get install clang libclang-rt-14-dev)"
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$TMPDIR/probe.c"
	if ! "$clang" -fsanitize=fuzzer,address -o "$TMPDIR/probe" "$TMPDIR/probe.c" >"$TMPDIR/probe.log" 2>&1; then
		ver=$("$clang" -dumpversion | cut -d. -f1)
		sed 's/^/    /' "$TMPDIR/probe.log" | head -5 >&2
		die "$clang cannot link -fsanitize=fuzzer (libFuzzer runtime missing); install libclang-rt-$ver-dev"
	fi
	# (not the settings of a make this test may run under, such as SANITIZE)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" -s --no-print-directory -j2 \
		FUZZ_CC="$clang" fuzz >&2 ||
		die "cannot build the fuzz targets (make fuzz)"
}

# fuzz_run NAME CORPUS RUNS [libFuzzer options...]: runs build/fuzz/NAME over
# the seeds in CORPUS (a copy; new inputs land there) for RUNS inputs with
# a fixed -seed, in the current directory.  The fuzz targets are the same
# for the plain and the sanitized build, so each build has its own seed
# (1 for build/, 2 for build-san/, FUZZ_SEED to choose): the two runs of
# `make check` cover different inputs, each the same every time.  A crash, leak, sanitizer report
# or timeout fails the test; the input that did it is kept (crash-*,
# leak-*, timeout-* in the current directory) and printed in hex.
fuzz_run() {
	local name=$1 corpus=$2 runs=$3 rc f
	shift 3
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$TOP/build/fuzz/$name" -seed="${FUZZ_SEED:-$([ "$B" = build-san ] && echo 2 || echo 1)}" -runs="$runs" -timeout=30 -rss_limit_mb=2048 \
		-close_fd_mask=3 -print_final_stats=1 "$@" "$corpus" >"$TMPDIR/$name.log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q '^==[0-9]*==ERROR\|runtime error:' "$TMPDIR/$name.log"; then
		sed -n '/^==[0-9]*==ERROR\|runtime error:/,$p' "$TMPDIR/$name.log" | head -n 120 >&2
	else
		tail -n 40 "$TMPDIR/$name.log" >&2
	fi
	if [ "$rc" -ne 0 ]; then
		for f in crash-* leak-* timeout-* oom-*; do
			[ -f "$f" ] || continue
			note "input $PWD/$f:"
			od -c "$f" | head -n 20 >&2
		done
		die "$name: the fuzzer found a problem (exit $rc)"
	fi
	grep -q '^Done [0-9]* runs' "$TMPDIR/$name.log" || die "$name: the fuzzer did not finish its runs"
}

# pt_send CMD: sends CMD to a ptdbg running as the coprocess PT, followed by
# an echo marker, and appends ">>> CMD" and what ptdbg prints up to the
# marker to $transcript.  A ptdbg that does not answer within 120 s fails the test
# (a guard against hangs, not a timing assertion).
pt_send() {
	local line
	printf '%s\necho @@DONE\\n\n' "$1" >&"${PT[1]}"
	echo ">>> $1" >>"$transcript"
	while IFS= read -r -t 120 -u "${PT[0]}" line; do
		printf '%s\n' "$line" >>"$transcript"
		[[ $line == *@@DONE* ]] && return 0
	done
	cat "$transcript" >&2
	die "no answer from ptdbg to '$1'"
}

# For the tests that leave a program ptdbg attached to (attach-leave.sh,
# leave-write-errors.sh): is it as it was?
# busy_reference: testprogs/busy run once on the CPUs $all_cpus, nobody
# attached, through fifos in $TMPDIR/ref; its checksum line ("sum N"),
# what every run ptdbg attached to must still compute, goes into $want.
busy_reference() {
	local d=$TMPDIR/ref p line ref
	mkdir -p "$d"; mkfifo "$d/ctl" "$d/go"
	exec 3<>"$d/ctl" 4<>"$d/go"
	taskset -c "$all_cpus" "$TESTPROGS/busy" "$d" >/dev/null &
	ref=$!
	read -r -t 60 -u 3 p || die "busy did not start"
	echo go >&4
	read -r -t 60 -u 3 line && [ "$line" = started ] || die "busy did not start its threads"
	read -r -t 60 -u 3 want || die "busy gave no sum"
	echo leave >&4
	wait "$ref" || die "busy failed on its own"
	exec 3<&- 4<&-
	[[ $want == "sum "* ]] || die "unexpected reference output '$want'"
}

# The text of every executable file mapping of PID equals the file.
text_intact() {
	local pid=$1 range perms off dev inode path start end size len
	while read -r range perms off dev inode path; do
		[[ $perms == *x* && $path == /* ]] || continue
		start=$((16#${range%-*})); end=$((16#${range#*-})); off=$((16#$off))
		size=$(stat -L -c %s "$path"); len=$((end - start))
		[ $((off + len)) -le "$size" ] || len=$((size - off))
		[ "$len" -gt 0 ] || continue
		cmp -s -n "$len" \
			<(dd if="/proc/$pid/mem" iflag=skip_bytes,count_bytes skip="$start" count="$len" status=none) \
			<(dd if="$path" iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none) ||
			{ note "text of $path at $range differs from the file"; return 1; }
	done <"/proc/$pid/maps"
}

# "TID MASK TRACER" for every thread of PID.
threads_state() {
	local t
	for t in /proc/"$1"/task/*; do
		printf '%s %s %s\n' "${t##*/}" \
			"$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status")" \
			"$(sed -n 's/^TracerPid:[[:space:]]*//p' "$t/status")"
	done
}

# compare_gdb NAME PROG [ARGS...]: the commands of CMDS in ptdbg and in
# gdb 13 on PROG, each output through the script's norm() (when it has
# one); they must be identical.  Leaves $TMPDIR/NAME.ptdbg and NAME.gdb.
compare_gdb() {
	local name=$1 f=cat
	shift
	declare -F norm >/dev/null && f=norm
	ptdbg_batch -- "$@" | $f >"$TMPDIR/$name.ptdbg"
	gdb_batch -- "$@" | $f >"$TMPDIR/$name.gdb"
	diff -u "$TMPDIR/$name.gdb" "$TMPDIR/$name.ptdbg" >&2 || die "$name: ptdbg differs from gdb (- gdb, + ptdbg)"
	note "$name: $(wc -l <"$TMPDIR/$name.ptdbg") lines identical to gdb's"
}
