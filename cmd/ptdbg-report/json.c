/*
 * The JSON report (docs/report-json.md, schema docs/report.schema.json):
 * the same model as the text report, for scripts.  "version" changes
 * whenever a field changes meaning or goes away; new fields keep it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define REPORT_JSON_VERSION 2

void rep_json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* "pc", "function", "offset", "file", "line" of @pc; @caller: a return
 * address, whose function and line are those of the call before it. */
static void loc_fields(struct rep *r, uint64_t pc, int caller)
{
	uint64_t look = caller && pc ? pc - 1 : pc;
	struct loc l;

	rep_locate(r->sym, look, &l);
	if (l.func)
		l.off += pc - look;
	fprintf(r->out, "\"pc\": \"0x%" PRIx64 "\", \"function\": ", pc);
	rep_json_str(r->out, l.func);
	fprintf(r->out, ", \"offset\": %" PRIu64 ", \"file\": ", l.off);
	rep_json_str(r->out, l.file);
	fprintf(r->out, ", \"line\": %d", l.line);
}

static void gap_fields(FILE *f, int reason, uint64_t arg, const char *detail)
{
	fputs("\"reason\": ", f);
	rep_json_str(f, ptd_print_gap_reason(reason));
	fprintf(f, ", \"arg\": %" PRIu64 ", \"detail\": ", arg);
	rep_json_str(f, detail && detail[0] ? detail : NULL);
}

static void tree_json(struct rep *r, struct rtree *t, int i, const struct ptd_history *h, int ind)
{
	int first = 1;

	fputc('[', r->out);
	for (; i >= 0; i = t->n[i].next) {
		struct rnode *n = &t->n[i];
		struct loc l;

		if (n->folded)
			continue;
		fprintf(r->out, "%s\n%*s{", first ? "" : ",", ind, "");
		first = 0;
		if (n->is_gap) {
			fprintf(r->out, "\"gap\": true, \"first\": %" PRIu64 ", ", n->first);
			gap_fields(r->out, n->gap_reason, n->gap_arg, n->gap_detail);
			fputs(", \"children\": []}", r->out);
			continue;
		}
		rep_locate(r->sym, rtree_last_ip(t, i, h), &l);
		fputs("\"function\": ", r->out);
		rep_json_str(r->out, n->name);
		fprintf(r->out,
			", \"count\": %u, \"first\": %" PRIu64 ", \"last\": %" PRIu64
			", \"file\": ",
			n->count, n->start, n->end);
		rep_json_str(r->out, l.file);
		fprintf(r->out, ", \"line\": %d, \"children\": ", l.line);
		tree_json(r, t, n->first_child, h, ind + 2);
		fputc('}', r->out);
	}
	fputc(']', r->out);
}

/* The real frames, main the outermost as in the text report (frames of
 * inlined functions are the text's only). */
static void backtrace_json(struct rep *r)
{
	uint64_t *pcs = NULL;
	int n = shell_backtrace_all(r->s, &pcs);

	fputc('[', r->out);
	for (int i = 0; i < n; i++) {
		struct ptd_symbol sym;

		fprintf(r->out, "%s\n    {\"level\": %d, ", i ? "," : "", i);
		loc_fields(r, pcs[i], i > 0);
		fputc('}', r->out);
		if (r->sym && ptd_symbols_lookup(r->sym, i ? pcs[i] - 1 : pcs[i], &sym) >= 0 &&
		    sym.name && !strcmp(sym.name, "main"))
			break;
	}
	free(pcs);
	ptd_clear_error();
	fputs("\n  ]", r->out);
}

