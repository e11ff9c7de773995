/*
 * End-to-end recorder equivalence through the session: for every test
 * program, the history recorded with the step recorder (ground truth),
 * with the soft recorder, and with either one's outcomes written as PT
 * and decoded back (trace format pt) has the identical instruction
 * sequence and the same number of function-call segments; the program's
 * exit code is the same as without ptdbg.  Also: method names, bad
 * input, reverse motions at the ends of the history.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "history/history.h"
#include "ptdbg/ptdbg.h"
#include "session/session.h"

static char progdir[4096];

struct rec {
	uint64_t vdso_lo, vdso_hi; /* instructions here are left out */
	uint64_t *ips;
	uint64_t n;
	uint64_t ncalls;
	int exit_code;
};

static void rec_free(struct rec *r)
{
	free(r->ips);
	memset(r, 0, sizeof(*r));
}

/* Records @prog from @from to @until (a breakpoint; NULL: to _exit). */
static void record(const char *prog, const char *arg, const char *method, const char *fmt,
		   const char *from, const char *until, struct rec *out)
{
	char path[4200];
	char *argv[3];
	struct ptd_session *s = ptd_session_alloc();
	struct ptd_event ev;
	struct ptd_hcursor c;
	const struct ptd_history *h;
	const struct ptd_calls *calls;
	int m;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%s", progdir, prog);
	argv[0] = path;
	argv[1] = (char *)arg;
	argv[2] = NULL;
	assert_non_null(s);
	m = ptd_method_parse(method);
	assert_true(m >= 0);
	assert_int_equal(ptd_session_set_program(s, argv), 0);
	assert_int_equal(ptd_session_set_trace_format(s, fmt), 0);
	assert_true(ptd_session_break(s, from, 1) > 0);
	assert_int_equal(ptd_session_run(s, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_BREAKPOINT);
	assert_true(ptd_session_break(s, until ? until : "_exit", 0) > 0);
	assert_int_equal(ptd_session_record_start(s, (enum ptd_method)m), 0);
	do
		assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
	while (ev.kind == PTD_EVENT_SIGNAL); /* handled signals are passed on */
	assert_int_equal(ev.kind, PTD_EVENT_BREAKPOINT);
	h = ptd_session_history(s);
	assert_non_null(h);
	if (getenv("PTD_TEST_KEEP_VDSO") == NULL && strstr(prog, "vdso")) {
		/* The vdso's clock reads retry while the kernel updates its
		 * time data, which depends on how long each run takes: those
		 * instructions differ from run to run, the rest must not. */
		char maps[64], line[512];
		snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)ptd_session_pid(s));
		FILE *f = fopen(maps, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			if (strstr(line, "[vdso]")) {
				unsigned long long lo, hi;
				assert_int_equal(sscanf(line, "%llx-%llx", &lo, &hi), 2);
				out->vdso_lo = lo;
				out->vdso_hi = hi;
			}
		fclose(f);
		assert_true(out->vdso_hi > out->vdso_lo);
	}
	out->n = ptd_history_count(h);
	out->ips = calloc(out->n + 1, sizeof(uint64_t));
	assert_non_null(out->ips);
	assert_int_equal(ptd_hcursor_goto(&c, h, 1), 0);
	uint64_t k = 0;
	do {
		assert_true(k < out->n);
		if (!c.is_gap && c.ip >= out->vdso_lo && c.ip < out->vdso_hi)
			continue;
		out->ips[k++] = c.is_gap ? 0 : c.ip;
	} while (ptd_hcursor_next(&c) == 0);
	if (out->vdso_hi) {
		assert_true(k < out->n); /* the vdso did run */
		out->n = k;
	}
	if (k != out->n)
		fprintf(stderr, "%s %s %s: the history lists %llu of %llu instructions (0x%llx)\n",
			prog, method, fmt, (unsigned long long)k, (unsigned long long)out->n,
			(unsigned long long)out->ips[k - 1]);
	assert_int_equal(k, out->n);
	calls = ptd_session_calls(s);
	assert_non_null(calls);
	out->ncalls = ptd_calls_count(calls);
	if (getenv("PTD_TEST_DUMP_CALLS")) {
		char name[256];
		snprintf(name, sizeof(name), "%s.%s.%s.calls", getenv("PTD_TEST_DUMP_CALLS"), method, fmt);
		FILE *f = fopen(name, "w");
		for (uint64_t i = 1; f && i <= out->ncalls; i++) {
			const struct ptd_callseg *g = ptd_calls_get(calls, i);
			fprintf(f, "%llu %d %llu-%llu %llx\n", (unsigned long long)g->index, g->level,
				(unsigned long long)g->first, (unsigned long long)g->last,
				(unsigned long long)g->ip);
		}
		if (f)
			fclose(f);
	}
	/* Run the program to its end: same exit code as without ptdbg. */
	ptd_session_delete(s, 0);
	assert_int_equal(ptd_session_record_stop(s), 0);
	do
		assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
	while (ev.kind == PTD_EVENT_SIGNAL);
	assert_int_equal(ev.kind, PTD_EVENT_EXITED);
	out->exit_code = ev.exit_code;
	ptd_session_free(s);
}

