#!/usr/bin/env bash
# The test scripts themselves: no grep -q at the end of a pipeline.  Under
# pipefail its early exit kills the writer with SIGPIPE (bash's echo writes
# a line at a time), so such a check fails or passes by scheduling; use
# lib.bash's qgrep, which reads all its input.  A script that cannot fail
# is the other defect looked for: `|| true` right after a ptdbg run.
. "$(dirname "$0")/lib.bash"
cd "$TOP/tests" || die "no tests directory"
bad=$(grep -rnE '\|[[:space:]]*grep[[:space:]]+-[A-Za-z]*q' --include='*.sh' --include='*.bash' .)
[ -z "$bad" ] || die "grep -q at the end of a pipeline (use qgrep): $bad"
bad=$(grep -rnE '(ptdbg_batch|\$PTDBG)[^#]*\|\|[[:space:]]*true' --include='*.sh' .)
[ -z "$bad" ] || die "a ptdbg run whose failure is swallowed: $bad"
# the check above finds what it should
printf 'x |%s -Eq y\n' ' grep' >"$TMPDIR/probe.sh"
grep -qE '\|[[:space:]]*grep[[:space:]]+-[A-Za-z]*q' "$TMPDIR/probe.sh" || die "the lint pattern misses grep -Eq"
echo "test scripts: no pipeline ends in grep -q"