/* The path fields of the selected thread, after "{" or ", ". */
static void thread_json(struct rep *r)
{
	const struct ptd_history *h = ptd_session_history(r->s);
	const struct ptd_calls *calls = ptd_session_calls(r->s);
	const struct opts *o = r->o;
	uint64_t count = 0, pos = 0, pcs[64];
	int n;

	ptd_session_position(r->s, &pos, &count);
	fputs("\"backtrace\": ", r->out);
	backtrace_json(r);

	fputs(",\n  \"calls\": [", r->out);
	uint64_t nc = calls ? ptd_calls_count(calls) : 0;
	uint64_t first = nc > (uint64_t)o->ncalls ? nc - (uint64_t)o->ncalls + 1 : 1;
	if (calls && o->ncalls > 0) {
		int minl = ptd_calls_min_level(calls);
		for (uint64_t i = first; i <= nc; i++) {
			const struct ptd_callseg *seg = ptd_calls_get(calls, i);
			if (!seg)
				continue;
			fprintf(r->out,
				"%s\n    {\"index\": %" PRIu64
				", \"level\": %d, \"first\": %" PRIu64 ", \"last\": %" PRIu64 ", ",
				i > first ? "," : "", seg->index, seg->level - minl, seg->first,
				seg->last);
			if (seg->is_gap)
				fputs("\"gap\": true", r->out);
			else
				loc_fields(r, seg->ip, 0);
			fputc('}', r->out);
		}
	}
	fputs("\n  ],\n  \"call_tree\": ", r->out);
	{
		struct rtree t;
		if (calls && o->ncalls > 0 && nc > 0 &&
		    rtree_build(&t, r->s, calls, first, nc) == 0) {
			rtree_fold(&t);
			tree_json(r, &t, t.first_root, h, 4);
			rtree_free(&t);
		} else {
			fputs("[]", r->out);
		}
	}

	fputs(",\n  \"lines\": [", r->out);
	n = rep_plain_lines(r->s, pcs, o->nlines < 64 ? o->nlines : 64);
	for (int i = 0; i < n; i++) {
		fprintf(r->out, "%s\n    {", i ? "," : "");
		loc_fields(r, pcs[i], 0);
		fputc('}', r->out);
	}
	fputs("\n  ],\n  \"loops\": [", r->out);
	if (o->nlines > 0) {
		struct rline *ln = calloc((size_t)o->nlines, sizeof(*ln));
		uint64_t scanned = 0;
		n = ln ? rep_lines(r->s, ln, o->nlines, &scanned) : 0;
		for (int i = 0; i < n; i++) {
			fprintf(r->out, "%s\n    {\"count\": %lu, \"lines\": [", i ? "," : "",
				ln[i].count);
			for (int j = 0; j < ln[i].period; j++) {
				fprintf(r->out, "%s{", j ? ", " : "");
				loc_fields(r, ln[i].pcs[j], 0);
				fputc('}', r->out);
			}
			fputs("]}", r->out);
		}
		free(ln);
	}
	fputs("\n  ],\n  \"branches\": [", r->out);
	if (o->nbranches > 0) {
		struct rbranch *b = calloc((size_t)o->nbranches, sizeof(*b));
		n = b ? rep_branches(r->s, b, o->nbranches) : 0;
		for (int i = 0; i < n; i++) {
			fprintf(r->out, "%s\n    {\"number\": %" PRIu64 ", ", i ? "," : "",
				b[i].number);
			loc_fields(r, b[i].pc, 0);
			fprintf(r->out, ", \"taken\": %s}", b[i].taken ? "true" : "false");
		}
		free(b);
	}
	fputs("\n  ],\n  \"gaps\": [", r->out);
	{
		struct rgap g[64];
		n = rep_gaps(r->s, g, 64);
		for (int i = 0; i < n && i < 64; i++) {
			fprintf(r->out, "%s\n    {\"number\": %" PRIu64 ", ", i ? "," : "",
				g[i].number);
			gap_fields(r->out, g[i].reason, g[i].arg, g[i].detail);
			fputc('}', r->out);
		}
	}
	fputs("\n  ],\n  \"instructions\": [", r->out);
	if (h && count > 0 && o->ninsns > 0) {
		uint64_t f0 = count > (uint64_t)o->ninsns ? count - (uint64_t)o->ninsns + 1 : 1;
		struct ptd_hcursor c;
		int firstp = 1;
		if (ptd_hcursor_goto(&c, h, f0) == 0) {
			do {
				fprintf(r->out, "%s\n    {\"number\": %" PRIu64 ", ",
					firstp ? "" : ",", c.number);
				firstp = 0;
				if (c.is_gap) {
					fputs("\"gap\": true}", r->out);
					continue;
				}
				loc_fields(r, c.ip, 0);
				uint8_t code[16];
				char text[160];
				long got = ptd_session_read(r->s, c.ip, code, sizeof(code));
				if (got > 0 &&
				    ptd_disasm_format_mode(code, (size_t)got, c.ip, c.mode, text,
							   sizeof(text), NULL, NULL) > 0) {
					fputs(", \"text\": ", r->out);
					rep_json_str(r->out, text);
				}
				fputc('}', r->out);
			} while (c.number < count && ptd_hcursor_next(&c) == 0);
		}
	}
	fputs("\n  ]", r->out);
}

