/*
 * Settings of the pt and bts recorders by name (see recopts.h): one
 * parser for every front end, so `set record pt buffer full` in the
 * shell, --pt-buffer=full on the command line and a stub's settings mean
 * the same and are refused with the same words.
 */
#include "record/recopts.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define PAGE 4096ull
#define PT_DEFAULT_BUFFER ((uint64_t)4 << 20)
#define BTS_DEFAULT_BUFFER ((uint64_t)1 << 20)
/* The pt recorder's least AUX area (src/record/ptrec.c). */
#define PT_MIN_PAGES 2
/* More than the kernel would lock for one thread's trace anywhere. */
#define MAX_BUFFER (1ull << 32)

const char *const ptd_recopts_pt_names[] = {
	"buffer-size", "buffer", "kernel", "ret-compression", "tsc", "mtc", "cyc", "psb-period",
	"filter", NULL,
};
const char *const ptd_recopts_bts_names[] = { "buffer-size", NULL };

void ptd_recopts_pt_init(struct ptd_ptrec_config *c)
{
	memset(c, 0, sizeof(*c));
	c->ret_compression = -1;
	c->tsc = c->mtc = c->cyc = -1;
	c->psb_period = -1;
}

void ptd_recopts_bts_init(struct ptd_btsrec_config *c)
{
	memset(c, 0, sizeof(*c));
}

void ptd_recopts_pt_fini(struct ptd_ptrec_config *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nfilters; i++)
		free(c->filters[i]);
	ptd_recopts_pt_init(c);
}

int ptd_recopts_pt_copy(struct ptd_ptrec_config *dst, const struct ptd_ptrec_config *src)
{
	*dst = *src;
	for (int i = 0; i < src->nfilters; i++) {
		dst->filters[i] = strdup(src->filters[i]);
		if (!dst->filters[i]) {
			dst->nfilters = i;
			ptd_recopts_pt_fini(dst);
			return ptd__err(-ptde_nomem, "cannot copy the pt settings: out of memory");
		}
	}
	return 0;
}

static const char *skipws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* @value without surrounding blanks, in @buf. */
static const char *trim(const char *value, char *buf, size_t n)
{
	size_t len;

	value = skipws(value ? value : "");
	len = strlen(value);
	while (len && isspace((unsigned char)value[len - 1]))
		len--;
	if (len >= n)
		len = n - 1;
	memcpy(buf, value, len);
	buf[len] = '\0';
	return buf;
}

/* "4M", "65536", "default" / "0" (0): bytes, a power-of-two number of pages,
 * at least @min_pages. */
static int parse_buffer(const char *what, const char *v, uint64_t def, uint64_t min_pages,
			uint64_t *out)
{
	char *end;
	uint64_t n, mul = 1, pages;

	if (!strcmp(v, "default")) {
		*out = 0;
		return 0;
	}
	if (!isdigit((unsigned char)*v))
		goto bad;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno)
		goto bad;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (n && mul > UINT64_MAX / n))
		goto bad;
	n *= mul;
	if (n == 0) {
		*out = 0;
		return 0;
	}
	pages = n / PAGE;
	if (n % PAGE || (pages & (pages - 1)) || pages < min_pages || n > MAX_BUFFER)
		return ptd__err(-ptde_invalid,
				"invalid %s buffer-size \"%s\": it must be a power-of-two number of "
				"4K pages (%" PRIu64 "K, %" PRIu64 "K, ... 4G), or default (%" PRIu64
				"M)",
				what, v, min_pages * 4, min_pages * 8, def >> 20);
	*out = n;
	return 0;
bad:
	return ptd__err(-ptde_invalid,
			"invalid %s buffer-size \"%s\" (bytes with K, M or G, a power-of-two "
			"number of 4K pages, or default)", what, v);
}

/* on | off, and auto (-1) when @tri. */
static int parse_switch(const char *name, const char *v, int tri, int *out)
{
	if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "enable"))
		*out = 1;
	else if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no") ||
		 !strcmp(v, "disable"))
		*out = 0;
	else if (tri && !strcmp(v, "auto"))
		*out = -1;
	else
		return ptd__err(-ptde_invalid, "invalid value \"%s\" for pt %s: %s", v, name,
				tri ? "on, off or auto" : "on or off");
	return 0;
}

