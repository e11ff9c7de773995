/*
 * Pictures of the recorded span, all drawn from the call tree of the
 * whole history (collapse.c; not folded: a timeline shows every call):
 *  - perfetto: Chrome trace-event JSON (ui.perfetto.dev, speedscope,
 *    chrome://tracing).  One track per thread, one complete ("X") slice per
 *    function call, spanning its segments and everything it called, so
 *    callees nest inside callers; gaps are slices of category "gap".  The
 *    time axis is the instruction number (1 instruction = 1 us), since the
 *    recorders here have no timestamps.
 *  - folded: "a;b;c COUNT" lines (flamegraph.pl, speedscope), COUNT the
 *    instructions executed in c itself with that stack; they sum to the
 *    recorded instruction count.
 *  - svg: a self-contained flame chart (icicle: callers on top), calls in
 *    time order left to right, each box's <title> giving the function, its
 *    file:line and its instructions (shown on hover by a browser).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Builds the whole tree of the selected thread. */
static int whole_tree(struct rep *r, struct rtree *t)
{
	const struct ptd_calls *calls = ptd_session_calls(r->s);
	uint64_t nc = calls ? ptd_calls_count(calls) : 0;

	return rtree_build(t, r->s, calls, 1, nc);
}

/* ---- perfetto ---------------------------------------------------------------- */

static void perfetto_node(struct rep *r, struct rtree *t, int i, pid_t pid, pid_t tid, int *first)
{
	for (; i >= 0; i = t->n[i].next) {
		struct rnode *n = &t->n[i];
		struct loc l;

		fprintf(r->out,
			"%s\n{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %" PRIu64
			", \"dur\": %" PRIu64 ", \"name\": ",
			*first ? "" : ",", (int)pid, (int)tid, n->start, n->end - n->start + 1);
		*first = 0;
		if (n->is_gap) {
			char name[160];
			snprintf(name, sizeof(name), "gap: %s",
				 ptd_print_gap_reason(n->gap_reason));
			rep_json_str(r->out, name);
			fputs(", \"cat\": \"gap\", \"cname\": \"terrible\", \"args\": "
			      "{\"reason\": ",
			      r->out);
			rep_json_str(r->out, ptd_print_gap_reason(n->gap_reason));
			fputs(", \"detail\": ", r->out);
			rep_json_str(r->out,
				     n->gap_detail && n->gap_detail[0] ? n->gap_detail : NULL);
			fprintf(r->out, ", \"number\": %" PRIu64 "}}", n->first);
			continue;
		}
		rep_json_str(r->out, n->name);
		rep_locate(r->sym, n->ip, &l);
		fputs(", \"cat\": \"call\", \"args\": {\"file\": ", r->out);
		rep_json_str(r->out, l.file);
		fprintf(r->out,
			", \"line\": %d, \"entry\": \"0x%" PRIx64 "\", \"first\": %" PRIu64
			", \"last\": %" PRIu64 ", \"self\": %" PRIu64 ", \"segments\": %" PRIu64
			"}}",
			l.line, n->ip, n->start, n->end, n->self, n->nsegs);
		perfetto_node(r, t, n->first_child, pid, tid, first);
	}
}

void rep_perfetto(struct rep *r)
{
	pid_t pid = r->prog == PROG_NONE ? 1 : ptd_session_pid(r->s);
	int first = 1;

	fputs("{\"displayTimeUnit\": \"ns\", \"otherData\": {\"generator\": \"ptdbg-report\", "
	      "\"time_axis\": \"instruction number (1 instruction = 1 us)\", \"program\": ",
	      r->out);
	rep_json_str(r->out, r->program);
	fputs("},\n\"traceEvents\": [", r->out);
	fprintf(r->out,
		"\n{\"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"name\": \"process_name\", "
		"\"args\": {\"name\": ",
		(int)pid);
	rep_json_str(r->out, r->program);
	fputs("}}", r->out);
	first = 0;
	for (int k = 0; k < r->nthreads; k++) {
		struct rtree t;
		pid_t tid = r->thread_tids[k] > 0 ? r->thread_tids[k] : r->thread_nums[k];

		if (rep_select(r, r->thread_nums[k]) < 0)
			continue;
		fprintf(r->out,
			",\n{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": \"thread_name\", "
			"\"args\": {\"name\": \"thread %d%s\"}}",
			(int)pid, (int)tid, r->thread_nums[k],
			r->thread_nums[k] == r->cur_thread ? " (stopped here)" : "");
		if (whole_tree(r, &t) < 0)
			continue;
		perfetto_node(r, &t, t.first_root, pid, tid, &first);
		rtree_free(&t);
	}
	rep_select(r, r->cur_thread);
	fputs("\n]}\n", r->out);
}

/* ---- folded ------------------------------------------------------------------- */

struct stackline {
	char *stack;
	uint64_t count;
};

struct stacks {
	struct stackline *v;
	size_t n, cap;
	int oom;
};