void rep_json(struct rep *r)
{
	FILE *f = r->out;
	struct ptd_record_info ri;
	struct user_regs_struct regs;
	uint64_t cur_pc = 0;
	char buf[256];
	int pc_only = 1;

	ptd_session_record_info(r->s, &ri);
	ptd_session_pc(r->s, &cur_pc);
	fprintf(f, "{\n  \"schema\": \"ptdbg-report\",\n  \"version\": %d,\n  \"program\": ",
		REPORT_JSON_VERSION);
	rep_json_str(f, r->program);
	fprintf(f, ",\n  \"process\": {\"pid\": %d, \"attached\": %s, \"state\": ",
		r->prog == PROG_NONE ? 0 : (int)ptd_session_pid(r->s),
		r->attached ? "true" : "false");
	rep_json_str(f, rep_prog_state_name(r->prog));
	fputs(", \"exit_code\": ", f);
	if (r->prog == PROG_EXITING || r->prog == PROG_EXITED)
		fprintf(f, "%d", r->prog_code);
	else
		fputs("null", f);
	fputs(", \"signal\": ", f);
	rep_json_str(f, r->prog == PROG_CRASHED || r->prog == PROG_KILLED
				? ptd_print_signame(r->prog_code)
				: NULL);
	fputs("},\n  \"trigger\": ", f);
	rep_json_str(f, rep_trigger_name(r->trig));
	fputs(",\n  \"stop\": {\"kind\": ", f);
	rep_json_str(f, r->trig == TRIG_CRASH	    ? "signal"
			: r->trig == TRIG_UNTIL	    ? "until"
			: r->trig == TRIG_AT	    ? "at"
			: r->trig == TRIG_EXIT	    ? "exit"
			: r->trig == TRIG_SIGNAL    ? "snapshot"
			: r->trig == TRIG_TIMEOUT   ? "timeout"
			: r->trig == TRIG_TRACE_END ? "trace_end"
			: r->prog == PROG_KILLED    ? "killed"
						    : "exit");
	if (r->trig == TRIG_CRASH) {
		fputs(", \"signal\": ", f);
		rep_json_str(f, ptd_print_signame(r->ev.signo));
		fprintf(f, ", \"signo\": %d", r->ev.signo);
	}
	if (r->have_si) {
		const char *desc, *name = rep_si_code_name(r->ev.signo, r->si.code, &desc);
		fprintf(f, ", \"si_code\": %d, \"si_code_name\": ", r->si.code);
		rep_json_str(f, name);
		fputs(", \"fault_address\": ", f);
		if (rep_si_has_addr(r->ev.signo) && r->si.code > 0)
			fprintf(f, "\"0x%" PRIx64 "\"", r->si.addr);
		else
			fputs("null", f);
	}
	if (r->prog == PROG_EXITING || r->prog == PROG_EXITED)
		fprintf(f, ", \"exit_code\": %d", r->prog_code);
	fprintf(f, ", \"thread\": %d, \"message\": ", r->cur_thread);
	rep_json_str(f, rep_stop_text(r, buf, sizeof(buf)));
	fputs(", ", f);
	loc_fields(r, cur_pc, 0);
	fputs("},\n  \"registers\": ", f);
	if (r->prog != PROG_NONE && r->prog != PROG_EXITED && r->prog != PROG_KILLED &&
	    ptd_session_regs(r->s, &regs, &pc_only) == 0 && !pc_only) {
		int first = 1;
		fputc('{', f);
		for (int i = 0; ptd_print_reg_names[i]; i++) {
			uint64_t v;
			const char *canon;
			if (ptd_print_reg_lookup(ptd_print_reg_names[i], &regs, &v, &canon) < 0)
				continue;
			fprintf(f, "%s\"%s\": \"0x%" PRIx64 "\"", first ? "" : ", ",
				ptd_print_reg_names[i], v);
			first = 0;
		}
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputs(",\n  ", f);
	thread_json(r);
	fputs(",\n  \"threads\": [", f);
	for (int i = 0; i < r->nthreads; i++) {
		if (rep_select(r, r->thread_nums[i]) < 0)
			continue;
		fprintf(f, "%s\n  {\"num\": %d, \"tid\": %d, \"stopped_here\": %s, ", i ? "," : "",
			r->thread_nums[i], (int)r->thread_tids[i],
			r->thread_nums[i] == r->cur_thread ? "true" : "false");
		thread_json(r);
		fprintf(f, ", \"instructions_recorded\": %" PRIu64 "}", rep_ninsn(r->s));
	}
	rep_select(r, r->cur_thread);
	fprintf(f,
		"\n  ],\n  \"record\": {\"method\": \"%s\", \"simulated_pmu\": %s, \"format\": "
		"\"%s\", "
		"\"instructions\": %llu, \"function_segments\": %llu, \"bytes\": %zu, \"seconds\": "
		"%.3f, "
		"\"ptrace_stops\": %llu}\n}\n",
		ptd_method_name(ri.method), ri.simulated ? "true" : "false",
		ri.format ? ri.format : "blocks", (unsigned long long)ri.ninsn,
		(unsigned long long)ri.ncalls, ri.bytes, r->secs, (unsigned long long)ri.stops);
}