static int parse_num(const char *s, unsigned long long *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	return (int)(end - s);
}

int ptd_recopts_filter_range(const char *spec, unsigned long long *start,
			     unsigned long long *size, const char **file)
{
	const char *p = spec, *slash, *at;
	int k;

	slash = strchr(spec, '/');
	at = strchr(spec, '@');
	/* START/SIZE@FILE starts with a number and has both separators in
	 * that order; a path or a function name does not start with a digit. */
	if (!isdigit((unsigned char)*spec) || !slash || !at || at < slash)
		return 0;
	k = parse_num(p, start);
	if (k < 0 || p + k != slash)
		goto bad;
	p = slash + 1;
	k = parse_num(p, size);
	if (k < 0 || p + k != at || !*size)
		goto bad;
	if (!at[1])
		goto bad;
	if (*start + *size < *start)
		goto bad;
	*file = at + 1;
	return 1;
bad:
	return ptd__err(-ptde_invalid,
			"invalid pt filter \"%s\": START/SIZE@FILE wants two numbers (SIZE not 0) "
			"and a file, as in 0x1000/0x200@/usr/bin/prog",
			spec);
}

static int add_filter(struct ptd_ptrec_config *c, const char *v)
{
	unsigned long long start, size;
	const char *file;
	int rc;

	if (!strcmp(v, "none")) {
		for (int i = 0; i < c->nfilters; i++) {
			free(c->filters[i]);
			c->filters[i] = NULL;
		}
		c->nfilters = 0;
		return 0;
	}
	if (!*v)
		return ptd__err(-ptde_invalid, "pt filter: give FUNCTION, FILE, START/SIZE@FILE "
					       "or none");
	rc = ptd_recopts_filter_range(v, &start, &size, &file);
	if (rc < 0)
		return rc;
	if (strchr(v, ' ') || strchr(v, ','))
		return ptd__err(-ptde_invalid, "invalid pt filter \"%s\": one filter at a time, "
					       "without blanks or commas", v);
	if (c->nfilters >= PTD_PT_FILTERS_MAX)
		return ptd__err(-ptde_invalid, "cannot add the pt filter \"%s\": ptdbg takes at most "
					       "%d (and the CPU caps/num_address_ranges); \"record pt "
					       "filter none\" removes them",
				v, PTD_PT_FILTERS_MAX);
	for (int i = 0; i < c->nfilters; i++)
		if (!strcmp(c->filters[i], v))
			return 0; /* already there */
	c->filters[c->nfilters] = strdup(v);
	if (!c->filters[c->nfilters])
		return ptd__err(-ptde_nomem, "out of memory");
	c->nfilters++;
	return 0;
}

static int unknown(const char *what, const char *name, const char *const *names)
{
	char list[256];
	size_t len = 0;

	list[0] = '\0';
	for (int i = 0; names[i] && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					names[i]);
	return ptd__err(-ptde_notfound, "no %s option \"%s\" (%s ones: %s)", what, name, what, list);
}