static void push_stack(struct stacks *s, const char *stack, uint64_t count)
{
	if (s->oom || count == 0)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct stackline *v = realloc(s->v, cap * sizeof(*v));
		if (!v) {
			s->oom = 1;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].stack = strdup(stack);
	if (!s->v[s->n].stack) {
		s->oom = 1;
		return;
	}
	s->v[s->n++].count = count;
}

static void folded_node(struct rtree *t, int i, char *path, size_t len, size_t cap,
			struct stacks *st)
{
	for (; i >= 0; i = t->n[i].next) {
		struct rnode *n = &t->n[i];
		size_t name_len = strlen(n->name), at = len ? len + 1 : 0;

		if (n->is_gap)
			continue; /* a gap executed nothing */
		if (at + name_len + 1 >= cap)
			continue; /* absurdly deep: left out rather than cut */
		if (len)
			path[len] = ';';
		memcpy(path + at, n->name, name_len + 1);
		/* the folded format separates frames by ';' and ends at ' ' */
		for (size_t k = at; path[k]; k++)
			if (path[k] == ';' || path[k] == ' ')
				path[k] = '_';
		push_stack(st, path, n->self);
		folded_node(t, n->first_child, path, at + name_len, cap, st);
		path[len] = '\0';
	}
}

static int cmp_stack(const void *a, const void *b)
{
	return strcmp(((const struct stackline *)a)->stack, ((const struct stackline *)b)->stack);
}

void rep_folded(struct rep *r)
{
	struct stacks st = {NULL, 0, 0, 0};
	enum { CAP = 1 << 16 };
	char *path = malloc(CAP);

	if (!path)
		return;
	for (int k = 0; k < r->nthreads; k++) {
		struct rtree t;
		size_t len = 0;

		if (rep_select(r, r->thread_nums[k]) < 0 || whole_tree(r, &t) < 0)
			continue;
		path[0] = '\0';
		if (r->nthreads > 1)
			len = (size_t)snprintf(path, CAP, "thread_%d", r->thread_nums[k]);
		folded_node(&t, t.first_root, path, len, CAP, &st);
		rtree_free(&t);
	}
	rep_select(r, r->cur_thread);
	free(path);
	qsort(st.v, st.n, sizeof(st.v[0]), cmp_stack);
	for (size_t i = 0; i < st.n;) {
		size_t j = i + 1;
		uint64_t sum = st.v[i].count;
		while (j < st.n && !strcmp(st.v[j].stack, st.v[i].stack))
			sum += st.v[j++].count;
		fprintf(r->out, "%s %" PRIu64 "\n", st.v[i].stack, sum);
		i = j;
	}
	for (size_t i = 0; i < st.n; i++)
		free(st.v[i].stack);
	free(st.v);
	if (st.oom)
		fprintf(stderr, "ptdbg-report: out of memory: the folded stacks are incomplete\n");
}

/* ---- svg ----------------------------------------------------------------------- */

#define SVG_W 1200
#define SVG_ROW 17
#define SVG_MARGIN 10

