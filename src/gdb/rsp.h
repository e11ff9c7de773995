/*
 * gdb remote serial protocol: framing only (what a packet looks like on
 * the wire), apart from what packets mean.  The stub's dispatcher gets
 * whole, checked payloads from the reader and hands reply payloads to the
 * writer.
 *
 * On the wire: '$' payload '#' two hex digits (the sum of the payload's
 * bytes modulo 256), acknowledged with '+' (or '-': send it again) until
 * QStartNoAckMode; a lone 0x03 byte asks to interrupt the program.  In
 * payloads, '}' escapes the next byte (that byte XOR 0x20; '$', '#', '}'
 * and '*' are always escaped in binary data) and "c*n" repeats c
 * (n - 29) more times (run-length encoding; n is never '#' or '$' and the
 * count never 6 or 7 for that reason).  Everything here is about bytes
 * from an untrusted peer: any input gives events or errors, never a
 * crash, and no packet grows past the reader's limit.
 */
#ifndef PTD_GDB_RSP_H
#define PTD_GDB_RSP_H

#include <stddef.h>
#include <stdint.h>

enum ptd_rsp_event {
	PTD_RSP_NONE = 0,      /* all input consumed, nothing complete yet */
	PTD_RSP_PACKET,        /* a checked payload is in the reader's buf/len */
	PTD_RSP_ACK,           /* '+' */
	PTD_RSP_NAK,           /* '-': send the last packet again */
	PTD_RSP_INTERRUPT,     /* 0x03 outside a packet */
	PTD_RSP_BAD_CHECKSUM,  /* a packet whose checksum is wrong (reply '-') */
	PTD_RSP_OVERSIZE,      /* a packet longer than the limit (dropped) */
	PTD_RSP_BAD_ENCODING,  /* a run-length count that is not allowed */
};

struct ptd_rsp_reader {
	uint8_t *buf;   /* the payload of the last PTD_RSP_PACKET (NUL-terminated) */
	size_t len;
	size_t cap;
	size_t max;     /* limit of a payload after run-length expansion */
	int state;
	uint8_t sum;    /* running checksum */
	uint8_t ck;     /* first checksum digit */
	int too_long;   /* the packet being read exceeded max */
	int bad_rle;
	uint64_t garbage; /* bytes outside packets that were ignored */
};

/* @max: the payload limit (the PacketSize the stub announces). */
int ptd_rsp_reader_init(struct ptd_rsp_reader *r, size_t max);
void ptd_rsp_reader_free(struct ptd_rsp_reader *r);
/*
 * Consumes bytes from @data (@n of them) up to and including the first
 * event; *@used says how many.  Returns the event (PTD_RSP_NONE when all
 * of @data was consumed without one), or -ptde_nomem.
 */
int ptd_rsp_feed(struct ptd_rsp_reader *r, const uint8_t *data, size_t n, size_t *used);

/* Undoes '}' escapes in place (binary data of X, vFile:pwrite...).
 * Returns the new length, or -ptde_bad_trace for a '}' at the end. */
long ptd_rsp_unescape(uint8_t *buf, size_t n);

/* A growing output buffer. */
struct ptd_rsp_buf {
	char *p;
	size_t len, cap;
	int oom; /* an append failed: the content is incomplete */
};
void ptd_rsp_buf_free(struct ptd_rsp_buf *b);
void ptd_rsp_buf_reset(struct ptd_rsp_buf *b);
void ptd_rsp_put(struct ptd_rsp_buf *b, const void *data, size_t n);
void ptd_rsp_puts(struct ptd_rsp_buf *b, const char *s);
__attribute__((format(printf, 2, 3))) void ptd_rsp_printf(struct ptd_rsp_buf *b, const char *fmt, ...);
/* Hex of @n bytes (m, g, qXfer in hex...). */
void ptd_rsp_put_hex(struct ptd_rsp_buf *b, const void *data, size_t n);
/* Binary data with '$', '#', '}', '*' escaped (qXfer replies, vFile). */
void ptd_rsp_put_binary(struct ptd_rsp_buf *b, const void *data, size_t n);

/*
 * Frames payload @p (@n bytes, already escaped where binary) as
 * "$...#cc" into @out (reset first), run-length encoding runs of more
 * than three equal bytes when @rle.  Returns 0 or -ptde_nomem.
 */
int ptd_rsp_frame(struct ptd_rsp_buf *out, const char *p, size_t n, int rle);

/* The value of hex digit @c, or -1. */
int ptd_rsp_hexval(int c);

/* Parses hex digits: returns the number of bytes written to @out (at most
 * @cap) from 2 * that many digits of @hex, or -ptde_invalid for an odd
 * count or a non-hex digit. */
long ptd_rsp_unhex(const char *hex, size_t n, uint8_t *out, size_t cap);

#endif
