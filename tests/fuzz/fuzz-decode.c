/*
 * libFuzzer target for the PT decode path and the bundle manifest parser
 * (built by tests/integration/fuzz-decode.sh with clang
 * -fsanitize=fuzzer,address,undefined; not part of the normal build).
 *
 * An input starting with "ptdbg-bundle" is parsed as a bundle manifest;
 * anything else is a PT byte stream decoded against the small program of
 * tests/unit/ptwalk.h, once in full and once lazily through the segment
 * table (newest segment first, as at a stop), into a history.  Blocks must
 * be well formed; everything else must merely not crash or leak.  The
 * decode fast path (src/decode/fastpt.c) and the plain libipt path must
 * give the same items for every stream, in a whole-buffer decode and in a
 * trace history of runs as small as one PSB segment: any difference
 * aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/bundle.h"
#include "decode/fastpt.h"
#include "decode/image.h"
#include "decode/pt.h"
#include "history/history.h"
#include "../unit/ptwalk.h"

static int f_block(void *ctx, const struct ptd_block *b)
{
	(void)ctx;
	if (!b->ninsn || b->end_ip < b->ip)
		abort();
	return 0;
}

static int f_gap(void *ctx, enum ptd_gap_reason r, uint64_t off, const char *detail)
{
	(void)ctx;
	(void)r;
	(void)off;
	if (!detail)
		abort();
	return 0;
}

static int f_event(void *ctx, enum ptd_event_kind k, uint64_t ip, uint64_t arg)
{
	(void)ctx;
	(void)k;
	(void)ip;
	(void)arg;
	return 0;
}

/* Same items (an overflow's offset is where libipt's reader was: not
 * compared, as in tests/unit/test-fastpt.c). */
static void same(const struct ptd_history *a, const struct ptd_history *b)
{
	uint64_t i, n = ptd_history_nitems(a);

	if (n != ptd_history_nitems(b) || ptd_history_count(a) != ptd_history_count(b))
		abort();
	for (i = 0; i < n; i++) {
		struct ptd_item x, y;

		if (!ptd_history_item(a, i, &x) || !ptd_history_item(b, i, &y))
			abort();
		if (x.kind != y.kind || x.reason != y.reason || x.number != y.number ||
		    x.block.ip != y.block.ip ||
		    (x.kind == PTD_ITEM_GAP && x.reason != PTD_GAP_OVERFLOW && x.arg != y.arg) ||
		    (x.kind == PTD_ITEM_EVENT && x.arg != y.arg) ||
		    (x.kind == PTD_ITEM_BLOCK &&
		     (x.block.end_ip != y.block.end_ip || x.block.ninsn != y.block.ninsn ||
		      x.block.iclass != y.block.iclass || x.block.flags != y.block.flags)))
			abort();
	}
}

/* The history of @data built with the fast path on or off: a whole-buffer
 * decode (@how 0) or a lazy trace history in parts of one segment (1:
 * the counting pass, then each part decoded again). */
static struct ptd_history *build(const uint8_t *data, size_t size, struct ptd_image *img, int how,
				 int fast)
{
	struct ptd_history *h = ptd_history_alloc(pw_read, NULL);

	if (!h)
		abort();
	ptd__fastpt_force(fast);
	if (how == 0) {
		ptd_pt_decode_history(data, size, img, h, NULL);
	} else {
		struct ptd_pt_trace *t = ptd_pt_trace_alloc(data, size, img, pw_read, NULL, 2);

		ptd__pt_set_batch_bytes(1);
		ptd__pt_set_store_max(0);
		if (t) {
			struct ptd_history *copy = ptd_history_alloc(pw_read, NULL);

			ptd_pt_trace_set_disabled_gaps(t, 1);
			ptd_pt_trace_set_lazy_history(t, 2);
			/* (the copy decodes every part: the trace must still be
			 * there; a damaged trace still has a history, so a
			 * failure is a finding, and the lazy history could not
			 * outlive its trace) */
			if (ptd_pt_trace_history(t, h, 1, NULL) < 0) {
				fprintf(stderr, "fuzz-decode: lazy history: %s\n", ptd_last_error(-1));
				abort();
			}
			if (!copy || ptd_history_append_history(copy, h) < 0)
				abort(); /* (out of memory) */
			ptd_history_free(h);
			h = copy;
		}
		ptd__pt_set_batch_bytes(0);
		ptd__pt_set_store_max(PTD_PT_STORE_MAX);
		ptd_pt_trace_free(t);
	}
	ptd__fastpt_force(-1);
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ptd_image *img;
	struct ptd_pt_sink sink = { f_block, f_gap, f_event, NULL };
	struct ptd_pt_trace *t;
	struct ptd_bundle *b;

	if (!img) {
		pw_init_code();
		img = ptd_image_alloc(pw_read, NULL);
		if (!img)
			abort();
	}
	if (size >= 12 && !memcmp(data, "ptdbg-bundle", 12)) {
		if (ptd_bundle_parse((const char *)data, size, "/fuzz", &b) == 0)
			ptd_bundle_free(b);
		return 0;
	}
	ptd_pt_decode(data, size, img, &sink, NULL);
	for (int how = 0; how < 2; how++) {
		struct ptd_history *a = build(data, size, img, how, 1);
		struct ptd_history *b = build(data, size, img, how, 0);

		same(a, b);
		ptd_history_free(a);
		ptd_history_free(b);
	}
	t = ptd_pt_trace_alloc(data, size, img, pw_read, NULL, 2);
	if (t) {
		size_t n = ptd_pt_trace_nsegs(t);
		uint64_t first;
		int depth;

		if (n) {
			ptd_pt_trace_segment(t, n - 1);
			ptd_pt_trace_position(t, n - 1, &first, &depth);
		}
		ptd_pt_trace_free(t);
	}
	return 0;
}