int ptd_recopts_pt_set(struct ptd_ptrec_config *c, const char *name, const char *value)
{
	char v[512];

	if (!c || !name)
		return ptd__err(-ptde_invalid, "pt settings: NULL argument");
	trim(value, v, sizeof(v));
	if (!strcmp(name, "filter"))
		return add_filter(c, v);
	if (!*v)
		return ptd__err(-ptde_invalid, "pt %s: a value is required", name);
	if (!strcmp(name, "buffer-size"))
		return parse_buffer("pt", v, PT_DEFAULT_BUFFER, PT_MIN_PAGES, &c->buffer_size);
	if (!strcmp(name, "buffer")) {
		if (!strcmp(v, "circular"))
			c->linear = 0;
		else if (!strcmp(v, "full") || !strcmp(v, "linear"))
			c->linear = 1;
		else
			return ptd__err(-ptde_invalid, "invalid pt buffer \"%s\": circular (the "
						       "newest trace survives) or full (drained at "
						       "stops, nothing lost)", v);
		return 0;
	}
	if (!strcmp(name, "kernel"))
		return parse_switch(name, v, 0, &c->kernel);
	if (!strcmp(name, "ret-compression"))
		return parse_switch(name, v, 1, &c->ret_compression);
	if (!strcmp(name, "tsc"))
		return parse_switch(name, v, 1, &c->tsc);
	if (!strcmp(name, "mtc"))
		return parse_switch(name, v, 1, &c->mtc);
	if (!strcmp(name, "cyc"))
		return parse_switch(name, v, 1, &c->cyc);
	if (!strcmp(name, "psb-period")) {
		unsigned long long n;

		if (!strcmp(v, "auto")) {
			c->psb_period = -1;
			return 0;
		}
		if (parse_num(v, &n) != (int)strlen(v) || n > 15)
			return ptd__err(-ptde_invalid, "invalid pt psb-period \"%s\": 0 to 15 (a PSB "
						       "every 2^(N+11) bytes) or auto", v);
		c->psb_period = (int)n;
		return 0;
	}
	return unknown("pt", name, ptd_recopts_pt_names);
}

int ptd_recopts_bts_set(struct ptd_btsrec_config *c, const char *name, const char *value)
{
	char v[128];

	if (!c || !name)
		return ptd__err(-ptde_invalid, "bts settings: NULL argument");
	trim(value, v, sizeof(v));
	if (!strcmp(name, "buffer-size")) {
		if (!*v)
			return ptd__err(-ptde_invalid, "bts buffer-size: a value is required");
		return parse_buffer("bts", v, BTS_DEFAULT_BUFFER, 1, &c->buffer_size);
	}
	return unknown("bts", name, ptd_recopts_bts_names);
}

static const char *tri_name(int v)
{
	return v < 0 ? "auto" : v ? "on" : "off";
}

static int put(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int put(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= n)
		return ptd__err(-ptde_invalid, "no room for the setting's value");
	return len;
}

int ptd_recopts_pt_get(const struct ptd_ptrec_config *c, const char *name, char *buf, size_t n)
{
	if (!c || !name || !buf || !n)
		return ptd__err(-ptde_invalid, "pt settings: NULL argument");
	if (!strcmp(name, "buffer-size"))
		return put(buf, n, "%" PRIu64, c->buffer_size ? c->buffer_size : PT_DEFAULT_BUFFER);
	if (!strcmp(name, "buffer"))
		return put(buf, n, "%s", c->linear ? "full" : "circular");
	if (!strcmp(name, "kernel"))
		return put(buf, n, "%s", c->kernel ? "on" : "off");
	if (!strcmp(name, "ret-compression"))
		return put(buf, n, "%s", tri_name(c->ret_compression));
	if (!strcmp(name, "tsc"))
		return put(buf, n, "%s", tri_name(c->tsc));
	if (!strcmp(name, "mtc"))
		return put(buf, n, "%s", tri_name(c->mtc));
	if (!strcmp(name, "cyc"))
		return put(buf, n, "%s", tri_name(c->cyc));
	if (!strcmp(name, "psb-period")) {
		if (c->psb_period < 0)
			return put(buf, n, "auto");
		return put(buf, n, "%d", c->psb_period);
	}
	if (!strcmp(name, "filter")) {
		size_t len = 0;

		if (!c->nfilters)
			return put(buf, n, "none");
		buf[0] = '\0';
		for (int i = 0; i < c->nfilters; i++) {
			int k = put(buf + len, n - len, "%s%s", i ? ", " : "", c->filters[i]);

			if (k < 0)
				return k;
			len += (size_t)k;
		}
		return (int)len;
	}
	return unknown("pt", name, ptd_recopts_pt_names);
}

int ptd_recopts_bts_get(const struct ptd_btsrec_config *c, const char *name, char *buf,
			size_t n)
{
	if (!c || !name || !buf || !n)
		return ptd__err(-ptde_invalid, "bts settings: NULL argument");
	if (!strcmp(name, "buffer-size"))
		return put(buf, n, "%" PRIu64,
			   c->buffer_size ? c->buffer_size : BTS_DEFAULT_BUFFER);
	return unknown("bts", name, ptd_recopts_bts_names);
}
