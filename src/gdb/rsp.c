/*
 * gdb remote serial protocol framing (see rsp.h).
 */
#include "gdb/rsp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

enum { ST_IDLE, ST_DATA, ST_RLE, ST_CK1, ST_CK2 };

int ptd_rsp_reader_init(struct ptd_rsp_reader *r, size_t max)
{
	memset(r, 0, sizeof(*r));
	r->max = max ? max : 16384;
	r->cap = 256;
	r->buf = malloc(r->cap);
	if (!r->buf)
		return ptd__err(-ptde_nomem, "cannot allocate the packet buffer");
	r->buf[0] = 0;
	return 0;
}

void ptd_rsp_reader_free(struct ptd_rsp_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

int ptd_rsp_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Appends @count copies of @c to the payload, within the limit. */
static int put_bytes(struct ptd_rsp_reader *r, uint8_t c, size_t count)
{
	if (r->too_long || r->len + count > r->max) {
		r->too_long = 1;
		return 0;
	}
	if (r->len + count + 1 > r->cap) {
		size_t cap = r->cap;
		while (cap < r->len + count + 1)
			cap *= 2;
		uint8_t *p = realloc(r->buf, cap);
		if (!p)
			return ptd__err(-ptde_nomem, "cannot grow the packet buffer");
		r->buf = p;
		r->cap = cap;
	}
	memset(r->buf + r->len, c, count);
	r->len += count;
	return 0;
}

int ptd_rsp_feed(struct ptd_rsp_reader *r, const uint8_t *data, size_t n, size_t *used)
{
	size_t i = 0;
	int ev = PTD_RSP_NONE, rc;

	while (i < n && ev == PTD_RSP_NONE) {
		uint8_t c = data[i++];
		switch (r->state) {
		case ST_IDLE:
			if (c == '$') {
				r->state = ST_DATA;
				r->len = 0;
				r->sum = 0;
				r->too_long = 0;
				r->bad_rle = 0;
			} else if (c == '+') {
				ev = PTD_RSP_ACK;
			} else if (c == '-') {
				ev = PTD_RSP_NAK;
			} else if (c == 0x03) {
				ev = PTD_RSP_INTERRUPT;
			} else {
				r->garbage++;
			}
			break;
		case ST_DATA:
			if (c == '#') {
				r->state = ST_CK1;
				break;
			}
			if (c == '$') {
				/* A new packet starts inside this one: the peer gave
				 * up on the old one (gdb does after a timeout). */
				r->len = 0;
				r->sum = 0;
				r->too_long = 0;
				r->bad_rle = 0;
				break;
			}
			r->sum += c;
			if (c == '*') {
				/* Run length: repeats the byte before, which must be a
				 * plain byte (not the second of an escape pair). */
				if (r->len == 0 || (r->len >= 2 && r->buf[r->len - 2] == '}' &&
						    !(r->len >= 3 && r->buf[r->len - 3] == '}')))
					r->bad_rle = 1;
				r->state = ST_RLE;
				break;
			}
			if ((rc = put_bytes(r, c, 1)) < 0)
				return rc;
			break;
		case ST_RLE:
			r->sum += c;
			r->state = ST_DATA;
			if (c == '#' || c == '$') {
				/* never a count; the packet is broken */
				r->bad_rle = 1;
				r->state = c == '#' ? ST_CK1 : ST_DATA;
				break;
			}
			if (c < 29 + 3 || c > 126) {
				r->bad_rle = 1;
				break;
			}
			if (!r->bad_rle && r->len > 0 &&
			    (rc = put_bytes(r, r->buf[r->len - 1], (size_t)(c - 29))) < 0)
				return rc;
			break;
		case ST_CK1:
			r->ck = c;
			r->state = ST_CK2;
			break;
		case ST_CK2: {
			int hi = ptd_rsp_hexval(r->ck), lo = ptd_rsp_hexval(c);
			r->state = ST_IDLE;
			r->buf[r->len < r->cap ? r->len : r->cap - 1] = 0;
			if (hi < 0 || lo < 0 || (uint8_t)(hi * 16 + lo) != r->sum)
				ev = PTD_RSP_BAD_CHECKSUM;
			else if (r->too_long)
				ev = PTD_RSP_OVERSIZE;
			else if (r->bad_rle)
				ev = PTD_RSP_BAD_ENCODING;
			else
				ev = PTD_RSP_PACKET;
			if (ev != PTD_RSP_PACKET) {
				r->len = 0;
				r->buf[0] = 0;
			}
			break;
		}
		}
	}
	if (used)
		*used = i;
	return ev;
}

long ptd_rsp_unescape(uint8_t *buf, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '}') {
			if (++i == n)
				return ptd__err(-ptde_bad_trace, "an escape character ends the data");
			buf[o++] = buf[i] ^ 0x20;
		} else {
			buf[o++] = buf[i];
		}
	}
	return (long)o;
}