static int plain_exit_code(const char *prog, const char *arg)
{
	char path[4200];
	int st;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", progdir, prog);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execl(path, path, arg, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void same(const struct rec *a, const struct rec *b, const char *what)
{
	uint64_t n = a->n < b->n ? a->n : b->n;

	for (uint64_t i = 0; i < n; i++)
		if (a->ips[i] != b->ips[i]) {
			fprintf(stderr, "%s: first difference at %llu: 0x%llx vs 0x%llx\n", what,
				(unsigned long long)i + 1, (unsigned long long)a->ips[i],
				(unsigned long long)b->ips[i]);
			fail();
		}
	if (a->n != b->n)
		fprintf(stderr, "%s: %llu vs %llu instructions\n", what, (unsigned long long)a->n,
			(unsigned long long)b->n);
	assert_int_equal(a->n, b->n);
	if (a->ncalls != b->ncalls)
		fprintf(stderr, "%s: %llu vs %llu function segments\n", what,
			(unsigned long long)a->ncalls, (unsigned long long)b->ncalls);
	assert_int_equal(a->ncalls, b->ncalls);
	assert_int_equal(a->exit_code, b->exit_code);
}

static void equivalence(const char *prog, const char *arg)
{
	struct rec step, steppt, soft, softpt;
	char what[200];

	record(prog, arg, "step", "blocks", "main", NULL, &step);
	assert_true(step.n > 100);
	assert_int_equal(step.exit_code, plain_exit_code(prog, arg));
	record(prog, arg, "step", "pt", "main", NULL, &steppt);
	snprintf(what, sizeof(what), "%s: step pt vs step", prog);
	same(&step, &steppt, what);
	record(prog, arg, "soft", "blocks", "main", NULL, &soft);
	snprintf(what, sizeof(what), "%s: soft vs step", prog);
	same(&step, &soft, what);
	record(prog, arg, "soft", "pt", "main", NULL, &softpt);
	snprintf(what, sizeof(what), "%s: soft pt vs step", prog);
	same(&step, &softpt, what);
	rec_free(&step);
	rec_free(&steppt);
	rec_free(&soft);
	rec_free(&softpt);
}

#define EQUIV(name, prog, arg)                                                                 \
	static void test_equiv_##name(void **state)                                               \
	{                                                                                          \
		equivalence(prog, arg);                                                            \
	}
EQUIV(fib, "fib", "8")
EQUIV(fib_O2, "fib-O2", "8")
EQUIV(loops, "loops", NULL)
EQUIV(funcptr, "funcptr", NULL)
EQUIV(switch, "switch", NULL)
EQUIV(switch_O2, "switch-O2", NULL)
EQUIV(tailcall_O2, "tailcall-O2", NULL)
EQUIV(longjmp, "longjmp", NULL)
EQUIV(signal, "signal", NULL)
EQUIV(vdso, "vdso", NULL)
EQUIV(dlopen, "dlopen", NULL)
EQUIV(fork, "fork", NULL)

static void test_methods(void **state)
{
	assert_int_equal(ptd_method_parse("auto"), PTD_METHOD_AUTO);
	assert_int_equal(ptd_method_parse("step"), PTD_METHOD_STEP);
	assert_int_equal(ptd_method_parse("soft"), PTD_METHOD_SOFT);
	assert_int_equal(ptd_method_parse("pt"), PTD_METHOD_PT);
	assert_int_equal(ptd_method_parse("bts"), PTD_METHOD_BTS);
	ptd_clear_error();
	assert_int_equal(ptd_method_parse("bogus"), -ptde_invalid);
	assert_non_null(strstr(ptd_last_error(-ptde_invalid), "valid: auto, pt, bts, soft, step"));
	assert_int_equal(ptd_method_parse(NULL), -ptde_invalid);
}

static void test_bad_input(void **state)
{
	struct ptd_session *s = ptd_session_alloc();
	struct ptd_event ev;
	char *nosuch[] = { "/nonexistent/prog", NULL };

	/* no program */
	assert_true(ptd_session_run(s, 0, &ev) < 0);
	/* nothing running */
	assert_true(ptd_session_motion(s, PTD_MOTION_STEPI, 0, &ev) < 0);
	assert_true(ptd_session_motion(s, PTD_MOTION_STEPI, 1, &ev) < 0);
	assert_true(ptd_session_record_start(s, PTD_METHOD_STEP) < 0);
	assert_true(ptd_session_detach(s) < 0);
	assert_true(ptd_session_kill(s) < 0);
	assert_true(ptd_session_goto(s, "begin", &ev) < 0);
	assert_true(ptd_session_attach(s, 99999999) < 0);
	assert_int_equal(ptd_session_set_trace_format(s, "bogus"), -ptde_invalid);
	/* a program that cannot be executed */
	assert_int_equal(ptd_session_set_program(s, nosuch), 0);
	ptd_clear_error();
	assert_true(ptd_session_run(s, 0, &ev) < 0);
	assert_non_null(strstr(ptd_last_error(-ptde_internal), "No such file"));
	assert_false(ptd_session_alive(s));
	ptd_session_free(s);
}

static void test_reverse_ends(void **state)
{
	char path[4200];
	char *argv[3];
	struct ptd_session *s = ptd_session_alloc();
	struct ptd_event ev;
	uint64_t pos, count, pc_end, pc;

	snprintf(path, sizeof(path), "%s/fib", progdir);
	argv[0] = path;
	argv[1] = "5";
	argv[2] = NULL;
	assert_int_equal(ptd_session_set_program(s, argv), 0);
	assert_true(ptd_session_break(s, "fib", 0) > 0);
	assert_int_equal(ptd_session_run(s, 0, &ev), 0);
	/* reverse without a recording is refused */
	assert_true(ptd_session_motion(s, PTD_MOTION_STEPI, 1, &ev) < 0);
	assert_int_equal(ptd_session_record_start(s, PTD_METHOD_STEP), 0);
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_BREAKPOINT);
	assert_int_equal(ptd_session_pc(s, &pc_end), 0);
	assert_int_equal(ptd_session_position(s, &pos, &count), 0);
	assert_int_equal(pos, count);
	assert_false(ptd_session_replaying(s));
	/* reverse-stepi then stepi comes back to the same place */
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_STEPI, 1, &ev), 0);
	assert_true(ptd_session_replaying(s));
	assert_int_equal(ptd_session_position(s, &pos, &count), 0);
	assert_int_equal(pos, count - 1);
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_STEPI, 0, &ev), 0);
	assert_int_equal(ptd_session_pc(s, &pc), 0);
	assert_int_equal(pc, pc_end);
	/* reverse-continue runs into the start of the history */
	assert_int_equal(ptd_session_delete(s, 0), 0);
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 1, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_NO_HISTORY);
	assert_int_equal(ptd_session_position(s, &pos, &count), 0);
	assert_int_equal(pos, 1);
	/* and once more: still there, still no history */
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_STEPI, 1, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_NO_HISTORY);
	/* record goto end leaves replay */
	assert_int_equal(ptd_session_goto(s, "end", &ev), 0);
	assert_false(ptd_session_replaying(s));
	assert_true(ptd_session_goto(s, "0", &ev) < 0);
	assert_true(ptd_session_goto(s, "junk", &ev) < 0);
	assert_int_equal(ptd_session_goto(s, "begin", &ev), 0);
	assert_int_equal(ptd_session_position(s, &pos, &count), 0);
	assert_int_equal(pos, 1);
	ptd_session_free(s);
}

