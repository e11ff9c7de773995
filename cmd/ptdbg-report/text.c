/*
 * The text report: what a person reads in a CI log.  gdb's layouts for
 * the stop, frames, registers and instructions (cmd/ptdbg/print.c); the
 * path collapsed from the report model (collapse.c).  Colour only when
 * the report goes to a terminal (or --color=always).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void heading(struct rep *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void heading(struct rep *r, const char *fmt, ...)
{
	va_list ap;

	fputc('\n', r->out);
	if (r->colour)
		fputs("\033[1m", r->out);
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
	if (r->colour)
		fputs("\033[0m", r->out);
	fputc('\n', r->out);
}

static unsigned mode_flags(unsigned mode)
{
	return mode == PTD_MODE_32 ? PTD_DIS_MODE32 : mode == PTD_MODE_16 ? PTD_DIS_MODE16 : 0;
}

static void tree_lines(struct rep *r, struct ptd_print_ctx *pc, struct rtree *t, int i,
		       const struct ptd_history *h)
{
	for (; i >= 0; i = t->n[i].next) {
		struct rnode *n = &t->n[i];
		struct loc l;

		if (n->folded)
			continue;
		if (n->is_gap) {
			for (int k = 0; k < n->level; k++)
				fputs("  ", r->out);
			ptd_print_gap(pc, n->first, n->gap_reason, n->gap_detail, n->gap_arg);
			continue;
		}
		for (int k = 0; k < n->level; k++)
			fputs("  ", r->out);
		fputs(n->name, r->out);
		if (n->count > 1)
			fprintf(r->out, " \xc3\x97%u", n->count);
		/* where the call was last: the line it called from, returned
		 * from, or stands at; nothing for code without lines (PLT) */
		rep_locate(r->sym, rtree_last_ip(t, i, h), &l);
		if (l.file)
			fprintf(r->out, "\tat %s:%d", l.file, l.line);
		fputc('\n', r->out);
		tree_lines(r, pc, t, n->first_child, h);
	}
}

static void print_tree(struct rep *r, struct ptd_print_ctx *pc)
{
	const struct ptd_calls *calls = ptd_session_calls(r->s);
	const struct ptd_history *h = ptd_session_history(r->s);
	uint64_t nc = calls ? ptd_calls_count(calls) : 0, first;
	struct rtree t;

	if (nc == 0 || r->o->ncalls <= 0)
		return;
	first = nc > (uint64_t)r->o->ncalls ? nc - (uint64_t)r->o->ncalls + 1 : 1;
	if (rtree_build(&t, r->s, calls, first, nc) < 0) {
		fprintf(r->out, "(cannot build the call tree: %s)\n", ptd_last_error(-ptde_nomem));
		return;
	}
	rtree_fold(&t);
	heading(r,
		"How execution got here (the last %" PRIu64 " of %" PRIu64
		" function segments as calls, repeats folded):",
		nc - first + 1, nc);
	tree_lines(r, pc, &t, t.first_root, h);
	rtree_free(&t);
}

static void print_lines(struct rep *r, struct ptd_print_ctx *pc)
{
	struct rline *ln;
	uint64_t scanned = 0;
	int n;

	if (r->o->nlines <= 0)
		return;
	ln = calloc((size_t)r->o->nlines, sizeof(*ln));
	if (!ln)
		return;
	n = rep_lines(r->s, ln, r->o->nlines, &scanned);
	if (n > 0) {
		heading(r, "The last %d source lines executed (loops folded):", n);
		for (int i = 0; i < n; i++) {
			struct loc l, l2;
			rep_locate(r->sym, ln[i].pcs[0], &l);
			if (ln[i].count == 1) {
				if (l.file && l.func)
					fprintf(r->out, "%s:%d (%s)\t", l.file, l.line, l.func);
				ptd_print_source_line(pc, l.path, l.line, 0);
				continue;
			}
			/* a loop: its lines' range per file, then each line */
			int lo = l.line, hi = l.line;
			for (int j = 1; j < ln[i].period; j++) {
				rep_locate(r->sym, ln[i].pcs[j], &l2);
				if (l2.file && l.file && !strcmp(l2.file, l.file)) {
					lo = l2.line < lo ? l2.line : lo;
					hi = l2.line > hi ? l2.line : hi;
				}
			}
			fprintf(r->out, "%s:%d", l.file ? l.file : "??", lo);
			if (hi != lo)
				fprintf(r->out, "-%d", hi);
			fprintf(r->out, " (%s) \xc3\x97%lu\n", l.func ? l.func : "??", ln[i].count);
			for (int j = 0; j < ln[i].period; j++) {
				rep_locate(r->sym, ln[i].pcs[j], &l2);
				fputc('\t', r->out);
				ptd_print_source_line(pc, l2.path, l2.line, 0);
			}
		}
	}
	free(ln);
}