void ptd_rsp_buf_free(struct ptd_rsp_buf *b)
{
	if (!b)
		return;
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void ptd_rsp_buf_reset(struct ptd_rsp_buf *b)
{
	b->len = 0;
	b->oom = 0;
	if (b->p)
		b->p[0] = 0;
}

static int reserve(struct ptd_rsp_buf *b, size_t more)
{
	if (b->oom)
		return -1;
	if (b->len + more + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + more + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return -1;
		}
		b->p = p;
		b->cap = cap;
	}
	return 0;
}

void ptd_rsp_put(struct ptd_rsp_buf *b, const void *data, size_t n)
{
	if (reserve(b, n) < 0)
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = 0;
}

void ptd_rsp_puts(struct ptd_rsp_buf *b, const char *s)
{
	ptd_rsp_put(b, s, strlen(s));
}

void ptd_rsp_printf(struct ptd_rsp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void ptd_rsp_put_hex(struct ptd_rsp_buf *b, const void *data, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *d = data;

	if (reserve(b, 2 * n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		b->p[b->len++] = digits[d[i] >> 4];
		b->p[b->len++] = digits[d[i] & 15];
	}
	b->p[b->len] = 0;
}

void ptd_rsp_put_binary(struct ptd_rsp_buf *b, const void *data, size_t n)
{
	const uint8_t *d = data;

	if (reserve(b, 2 * n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = d[i];
		if (c == '$' || c == '#' || c == '}' || c == '*') {
			b->p[b->len++] = '}';
			c ^= 0x20;
		}
		b->p[b->len++] = (char)c;
	}
	b->p[b->len] = 0;
}

int ptd_rsp_frame(struct ptd_rsp_buf *out, const char *p, size_t n, int rle)
{
	uint8_t sum = 0;
	char ck[3];

	ptd_rsp_buf_reset(out);
	if (reserve(out, n + 4) < 0)
		return ptd__err(-ptde_nomem, "cannot frame a reply of %zu bytes", n);
	out->p[out->len++] = '$';
	for (size_t i = 0; i < n;) {
		size_t run = 1;
		/* Never run-length encode inside an escape pair: the pair's
		 * second byte would be taken for a plain one when repeated. */
		int escaped = i > 0 && p[i - 1] == '}' && !(i > 1 && p[i - 2] == '}');
		while (rle && !escaped && p[i] != '}' && i + run < n && p[i + run] == p[i] && run < 98)
			run++;
		/* counts 6 and 7 would be '#' and '$': shorten those runs */
		while (run - 1 == 6 || run - 1 == 7)
			run--;
		if (rle && run > 3) {
			char enc[3] = { p[i], '*', (char)(run - 1 + 29) };
			for (int k = 0; k < 3; k++) {
				out->p[out->len++] = enc[k];
				sum += (uint8_t)enc[k];
			}
		} else {
			run = 1;
			out->p[out->len++] = p[i];
			sum += (uint8_t)p[i];
		}
		i += run;
		if (reserve(out, 8) < 0)
			return ptd__err(-ptde_nomem, "cannot frame a reply of %zu bytes", n);
	}
	snprintf(ck, sizeof(ck), "%02x", sum);
	out->p[out->len++] = '#';
	out->p[out->len++] = ck[0];
	out->p[out->len++] = ck[1];
	out->p[out->len] = 0;
	return 0;
}

long ptd_rsp_unhex(const char *hex, size_t n, uint8_t *out, size_t cap)
{
	size_t o = 0;

	if (n % 2)
		return ptd__err(-ptde_invalid, "odd number of hex digits");
	for (size_t i = 0; i < n; i += 2) {
		int hi = ptd_rsp_hexval((unsigned char)hex[i]), lo = ptd_rsp_hexval((unsigned char)hex[i + 1]);
		if (hi < 0 || lo < 0)
			return ptd__err(-ptde_invalid, "not a hex digit: '%c'", hi < 0 ? hex[i] : hex[i + 1]);
		if (o == cap)
			break;
		out[o++] = (uint8_t)(hi * 16 + lo);
	}
	return (long)o;
}