/* Address of @sym in testprogs/@prog (non-PIE), from nm. */
static uint64_t nm_sym(const char *prog, const char *sym)
{
	char cmd[4400], line[512];
	uint64_t addr = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s/%s", progdir, prog);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char type, name[400];
		if (sscanf(line, "%llx %c %399s", &a, &type, name) == 3 && !strcmp(name, sym))
			addr = a;
	}
	pclose(p);
	assert_int_not_equal(addr, 0);
	return addr;
}

/* A write watchpoint on testprogs/watch's counter stops continue after
 * each of its three writes (the last in a thread created later), with no
 * recording and while the soft and step recorders record; the recording
 * goes on past each stop. */
static void hw_motion(int method)
{
	char path[4200];
	char *argv[2] = { path, NULL };
	struct ptd_session *s = ptd_session_alloc();
	uint64_t counter = nm_sym("watch", "counter"), pos, count;
	struct ptd_event ev;
	long v;

	snprintf(path, sizeof(path), "%s/watch", progdir);
	assert_int_equal(ptd_session_set_program(s, argv), 0);
	assert_int_equal(ptd_session_hw_set(s, 0, counter, 8, PTD_HW_WRITE), -ptde_not_running);
	assert_int_equal(ptd_session_run(s, 1, &ev), 0);
	if (method)
		assert_int_equal(ptd_session_record_start(s, (enum ptd_method)method), 0);
	assert_int_equal(ptd_session_hw_free_slot(s), 0);
	assert_int_equal(ptd_session_hw_set(s, 0, counter, 8, PTD_HW_WRITE), 0);
	for (long want = 1; want <= 12; want += want == 2 ? 10 : 1) {
		assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
		assert_int_equal(ev.kind, PTD_EVENT_HWBREAK);
		assert_int_equal(ev.hw_hits, 1u);
		assert_int_equal(ev.tid == ptd_session_pid(s), want < 12);
		assert_int_equal(ptd_session_read(s, counter, &v, sizeof(v)), sizeof(v));
		assert_int_equal(v, want);
		if (method) {
			assert_int_equal(ptd_session_position(s, &pos, &count), 0);
			assert_int_equal(pos, count);
		}
	}
	assert_int_equal(ptd_session_hw_clear(s, 0), 0);
	assert_int_equal(ptd_session_hw_get(s, 0, NULL, NULL, NULL), 0);
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_EXITED);
	assert_int_equal(ev.exit_code, 0);
	ptd_session_free(s);
}

