/*
 * Options of the recording methods (ptd_session_set_record_option): the
 * pt and bts recorders' configurations kept for the next recording, and
 * soft's and step's buffer-size.  Every bad name or value gets a message
 * that says what is valid.
 */
#include "session/session_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/btsrec.h"
#include "record/ptrec.h"
#include "session/ptfilter.h"
#include "util/error.h"

/* ---- record options (pt, bts, soft, step) ---- */

/* "64M", "65536", "4k", "1G" (and "unlimited" when @unlimited_ok: 0). */
static int opt_bytes(const char *name, const char *v, int unlimited_ok, uint64_t *out)
{
	char *end;
	uint64_t n, mul = 1;

	if (unlimited_ok && !strcmp(v, "unlimited")) {
		*out = 0;
		return 0;
	}
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v || *v == '-')
		goto bad;
	switch (*end) {
	case 'k':
	case 'K':
		mul = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mul = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1ull << 30;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (n && mul > UINT64_MAX / n))
		goto bad;
	*out = n * mul;
	return 0;
bad:
	return ptd__err(-ptde_invalid, "invalid %s \"%s\" (bytes, with K, M or G%s)", name, v,
			unlimited_ok ? ", or unlimited" : "");
}

/* A perf ring: a power of two of pages. */
static int opt_ring_bytes(const char *name, const char *v, uint64_t *out)
{
	int rc = opt_bytes(name, v, 0, out);

	if (rc < 0)
		return rc;
	if (*out < 4096 || (*out & (*out - 1)))
		return ptd__err(
			-ptde_invalid,
			"invalid %s \"%s\": a power of two of pages (4K, 8K, ... 4M) is needed",
			name, v);
	return 0;
}

static int opt_bool(const char *name, const char *v, int def_ok, int *out)
{
	if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true"))
		*out = 1;
	else if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false"))
		*out = 0;
	else if (def_ok && !strcmp(v, "default"))
		*out = -1;
	else
		return ptd__err(-ptde_invalid, "invalid %s \"%s\" (on or off%s)", name, v,
				def_ok ? ", or default" : "");
	return 0;
}

static void pt_filters_clear(struct ptd_ptrec_config *c)
{
	for (int i = 0; i < c->nfilters; i++)
		free(c->filters[i]);
	memset(c->filters, 0, sizeof(c->filters));
	c->nfilters = 0;
}

static int opt_unknown(enum ptd_method m, const char *name)
{
	switch (m) {
	case PTD_METHOD_PT:
		return ptd__err(
			-ptde_invalid,
			"unknown pt option \"%s\" (buffer-size, buffer, kernel, ret-compression, "
			"tsc, mtc, cyc, psb-period, filter)",
			name);
	case PTD_METHOD_BTS:
	case PTD_METHOD_SOFT:
	case PTD_METHOD_STEP:
		return ptd__err(-ptde_invalid, "unknown %s option \"%s\" (buffer-size)",
				ptd_method_name(m), name);
	default:
		return ptd__err(-ptde_invalid, "method '%s' has no options", ptd_method_name(m));
	}
}

static int pt_option(struct ptd_session *s, const char *name, const char *v)
{
	struct ptd_ptrec_config *c = &s->ptcfg;
	int b, rc;

	if (!strcmp(name, "buffer-size")) {
		uint64_t n;
		rc = opt_ring_bytes("pt buffer-size", v, &n);
		if (rc == 0)
			c->buffer_size = n;
		return rc;
	}
	if (!strcmp(name, "buffer")) {
		if (!strcmp(v, "circular"))
			c->linear = 0;
		else if (!strcmp(v, "full") || !strcmp(v, "linear"))
			c->linear = 1;
		else
			return ptd__err(
				-ptde_invalid,
				"invalid pt buffer \"%s\" (circular: the newest trace survives, "
				"or full: drained at stops, nothing lost)",
				v);
		return 0;
	}
	if (!strcmp(name, "kernel")) {
		rc = opt_bool("pt kernel", v, 0, &b);
		if (rc == 0)
			c->kernel = b;
		return rc;
	}
	if (!strcmp(name, "ret-compression") || !strcmp(name, "tsc") || !strcmp(name, "mtc") ||
	    !strcmp(name, "cyc")) {
		char what[40];
		snprintf(what, sizeof(what), "pt %s", name);
		rc = opt_bool(what, v, 1, &b);
		if (rc < 0)
			return rc;
		if (!strcmp(name, "ret-compression"))
			c->ret_compression = b;
		else if (!strcmp(name, "tsc"))
			c->tsc = b;
		else if (!strcmp(name, "mtc"))
			c->mtc = b;
		else
			c->cyc = b;
		return 0;
	}
	if (!strcmp(name, "psb-period")) {
		char *end;
		long n;
		if (!strcmp(v, "default")) {
			c->psb_period = -1;
			return 0;
		}
		errno = 0;
		n = strtol(v, &end, 0);
		if (errno || end == v || *end || n < 0 || n > 15)
			return ptd__err(
				-ptde_invalid,
				"invalid pt psb-period \"%s\" (0..15: PSB every 2^(n+11) bytes, "
				"or default)",
				v);
		c->psb_period = (int)n;
		return 0;
	}
	if (!strcmp(name, "filter")) {
		char *f;
		if (!strcmp(v, "none")) {
			pt_filters_clear(c);
			return 0;
		}
		if (!*v || strpbrk(v, "\n, \t"))
			return ptd__err(-ptde_invalid,
					"invalid pt filter \"%s\" (START/SIZE@FILE, FUNC@FILE, or none)",
					v);
		/* a malformed START/SIZE@FILE is refused now, not at `record` */
		{
			unsigned long long start, size;
			const char *file;

			rc = ptd__pt_filter_range(v, &start, &size, &file);
			if (rc < 0)
				return rc;
		}
		if (c->nfilters >= PTD_PT_FILTERS_MAX)
			return ptd__err(-ptde_invalid,
					"too many pt filters (at most %d; \"none\" clears them)",
					PTD_PT_FILTERS_MAX);
		f = strdup(v);
		if (!f)
			return -ptde_nomem;
		c->filters[c->nfilters++] = f;
		return 0;
	}
	return opt_unknown(PTD_METHOD_PT, name);
}

