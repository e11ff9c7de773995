#!/usr/bin/env bash
# The three front ends use only the public API: every #include "..." in
# cmd/ptdbg, cmd/ptdbg-report and cmd/ptdbg-server names a public header
# (ptdbg/*.h under include/) or one of the front ends' own files
# (cmd/ptdbg/*.h), never a library header under src/.  The Makefile also
# compiles them without -Isrc; this test names the offending line.
. "$(dirname "$0")/lib.bash"

cd "$TOP"
bad=0
n=0
for f in cmd/ptdbg/*.[ch] cmd/ptdbg-report/*.[ch] cmd/ptdbg-server/*.[ch]; do
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
			"$TOP"/cmd/ptdbg/*.h | "$TOP"/cmd/ptdbg-report/*.h | "$TOP"/cmd/ptdbg-server/*.h)
				[ -f "$res" ] && continue ;;
			esac ;;
		esac
		note "$f:${line%%:*}: includes \"$inc\", which is not a public header (include/ptdbg)"
		bad=1
	done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
done
[ "$n" -gt 5 ] || die "found only $n quoted includes: is the check looking at the right files?"
grep -q -E '^\$\(B\)/cmd/ptdbg/%\.o \$\(B\)/cmd/ptdbg-report/%\.o \$\(B\)/cmd/ptdbg-server/%\.o: INC := -Iinclude$' Makefile ||
	die "the Makefile no longer compiles the front ends (cmd/ptdbg, cmd/ptdbg-report, cmd/ptdbg-server) with -Iinclude only"
[ "$bad" -eq 0 ] || die "front ends include library-internal headers"
echo "cmd/ptdbg, cmd/ptdbg-report and cmd/ptdbg-server include only public headers ($n includes checked)"