/* The library's watchpoint places without the shell: a[i] of
 * testprogs/watchidx watches a[i] and i; the chain callback (the front
 * end's evaluator, here reading i itself) moves it when i changes. */
struct idx_ctx {
	struct ptd_session *s;
	uint64_t a, i;
};

static int idx_chain(void *ctx, const char *expr, uint64_t frame_cfa, struct ptd_watch_loc *locs,
		     int max)
{
	struct idx_ctx *c = ctx;
	int i = 0;

	assert_string_equal(expr, "a[i]");
	assert_int_equal(frame_cfa, 0); /* globals: no frame */
	assert_true(max >= 2);
	if (ptd_session_read(c->s, c->i, &i, sizeof(i)) != sizeof(i))
		return -ptde_nomap;
	locs[0].addr = c->a + 4 * (uint64_t)i;
	locs[0].len = 4;
	locs[1].addr = c->i;
	locs[1].len = 4;
	return 2;
}

static void test_watch_places(void **state)
{
	char path[4200];
	char *argv[2] = { path, NULL };
	struct idx_ctx c = { ptd_session_alloc(), nm_sym("watchidx", "a"), nm_sym("watchidx", "i") };
	struct ptd_watch_loc locs[2] = { { c.a, 4 }, { c.i, 4 } };
	static const int32_t want[] = { 5, 6, 8, 4, 3 };
	struct ptd_bpinfo bi;
	struct ptd_event ev;
	int id;

	snprintf(path, sizeof(path), "%s/watchidx", progdir);
	assert_int_equal(ptd_session_set_program(c.s, argv), 0);
	assert_int_equal(ptd_session_run(c.s, 1, &ev), 0);
	ptd_session_set_watch_chain(c.s, idx_chain, &c);
	id = ptd_session_watch(c.s, "a[i]", c.a, 4, PTD_WATCH_WRITE);
	assert_true(id > 0);
	/* bad input */
	assert_int_equal(ptd_session_watch_places(NULL, id, locs, 2), -ptde_invalid);
	assert_int_equal(ptd_session_watch_places(c.s, id, NULL, 2), -ptde_invalid);
	assert_int_equal(ptd_session_watch_places(c.s, id, locs, 0), -ptde_invalid);
	assert_int_equal(ptd_session_watch_places(c.s, id + 1, locs, 2), -ptde_invalid);
	locs[1].len = 9;
	assert_int_equal(ptd_session_watch_places(c.s, id, locs, 2), -ptde_invalid);
	locs[1].len = 4;
	assert_int_equal(ptd_session_watch_places(c.s, id, locs, 2), 0);
	/* a[0] = 5; i = 1 moves it to a[1] (6); a[0] = 7 passes; a[1] = 8;
	 * i = 3 (4); i = 2 (3) */
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		int32_t v;

		assert_int_equal(ptd_session_motion(c.s, PTD_MOTION_CONTINUE, 0, &ev), 0);
		assert_int_equal(ev.kind, PTD_EVENT_HWBREAK);
		assert_int_equal(ptd_session_bp_get(c.s, 0, &bi), 0);
		assert_int_equal(bi.id, id);
		assert_true(bi.triggered && bi.changed);
		assert_int_equal(bi.reports, 1);
		memcpy(&v, bi.value, sizeof(v));
		assert_int_equal(v, want[k]);
	}
	assert_int_equal(ptd_session_delete(c.s, id), 0);
	assert_int_equal(ptd_session_motion(c.s, PTD_MOTION_CONTINUE, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_EXITED);
	ptd_session_free(c.s);
}