static void print_branches(struct rep *r)
{
	struct rbranch *b;
	int n;

	if (r->o->nbranches <= 0)
		return;
	b = calloc((size_t)r->o->nbranches, sizeof(*b));
	if (!b)
		return;
	n = rep_branches(r->s, b, r->o->nbranches);
	if (n > 0) {
		heading(r, "The last %d conditional branches:", n);
		for (int i = 0; i < n; i++) {
			struct loc l;
			uint8_t code[16];
			char text[160] = "";
			long got = ptd_session_read(r->s, b[i].pc, code, sizeof(code));

			if (got > 0)
				ptd_disasm_format_mode(code, (size_t)got, b[i].pc, PTD_MODE_64,
						       text, sizeof(text), NULL, NULL);
			text[strcspn(text, " ")] = '\0'; /* the mnemonic */
			rep_locate(r->sym, b[i].pc, &l);
			fprintf(r->out, "%" PRIu64 "\t", b[i].number);
			if (l.file)
				fprintf(r->out, "%s:%d ", l.file, l.line);
			fprintf(r->out, "(%s+%" PRIu64 ")\t%s %s\n", l.func ? l.func : "??", l.off,
				text[0] ? text : "j?", b[i].taken ? "taken" : "not taken");
		}
	}
	free(b);
}

static void print_gaps(struct rep *r, struct ptd_print_ctx *pc)
{
	struct rgap g[32];
	int n = rep_gaps(r->s, g, 32);

	if (n == 0)
		return;
	heading(r, "Gaps in the history (%d):", n);
	for (int i = 0; i < n && i < 32; i++)
		ptd_print_gap(pc, g[i].number, g[i].reason, g[i].detail, g[i].arg);
	if (n > 32)
		fprintf(r->out, "(and %d more)\n", n - 32);
}

static void print_insns(struct rep *r, struct ptd_print_ctx *pc)
{
	const struct ptd_history *h = ptd_session_history(r->s);
	uint64_t count = 0, pos = 0, cur_pc = 0, first;
	struct ptd_hcursor c;

	ptd_session_position(r->s, &pos, &count);
	ptd_session_pc(r->s, &cur_pc);
	if (!h || count == 0 || r->o->ninsns <= 0)
		return;
	first = count > (uint64_t)r->o->ninsns ? count - (uint64_t)r->o->ninsns + 1 : 1;
	heading(r,
		"The last %" PRIu64 " instructions (of %" PRIu64 " recorded):", count - first + 1,
		count);
	if (ptd_hcursor_goto(&c, h, first) == 0) {
		do {
			if (c.is_gap)
				ptd_print_gap_at(pc, h, &c);
			else
				ptd_print_insn(pc, c.number, c.ip, c.number == count ? cur_pc : 0,
					       PTD_DIS_NUMBER | mode_flags(c.mode));
		} while (c.number < count && ptd_hcursor_next(&c) == 0);
	}
}

/* The arguments of frame lines, as the shell's backtrace shows them
 * (gdb's "print frame-arguments scalars"). */
struct rep_args {
	struct rep *r;
	struct ptd_values *v;
	struct ptd_print_ctx *pc;
};

static int rep_frame_args(void *ctx, int level, uint64_t pc, char *out, size_t n)
{
	struct rep_args *a = ctx;
	char *s = NULL;

	if (!a->v && ptd_values_alloc(&a->v) < 0)
		return -1;
	if (level < 0)
		level = 0;
	ptd_clear_error();
	if (ptd_session_values_bind(a->r->s, a->v, level, level ? pc : 0, NULL, NULL) < 0 ||
	    ptd_values_select_inline(a->v, a->pc->args_callees < 0 ? 1 << 20 : a->pc->args_callees) < 0 ||
	    ptd_values_frame_args(a->v, 1, &s) < 0) {
		ptd_clear_error();
		return -1;
	}
	snprintf(out, n, "%s", s);
	free(s);
	return 0;
}

static int rep_is_main(struct rep *r, uint64_t pc)
{
	struct ptd_symbol sym;

	return r->sym && ptd_symbols_lookup(r->sym, pc, &sym) >= 0 && sym.name &&
	       !strcmp(sym.name, "main");
}

/* As the shell's bt: inlined functions' frames, the signal trampoline,
 * and main as the outermost frame (gdb's backtrace past-main off). */
static void print_backtrace(struct rep *r, struct ptd_print_ctx *pc)
{
	struct ptd_frame_info *fr = NULL;
	int n = shell_frames_all(r->s, &fr), level = 0, tramps = 0;

	heading(r, "Backtrace:");
	for (int i = 0; i < n; i++) {
		int caller = i > 0 && fr[i].kind == PTD_FRAME_NORMAL;

		if (i > 0 && fr[i - 1].kind == PTD_FRAME_SIGTRAMP && !fr[i - 1].pc)
			tramps++;
		pc->args_frame = 1 + i - tramps;
		if (fr[i].kind == PTD_FRAME_SIGTRAMP) {
			fprintf(r->out, "#%-2d <signal handler called>\n", level++);
			continue;
		}
		ptd_print_frame(pc, fr[i].pc, level, caller, -1, PTD_PRINT_LOCATION);
		level += 1 + ptd_print_inline_callers(pc, fr[i].pc, caller, level + 1, -1);
		if (rep_is_main(r, caller ? fr[i].pc - 1 : fr[i].pc))
			break;
	}
	pc->args_frame = 0;
	free(fr);
	ptd_clear_error();
}

