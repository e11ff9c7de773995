#!/usr/bin/env bash
# libptdbg.so exports exactly the public API: every function declared with
# PTD_EXPORT in include/ptdbg/*.h is defined in the library's dynamic
# symbol table, and nothing else is (the library is built with
# -fvisibility=hidden, so an internal function cannot leak, and a public
# declaration without a definition is caught here, not by a user's link).
# The header also stands alone: it compiles by itself as C (strict
# warnings, no -Isrc) and as C++.
. "$(dirname "$0")/lib.bash"

lib=$BD/libptdbg.so
[ -f "$lib" ] || die "$lib is missing (make all)"
command -v nm >/dev/null || die "nm (binutils) is needed"

# The names declared: "extern PTD_EXPORT <type> [*]name(" on one line.
grep -h -E '^extern PTD_EXPORT ' "$TOP"/include/ptdbg/*.h |
	sed -n -E 's/^extern PTD_EXPORT [^(]*[ *]([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' | sort >"$TMPDIR/declared"
# Every such line must have given a name (a declaration split before its
# name would escape the comparison), and PTD_EXPORT appears nowhere else
# but in its #define and in comments.
n_lines=$(cat "$TOP"/include/ptdbg/*.h | grep -c -E '^extern PTD_EXPORT ')
[ "$n_lines" -eq "$(wc -l <"$TMPDIR/declared")" ] ||
	die "a PTD_EXPORT declaration does not name its function on the same line"
other=$(grep -n 'PTD_EXPORT' "$TOP"/include/ptdbg/*.h | grep -v -E ':(extern PTD_EXPORT |#define PTD_EXPORT | \*|/\*)')
[ -z "$other" ] || die "PTD_EXPORT used other than as 'extern PTD_EXPORT type name(': $other"
[ "$(wc -l <"$TMPDIR/declared")" -gt 50 ] || die "too few public declarations found"
[ -z "$(uniq -d "$TMPDIR/declared")" ] || die "declared twice: $(uniq -d "$TMPDIR/declared")"

# The names exported: defined dynamic symbols but the linker's own.
nm -D --defined-only "$lib" | awk '{print $NF}' |
	grep -v -x -E '_init|_fini|__bss_start|_edata|_end' | sort -u >"$TMPDIR/exported"

if ! diff -u "$TMPDIR/declared" "$TMPDIR/exported" >"$TMPDIR/diff"; then
	note "--- declared in include/ptdbg, +++ exported by $B/libptdbg.so:"
	cat "$TMPDIR/diff" >&2
	die "the exported symbols and the public header differ"
fi

# Exported functions only (a data symbol would be an undocumented ABI).
nm -D --defined-only "$lib" | awk '$2 != "T" && $NF ~ /^ptd/ {print}' >"$TMPDIR/nontext"
[ ! -s "$TMPDIR/nontext" ] || die "exported data: $(cat "$TMPDIR/nontext")"

# Each header stands alone, as C and as C++.
for h in "$TOP"/include/ptdbg/*.h; do
	h=ptdbg/${h##*/}
	printf '#include <%s>\nint main(void) { return ptd_version() == 0; }\n' "$h" >"$TMPDIR/h.c"
	cc -std=c11 -Wall -Wextra -Wstrict-prototypes -Werror -I"$TOP/include" -fsyntax-only "$TMPDIR/h.c" ||
		die "include/$h does not compile by itself as C11"
	if command -v c++ >/dev/null; then
		c++ -Wall -Wextra -Werror -I"$TOP/include" -x c++ -fsyntax-only "$TMPDIR/h.c" ||
			die "include/$h does not compile as C++"
	fi
done
echo "$(wc -l <"$TMPDIR/declared") public functions, all exported, nothing else"