static void test_hw_plain(void **state)
{
	hw_motion(0);
}

static void test_hw_soft(void **state)
{
	hw_motion(PTD_METHOD_SOFT);
}

static void test_hw_step(void **state)
{
	hw_motion(PTD_METHOD_STEP);
}

/* The shell's stop before exit_group (gdb's record full): the program is
 * alive at the syscall; advance in the past returns frame by frame and
 * ends at the end of the history; the next continue lets it exit. */
static void exit_stop(int method)
{
	char path[4200];
	char *argv[3];
	struct ptd_session *s = ptd_session_alloc();
	struct ptd_event ev;
	uint64_t pc, pos, count;
	uint8_t insn[2];
	int i;

	snprintf(path, sizeof(path), "%s/fib", progdir);
	argv[0] = path;
	argv[1] = "5";
	argv[2] = NULL;
	assert_int_equal(ptd_session_set_program(s, argv), 0);
	ptd_session_set_stop_before_exit(s, 1);
	assert_true(ptd_session_break(s, "fib", 0) > 0);
	assert_int_equal(ptd_session_run(s, 0, &ev), 0);
	assert_int_equal(ptd_session_record_start(s, (enum ptd_method)method), 0);
	assert_int_equal(ptd_session_delete(s, 0), 0);
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_BEFORE_EXIT);
	assert_true(ptd_session_alive(s));
	assert_int_equal(ptd_session_pc(s, &pc), 0);
	assert_int_equal(pc, ev.pc);
	assert_int_equal(ptd_session_read(s, pc, insn, sizeof(insn)), sizeof(insn));
	assert_int_equal(insn[0], 0x0f);
	assert_int_equal(insn[1], 0x05);
	/* advance to a place never reached: each frame's return stops it */
	assert_int_equal(ptd_session_goto(s, "begin", &ev), 0);
	for (i = 0; i < 8; i++) {
		assert_int_equal(ptd_session_advance(s, 1, 1, &ev), 0);
		if (ev.kind != PTD_EVENT_STEPPED)
			break;
		assert_true(ptd_session_replaying(s));
	}
	assert_true(i >= 1 && i < 8);
	assert_int_equal(ev.kind, PTD_EVENT_NO_HISTORY);
	assert_false(ptd_session_replaying(s));
	assert_int_equal(ptd_session_position(s, &pos, &count), 0);
	assert_int_equal(pos, count);
	assert_int_equal(ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev), 0);
	assert_int_equal(ev.kind, PTD_EVENT_EXITED);
	assert_int_equal(ev.exit_code, 0);
	ptd_session_free(s);
}

static void test_exit_stop_step(void **state)
{
	exit_stop(PTD_METHOD_STEP);
}

static void test_exit_stop_soft(void **state)
{
	exit_stop(PTD_METHOD_SOFT);
}

int main(void)
{
	const char *d = getenv("TESTPROGS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_methods),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_reverse_ends),
		cmocka_unit_test(test_hw_plain),
		cmocka_unit_test(test_watch_places),
		cmocka_unit_test(test_hw_soft),
		cmocka_unit_test(test_hw_step),
		cmocka_unit_test(test_exit_stop_step),
		cmocka_unit_test(test_exit_stop_soft),
		cmocka_unit_test(test_equiv_fib),
		cmocka_unit_test(test_equiv_fib_O2),
		cmocka_unit_test(test_equiv_loops),
		cmocka_unit_test(test_equiv_funcptr),
		cmocka_unit_test(test_equiv_switch),
		cmocka_unit_test(test_equiv_switch_O2),
		cmocka_unit_test(test_equiv_tailcall_O2),
		cmocka_unit_test(test_equiv_longjmp),
		cmocka_unit_test(test_equiv_signal),
		cmocka_unit_test(test_equiv_vdso),
		cmocka_unit_test(test_equiv_dlopen),
		cmocka_unit_test(test_equiv_fork),
	};

	snprintf(progdir, sizeof(progdir), "%s", d ? d : "testprogs/build");
	if (getenv("PTD_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PTD_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