static void thread_path(struct rep *r, struct ptd_print_ctx *pc)
{
	print_backtrace(r, pc);
	print_tree(r, pc);
	print_lines(r, pc);
	print_branches(r);
	print_gaps(r, pc);
	print_insns(r, pc);
}

void rep_text(struct rep *r)
{
	struct ptd_print_ctx pc = {.out = r->out, .sym = r->sym, .read = rep_read_mem, .read_ctx = r->s};
	struct rep_args args = {.r = r, .pc = &pc};

	pc.frame_args = rep_frame_args;
	pc.frame_args_ctx = &args;
	pc.args_callees = -1;
	pc.inline_skip = ptd_session_inline_skipped(r->s);

	if (r->main_module[0])
		pc.main_module = r->main_module;
	struct ptd_record_info ri;
	struct user_regs_struct regs;
	uint64_t cur_pc = 0;
	char buf[256];
	int pc_only = 1;

	/* before the sections walk the history (their caches are not the recording's) */
	ptd_session_record_info(r->s, &ri);
	if (r->colour)
		fputs(r->trig == TRIG_CRASH ? "\033[1;31m" : "\033[1m", r->out);
	fputs(rep_stop_text(r, buf, sizeof(buf)), r->out);
	if (r->colour)
		fputs("\033[0m", r->out);
	fputc('\n', r->out);
	if (r->have_si) {
		const char *desc, *name = rep_si_code_name(r->ev.signo, r->si.code, &desc);
		if (name)
			fprintf(r->out, "Signal code %s (%s)", name, desc);
		else
			fprintf(r->out, "Signal code %d", r->si.code);
		if (rep_si_has_addr(r->ev.signo) && r->si.code > 0)
			fprintf(r->out, ", fault address 0x%" PRIx64, r->si.addr);
		else if (r->si.code <= 0)
			fprintf(r->out, ", sent by process %d", (int)r->si.sender_pid);
		fputs(".\n", r->out);
	}
	/* pc 0 too: a call through a null pointer stands there */
	if (ptd_session_pc(r->s, &cur_pc) == 0 && (cur_pc || r->prog != PROG_NONE))
		ptd_print_frame(&pc, cur_pc, -1, 0, -1, PTD_PRINT_SRC_AND_LOC);
	switch (r->prog) {
	case PROG_CRASHED:
		fprintf(r->out, "The program dies of %s (it was killed after the report).\n",
			ptd_print_signame(r->prog_code));
		break;
	case PROG_EXITING:
	case PROG_EXITED:
		fprintf(r->out, "The program's exit code: %d.\n", r->prog_code);
		break;
	case PROG_KILLED:
		fprintf(r->out, "The program was killed by %s.\n", ptd_print_signame(r->prog_code));
		break;
	case PROG_RUNNING:
		fprintf(r->out, "The program was running: %s after the report.\n",
			r->attached ? "detached, it runs on" : "killed");
		break;
	case PROG_NONE:
		break;
	}

	if (r->prog != PROG_NONE && r->prog != PROG_EXITED && r->prog != PROG_KILLED &&
	    ptd_session_regs(r->s, &regs, &pc_only) == 0 && !pc_only) {
		heading(r, "Registers:");
		for (int i = 0; ptd_print_reg_names[i]; i++) {
			uint64_t v;
			const char *canon;
			if (ptd_print_reg_lookup(ptd_print_reg_names[i], &regs, &v, &canon) == 0)
				ptd_print_reg_line(&pc, ptd_print_reg_names[i], v, 1);
		}
	}

	if (r->nthreads > 1) {
		for (int i = 0; i < r->nthreads; i++) {
			if (rep_select(r, r->thread_nums[i]) < 0)
				continue;
			heading(r, "==== Thread %d (LWP %d)%s ====", r->thread_nums[i],
				(int)r->thread_tids[i],
				r->thread_nums[i] == r->cur_thread ? ", where it stopped" : "");
			thread_path(r, &pc);
		}
		rep_select(r, r->cur_thread);
	} else {
		thread_path(r, &pc);
	}

	/* a simulated PMU (PTDBG_SIMULATE_PMU) is always said */
	fprintf(r->out,
		"\nRecorded %llu instructions in %llu function segments (method %s, %sformat %s, "
		"%.2f bytes/instruction, %.2f s, %llu ptrace stops).\n",
		(unsigned long long)ri.ninsn, (unsigned long long)ri.ncalls,
		ptd_method_name(ri.method), ri.simulated ? "simulated PMU, " : "",
		ri.format ? ri.format : "blocks",
		ri.ninsn ? (double)ri.bytes / (double)ri.ninsn : 0.0, r->secs,
		(unsigned long long)ri.stops);
	ptd_values_free(args.v);
}
