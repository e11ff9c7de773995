/*
 * libFuzzer target for the PT decode path and the bundle manifest parser
 * (built by tests/integration/fuzz-decode.sh with clang
 * -fsanitize=fuzzer,address,undefined; not part of the normal build).
 *
 * An input starting with "ptdbg-bundle" is parsed as a bundle manifest;
 * anything else is a PT byte stream decoded against the small program of
 * tests/unit/ptwalk.h, once in full and once lazily through the segment
 * table (newest segment first, as at a stop), into a history.  Blocks must
 * be well formed; everything else must merely not crash or leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/bundle.h"
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
