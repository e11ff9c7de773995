#!/usr/bin/env bash
# Golden tests: each tests/golden/NAME.cmd is a ptdbg session (a comment,
# the program line, then one command per line, each passed as -ex to
# `ptdbg -batch`); its exact expected output is tests/golden/NAME.out,
# compared with diff -u after normalising what changes from run to run
# (pids, the checkout's path).  The last line of the output is the exit
# status.  Directives in a .cmd file:
#   program: NAME [ARGS...]   a test program from testprogs/build (or none)
#   options: OPTS...          ptdbg options (default --method=step, so
#                             the output does not change when auto picks
#                             another recorder)
# Regenerate with UPDATE_GOLDEN=1 bash tests/integration/golden.sh [NAME...]
# and review the diff: the .out files are the specification.
. "$(dirname "$0")/lib.bash"

need_prereqs

run_golden() {
	local cmdfile=$1 name prog=() opts=(--method=step) line out rc
	name=$(basename "$cmdfile" .cmd)
	CMDS=()
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'#'* | '') ;;
		program:*)
			read -r -a prog <<<"${line#program:}"
			[ ${#prog[@]} -gt 0 ] && prog[0]=$TESTPROGS/${prog[0]}
			;;
		options:*) read -r -a opts <<<"${line#options:}" ;;
		*) CMDS+=("$line") ;;
		esac
	done <"$cmdfile"
	out=$TMPDIR/$name.out
	(cd "$TMPDIR" && ptdbg_batch "${opts[@]}" -- "${prog[@]}") | normalize >"$out"
	rc=${PIPESTATUS[0]}
	echo "[exit $rc]" >>"$out"
	check_golden "$name" "$out"
}

failed=()
if [ $# -gt 0 ]; then
	files=()
	for n in "$@"; do files+=("$GOLDEN/$n.cmd"); done
else
	files=("$GOLDEN"/*.cmd)
fi
for f in "${files[@]}"; do
	[ -f "$f" ] || die "no golden test $f"
	if run_golden "$f"; then
		note "ok $(basename "$f" .cmd)"
	else
		failed+=("$(basename "$f" .cmd)")
	fi
done
[ ${#failed[@]} -eq 0 ] || die "golden tests failed: ${failed[*]}"