static void xml_str(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

static int max_depth(struct rtree *t)
{
	int d = -1;

	for (int i = 0; i < t->count; i++)
		if (t->n[i].level > d)
			d = t->n[i].level;
	return d;
}

struct svg_band {
	double y;
	uint64_t t0;
	double scale;
	int thin; /* calls too thin to see are left out (big trees only) */
	uint64_t left_out;
};

static void svg_node(struct rep *r, struct rtree *t, int i, struct svg_band *b)
{
	for (; i >= 0; i = t->n[i].next) {
		struct rnode *n = &t->n[i];
		double x = SVG_MARGIN + (double)(n->start - b->t0) * b->scale;
		double w = (double)(n->end - n->start + 1) * b->scale;
		double y = b->y + n->level * SVG_ROW;
		uint64_t h = 0;
		struct loc l;

		/* A box of less than 1/20 pixel shows nothing but costs a
		 * hundred bytes: in a big tree it and its callees are left
		 * out (and counted). */
		if (b->thin && w < 0.05) {
			b->left_out++;
			continue;
		}

		for (const char *c = n->name; *c; c++)
			h = h * 31 + (unsigned char)*c;
		fprintf(r->out,
			"<g class=\"%s\" data-first=\"%" PRIu64 "\" data-last=\"%" PRIu64
			"\" data-depth=\"%d\"><title>",
			n->is_gap ? "gap" : "call", n->start, n->end, n->level);
		if (n->is_gap) {
			fputs("gap: ", r->out);
			xml_str(r->out, ptd_print_gap_reason(n->gap_reason));
			if (n->gap_detail && n->gap_detail[0]) {
				fputs(": ", r->out);
				xml_str(r->out, n->gap_detail);
			}
			fprintf(r->out, " (number %" PRIu64 ")", n->first);
		} else {
			rep_locate(r->sym, n->ip, &l);
			xml_str(r->out, n->name);
			if (l.file) {
				fputs(" at ", r->out);
				xml_str(r->out, l.file);
				fprintf(r->out, ":%d", l.line);
			}
			fprintf(r->out,
				", instructions %" PRIu64 "-%" PRIu64 " (%" PRIu64 " in itself)",
				n->start, n->end, n->self);
		}
		fprintf(r->out, "</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%d\" ",
			x, y, w, SVG_ROW - 1);
		if (n->is_gap)
			fputs("fill=\"#999999\" stroke=\"#ff0000\"/>", r->out);
		else
			fprintf(r->out, "fill=\"rgb(%d,%d,%d)\"/>", 205 + (int)(h % 50),
				80 + (int)((h >> 8) % 120), 40 + (int)((h >> 16) % 50));
		/* a name where it fits (about 7 pixels a character) */
		if (w > 28) {
			size_t fit = (size_t)((w - 6) / 7), len = strlen(n->name);
			char label[256];
			if (fit > sizeof(label) - 1)
				fit = sizeof(label) - 1;
			snprintf(label, sizeof(label), "%s", n->name);
			if (len > fit) {
				if (fit >= 3) {
					label[fit - 2] = '.';
					label[fit - 1] = '.';
				}
				label[fit] = '\0';
			}
			fprintf(r->out, "<text x=\"%.3f\" y=\"%.1f\">", x + 3, y + SVG_ROW - 5);
			xml_str(r->out, label);
			fputs("</text>", r->out);
		}
		fputs("</g>\n", r->out);
		svg_node(r, t, n->first_child, b);
	}
}

void rep_svg(struct rep *r)
{
	struct rtree *trees = calloc((size_t)r->nthreads + 1, sizeof(*trees));
	double height = 40;
	char buf[256];

	if (!trees)
		return;
	for (int k = 0; k < r->nthreads; k++) {
		trees[k].first_root = -1;
		if (rep_select(r, r->thread_nums[k]) == 0 && whole_tree(r, &trees[k]) < 0)
			trees[k].count = 0;
		height += 24 + (max_depth(&trees[k]) + 1) * SVG_ROW + 10;
	}
	rep_select(r, r->cur_thread);
	fprintf(r->out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n"
		"<style>text { font: 12px monospace; fill: #000; pointer-events: none; } "
		"g.call:hover rect, g.gap:hover rect { stroke: #000; stroke-width: 1; } "
		".head { font: 14px sans-serif; } .band { font: 12px sans-serif; fill: #333; "
		"}</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#fdfdf5\"/>\n"
		"<text class=\"head\" x=\"%d\" y=\"20\">",
		SVG_W, height, SVG_W, height, SVG_MARGIN);
	xml_str(r->out, r->program);
	fputs(": ", r->out);
	xml_str(r->out, rep_stop_text(r, buf, sizeof(buf)));
	fputs(" (time flows left to right in instructions; hover a box for its function, line "
	      "and instructions)</text>\n",
	      r->out);
	double y = 40;
	for (int k = 0; k < r->nthreads; k++) {
		struct rtree *t = &trees[k];
		struct svg_band b;
		uint64_t t0 = UINT64_MAX, t1 = 0;

		for (int i = t->first_root; i >= 0; i = t->n[i].next) {
			if (t->n[i].start < t0)
				t0 = t->n[i].start;
			if (t->n[i].end > t1)
				t1 = t->n[i].end;
		}
		fprintf(r->out,
			"<text class=\"band\" x=\"%d\" y=\"%.1f\">thread %d (LWP %d)%s</text>\n",
			SVG_MARGIN, y + 14, r->thread_nums[k], (int)r->thread_tids[k],
			r->thread_nums[k] == r->cur_thread ? ", where it stopped" : "");
		b.y = y + 20;
		b.t0 = t0 == UINT64_MAX ? 0 : t0;
		b.scale = t1 >= b.t0 && t0 != UINT64_MAX
				  ? (SVG_W - 2.0 * SVG_MARGIN) / (double)(t1 - b.t0 + 1)
				  : 1.0;
		b.thin = t->count > 20000;
		b.left_out = 0;
		fprintf(r->out, "<g class=\"thread\" data-thread=\"%d\">\n", r->thread_nums[k]);
		svg_node(r, t, t->first_root, &b);
		fputs("</g>\n", r->out);
		if (b.left_out)
			fprintf(r->out,
				"<text class=\"band\" x=\"%d\" y=\"%.1f\" "
				"text-anchor=\"end\">(%" PRIu64
				" calls narrower than 1/20 pixel left out, with their "
				"callees)</text>\n",
				SVG_W - SVG_MARGIN, y + 14, b.left_out);
		y += 24 + (max_depth(t) + 1) * SVG_ROW + 10;
		rtree_free(t);
	}
	fputs("</svg>\n", r->out);
	free(trees);
}
