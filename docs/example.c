/*
 * example: the libptdbg public API in one small program.
 *
 * It launches a program (or attaches to a running one), records it from
 * there, runs it to a function, steps one instruction back into the
 * recorded past, and prints the function-call history and the backtrace
 * at that past position, then kills the launched program (or detaches,
 * leaving an attached one running).
 *
 *   example [-m METHOD] [-n COUNT] -b FUNC PROGRAM [ARGS...]
 *   example [-m METHOD] [-n COUNT] -b FUNC -p PID
 *
 * -b FUNC: run until FUNC has been entered COUNT times (default 1);
 * -m METHOD: auto (default), pt, bts, soft or step.
 *
 * Build against an installed libptdbg:
 *   cc -o example docs/example.c $(pkg-config --cflags --libs ptdbg)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ptdbg/ptdbg.h>

/* Prints the library's message for a failed call and returns 1. */
static int fail(const char *what, int rc)
{
	fprintf(stderr, "example: %s: %s\n", what, ptd_last_error(rc));
	return 1;
}

/* "fib (fib.c:12)", or "0x401136" without symbols. */
static void describe(struct ptd_symbols *sym, uint64_t pc, int caller, char *out, size_t n)
{
	struct ptd_symbol fn;
	struct ptd_line li;
	const char *name = "??";

	if (sym && ptd_symbols_lookup(sym, pc, &fn) == 0)
		name = fn.name;
	/* a caller's pc is a return address: its line is the call's */
	if (sym && ptd_symbols_line(sym, caller ? pc - 1 : pc, &li) == 0)
		snprintf(out, n, "%s (%s:%d)", name, ptd_symbols_display_name(sym, li.file), li.line);
	else
		snprintf(out, n, "%s", name);
}

/* Every function-call segment, indented by call depth; the segment that
 * holds the current position is marked. */
static int print_calls(struct ptd_session *s)
{
	const struct ptd_calls *calls = ptd_session_calls(s);
	struct ptd_symbols *sym = ptd_session_symbols(s);
	uint64_t pos, count, n, i;
	int min, rc;

	if (!calls)
		return fail("function-call history", -ptde_invalid);
	rc = ptd_session_position(s, &pos, &count);
	if (rc < 0)
		return fail("position", rc);
	n = ptd_calls_count(calls);
	min = ptd_calls_min_level(calls);
	printf("function-call history (%" PRIu64 " segments):\n", n);
	for (i = 1; i <= n; i++) {
		const struct ptd_callseg *seg = ptd_calls_get(calls, i);
		struct ptd_symbol fn;
		const char *name = "??";

		if (!seg)
			continue;
		if (seg->is_gap)
			name = "[gap]";
		else if (sym && ptd_symbols_lookup(sym, seg->ip, &fn) == 0)
			name = fn.name;
		printf("%s%4" PRIu64 "\t%*s%s\tinstructions %" PRIu64 "-%" PRIu64 "\n",
		       pos >= seg->first && pos <= seg->last ? "=>" : "  ", seg->index,
		       2 * (seg->level - min), "", name, seg->first, seg->last);
	}
	return 0;
}

static int print_backtrace(struct ptd_session *s)
{
	uint64_t pcs[64];
	char where[256];
	int n = ptd_session_backtrace(s, pcs, 64);

	if (n < 0)
		return fail("backtrace", n);
	printf("backtrace:\n");
	for (int i = 0; i < n; i++) {
		describe(ptd_session_symbols(s), pcs[i], i > 0, where, sizeof(where));
		printf("  #%d  0x%016" PRIx64 " in %s\n", i, pcs[i], where);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *func = NULL;
	int method = PTD_METHOD_AUTO, count = 1, opt, rc, bp, hits = 0;
	pid_t pid = 0;
	struct ptd_session *s;
	struct ptd_event ev;
	struct ptd_record_info ri;
	char where[256];
	int status = 1;

	while ((opt = getopt(argc, argv, "+m:n:b:p:")) != -1) {
		switch (opt) {
		case 'm':
			method = ptd_method_parse(optarg);
			if (method < 0)
				return fail("-m", method);
			break;
		case 'n':
			count = atoi(optarg);
			break;
		case 'b':
			func = optarg;
			break;
		case 'p':
			pid = (pid_t)atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (!func || count < 1 || (pid > 0) == (optind < argc))
		goto usage;

	/* line by line: a script may wait for "breakpoint N at FUNC" */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("libptdbg %s\n", ptd_version());
	s = ptd_session_alloc();
	if (!s)
		return fail("session", -ptde_nomem);

	/* Launch and stop at main (as gdb's `start`), or attach. */
	if (pid > 0) {
		rc = ptd_session_attach(s, pid);
		if (rc < 0) {
			fail("attach", rc);
			goto out;
		}
	} else {
		rc = ptd_session_set_program(s, argv + optind);
		if (rc >= 0)
			rc = ptd_session_run(s, 1, &ev);
		if (rc < 0) {
			fail("run", rc);
			goto out;
		}
		if (ev.kind != PTD_EVENT_BREAKPOINT) {
			fprintf(stderr, "example: the program did not reach main\n");
			goto out;
		}
	}

	rc = ptd_session_record_start(s, (enum ptd_method)method);
	if (rc < 0) {
		fail("record", rc);
		goto out;
	}
	if (ptd_session_record_info(s, &ri) == 0)
		printf("recording with %s\n", ptd_method_name(ri.method));

	bp = ptd_session_break(s, func, 0);
	if (bp < 0) {
		fail("break", bp);
		goto out;
	}
	printf("breakpoint %d at %s\n", bp, func);
	while (hits < count) {
		rc = ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev);
		if (rc < 0) {
			fail("continue", rc);
			goto out;
		}
		if (ev.kind != PTD_EVENT_BREAKPOINT || ev.bp_id != bp) {
			fprintf(stderr, "example: the program stopped before entering %s %d times\n",
				func, count);
			goto out;
		}
		hits++;
	}
	describe(ptd_session_symbols(s), ev.pc, 0, where, sizeof(where));
	printf("breakpoint %d hit %d times: 0x%016" PRIx64 " in %s\n", bp, hits, ev.pc, where);

	/* One instruction back: we are now in the recorded past. */
	rc = ptd_session_motion(s, PTD_MOTION_STEPI, 1, &ev);
	if (rc < 0) {
		fail("reverse-stepi", rc);
		goto out;
	}
	describe(ptd_session_symbols(s), ev.pc, 0, where, sizeof(where));
	printf("stepped back to instruction %" PRIu64 ": 0x%016" PRIx64 " in %s%s\n", ev.number,
	       ev.pc, where, ptd_session_replaying(s) ? " (replaying)" : "");

	if (print_calls(s) || print_backtrace(s))
		goto out;

	/* Leave the program as we found it. */
	rc = pid > 0 ? ptd_session_detach(s) : ptd_session_kill(s);
	if (rc < 0) {
		fail(pid > 0 ? "detach" : "kill", rc);
		goto out;
	}
	printf("%s\n", pid > 0 ? "detached" : "killed");
	status = 0;
out:
	ptd_session_free(s);
	return status;

usage:
	fprintf(stderr, "usage: example [-m METHOD] [-n COUNT] -b FUNC (-p PID | PROGRAM [ARGS...])\n");
	return 2;
}