int ptd_session_set_record_option(struct ptd_session *s, enum ptd_method m, const char *name,
				  const char *value)
{
	uint64_t n;
	int rc;

	if (!s || !name || !value)
		return ptd__err(-ptde_invalid, "no record option given");
	while (*value == ' ' || *value == '\t')
		value++;
	switch (m) {
	case PTD_METHOD_PT:
		return pt_option(s, name, value);
	case PTD_METHOD_BTS:
		if (strcmp(name, "buffer-size"))
			return opt_unknown(m, name);
		rc = opt_ring_bytes("bts buffer-size", value, &n);
		if (rc == 0)
			s->btscfg.buffer_size = n;
		return rc;
	case PTD_METHOD_SOFT:
	case PTD_METHOD_STEP:
		if (strcmp(name, "buffer-size"))
			return opt_unknown(m, name);
		rc = opt_bytes("buffer-size", value, 1, &n);
		return rc < 0 ? rc : ptd_session_set_buffer_size(s, m, n);
	default:
		return opt_unknown(m, name);
	}
}

static const char *tri(int v)
{
	return v < 0 ? "default" : v ? "on" : "off";
}

int ptd_session_get_record_option(struct ptd_session *s, enum ptd_method m, const char *name,
				  char *buf, size_t n)
{
	const struct ptd_ptrec_config *c;

	if (!s || !name || !buf || !n)
		return ptd__err(-ptde_invalid, "no record option given");
	buf[0] = 0;
	c = &s->ptcfg;
	if (m == PTD_METHOD_PT) {
		if (!strcmp(name, "buffer-size"))
			snprintf(
				buf, n, "%llu",
				(unsigned long long)(c->buffer_size ? c->buffer_size : 4ull << 20));
		else if (!strcmp(name, "buffer"))
			snprintf(buf, n, "%s", c->linear ? "full" : "circular");
		else if (!strcmp(name, "kernel"))
			snprintf(buf, n, "%s", c->kernel ? "on" : "off");
		else if (!strcmp(name, "ret-compression"))
			snprintf(buf, n, "%s", tri(c->ret_compression));
		else if (!strcmp(name, "tsc"))
			snprintf(buf, n, "%s", tri(c->tsc));
		else if (!strcmp(name, "mtc"))
			snprintf(buf, n, "%s", tri(c->mtc));
		else if (!strcmp(name, "cyc"))
			snprintf(buf, n, "%s", tri(c->cyc));
		else if (!strcmp(name, "psb-period")) {
			if (c->psb_period < 0)
				snprintf(buf, n, "default");
			else
				snprintf(buf, n, "%d", c->psb_period);
		} else if (!strcmp(name, "filter")) {
			size_t k = 0;
			if (!c->nfilters)
				snprintf(buf, n, "none");
			for (int i = 0; i < c->nfilters && k < n; i++)
				k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? "\n" : "",
						      c->filters[i]);
		} else
			return opt_unknown(m, name);
		return 0;
	}
	if (m == PTD_METHOD_BTS && !strcmp(name, "buffer-size")) {
		snprintf(buf, n, "%llu",
			 (unsigned long long)(s->btscfg.buffer_size ? s->btscfg.buffer_size
								    : 1ull << 20));
		return 0;
	}
	if ((m == PTD_METHOD_SOFT || m == PTD_METHOD_STEP) && !strcmp(name, "buffer-size")) {
		uint64_t v = ptd_session_buffer_size(s, m);
		if (v)
			snprintf(buf, n, "%llu", (unsigned long long)v);
		else
			snprintf(buf, n, "unlimited");
		return 0;
	}
	return opt_unknown(m, name);
}
