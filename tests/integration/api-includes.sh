#!/usr/bin/env bash
# The shell and ptdbg-report use only the public API: every #include "..."
# in cmd/ptdbg and cmd/ptdbg-report names a public header (ptdbg/*.h under
# include/) or one of the front ends' own files (cmd/ptdbg/*.h), never a
# library header under src/.  The Makefile also compiles them without
# -Isrc; this test names the offending line.  (cmd/ptdbg-server moves onto
# the public header separately and is not checked here yet.)
. "$(dirname "$0")/lib.bash"

cd "$TOP"
bad=0
n=0
for f in cmd/ptdbg/*.[ch] cmd/ptdbg-report/*.[ch]; do
	[ -f "$f" ] || continue
	while IFS= read -r line; do
		n=$((n + 1))
		inc=$(printf '%s\n' "$line" | sed -n -E 's/^[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p')
		[ -n "$inc" ] || continue
		case "$inc" in
		ptdbg/*.h)
			[ -f "include/$inc" ] && continue ;;
		*)
			# a front end's own header, next to it or in cmd/ptdbg
			res=$(cd "$(dirname "$f")" && realpath -m "$inc")
			case "$res" in
			"$TOP"/cmd/ptdbg/*.h | "$TOP"/cmd/ptdbg-report/*.h)
				[ -f "$res" ] && continue ;;
			esac ;;
		esac
		note "$f:${line%%:*}: includes \"$inc\", which is not a public header (include/ptdbg)"
		bad=1
	done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
done
[ "$n" -gt 5 ] || die "found only $n quoted includes: is the check looking at the right files?"
grep -q -E '^\$\(B\)/cmd/ptdbg/%\.o \$\(B\)/cmd/ptdbg-report/%\.o: INC := -Iinclude$' Makefile ||
	die "the Makefile no longer compiles cmd/ptdbg and cmd/ptdbg-report with -Iinclude only"
[ "$bad" -eq 0 ] || die "front ends include library-internal headers"
echo "cmd/ptdbg and cmd/ptdbg-report include only public headers ($n includes checked)"
