/*
 * ptdbg public API, part two: the gdb remote serial protocol.  libptdbg
 * serves gdb and lldb (ptdbg-server is a thin transport around this): the
 * framing of packets on the wire (ptd_rsp_*) and the stub that gives
 * packets their meaning on top of a struct ptd_session (ptd_stub_*).
 * Conventions as in ptdbg.h (errors, ownership); include ptdbg.h first
 * or let this header do it.
 */
#ifndef PTDBG_GDBSTUB_H
#define PTDBG_GDBSTUB_H

#include <ptdbg/ptdbg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Framing                                                             */
/*
 * Framing only (what a packet looks like on
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
extern PTD_EXPORT int ptd_rsp_reader_init(struct ptd_rsp_reader *r, size_t max);
extern PTD_EXPORT void ptd_rsp_reader_free(struct ptd_rsp_reader *r);
/*
 * Consumes bytes from @data (@n of them) up to and including the first
 * event; *@used says how many.  Returns the event (PTD_RSP_NONE when all
 * of @data was consumed without one), or -ptde_nomem.
 */
extern PTD_EXPORT int ptd_rsp_feed(struct ptd_rsp_reader *r, const uint8_t *data, size_t n, size_t *used);

/* Undoes '}' escapes in place (binary data of X, vFile:pwrite...).
 * Returns the new length, or -ptde_bad_trace for a '}' at the end. */
extern PTD_EXPORT long ptd_rsp_unescape(uint8_t *buf, size_t n);

/* A growing output buffer. */
struct ptd_rsp_buf {
	char *p;
	size_t len, cap;
	int oom; /* an append failed: the content is incomplete */
};
extern PTD_EXPORT void ptd_rsp_buf_free(struct ptd_rsp_buf *b);
extern PTD_EXPORT void ptd_rsp_buf_reset(struct ptd_rsp_buf *b);
extern PTD_EXPORT void ptd_rsp_put(struct ptd_rsp_buf *b, const void *data, size_t n);
extern PTD_EXPORT void ptd_rsp_puts(struct ptd_rsp_buf *b, const char *s);
extern PTD_EXPORT void ptd_rsp_printf(struct ptd_rsp_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Hex of @n bytes (m, g, qXfer in hex...). */
extern PTD_EXPORT void ptd_rsp_put_hex(struct ptd_rsp_buf *b, const void *data, size_t n);
/* Binary data with '$', '#', '}', '*' escaped (qXfer replies, vFile). */
extern PTD_EXPORT void ptd_rsp_put_binary(struct ptd_rsp_buf *b, const void *data, size_t n);

/*
 * Frames payload @p (@n bytes, already escaped where binary) as
 * "$...#cc" into @out (reset first), run-length encoding runs of more
 * than three equal bytes when @rle.  Returns 0 or -ptde_nomem.
 */
extern PTD_EXPORT int ptd_rsp_frame(struct ptd_rsp_buf *out, const char *p, size_t n, int rle);

/* The value of hex digit @c, or -1. */
extern PTD_EXPORT int ptd_rsp_hexval(int c);

/* Parses hex digits: returns the number of bytes written to @out (at most
 * @cap) from 2 * that many digits of @hex, or -ptde_invalid for an odd
 * count or a non-hex digit. */
extern PTD_EXPORT long ptd_rsp_unhex(const char *hex, size_t n, uint8_t *out, size_t cap);


/* ------------------------------------------------------------------ */
/* The stub                                                            */
/*
 * The gdb stub: what remote-protocol packets mean, on top of a session.
 * Framing is rsp.h's; a front end (cmd/ptdbg-server) owns the transport
 * and hands every checked payload to ptd_stub_packet(), sending back the
 * reply it gets.  A const table dispatches packets by name, so all of this
 * is testable without sockets (tests/unit/test-stub.c).
 *
 * Resuming packets (c, s, vCont, bc, bs...) are split in two so the front
 * end can watch the connection for the interrupt byte while the program
 * runs: ptd_stub_packet() returns PTD_STUB_RESUME and ptd_stub_resume()
 * runs the motion and writes the stop reply.
 *
 * Packets are untrusted input: anything malformed gets "E NN", anything
 * unknown an empty reply; nothing here exits or asserts on a packet.
 */



struct ptd_session;
struct ptd_stub;

/* The PacketSize announced in qSupported: the longest payload accepted
 * (also the reader's limit). */
#define PTD_STUB_PACKET_SIZE 0x4000

/* What ptd_stub_packet() asks of the transport (a bit mask). */
enum {
	PTD_STUB_REPLY = 1,  /* send the reply buffer (it may be empty: "not supported") */
	PTD_STUB_RESUME = 2, /* call ptd_stub_resume() (watching for 0x03) and send its reply */
	PTD_STUB_CLOSE = 4,  /* after the reply (if any), close the connection */
	PTD_STUB_NOACK = 8,  /* after the reply, stop sending and expecting acks */
};

/*
 * A stub for session @s, which holds a launched (@attached 0) or an
 * attached program, stopped.  The session stays the caller's.  Returns
 * NULL when out of memory.
 */
extern PTD_EXPORT struct ptd_stub *ptd_stub_alloc(struct ptd_session *s, int attached);
extern PTD_EXPORT void ptd_stub_free(struct ptd_stub *st);
/* Programs started or attached later (extended-remote vRun, vAttach) are
 * recorded with enum ptd_method @method from the start; -1: not.  With a
 * method, a recorded program stops before its exit_group (stop reply T00,
 * as gdb's record full stops there) and exits when resumed from there. */
extern PTD_EXPORT void ptd_stub_set_record(struct ptd_stub *st, int method);
/* Whether the session's process was attached (not launched). */
extern PTD_EXPORT int ptd_stub_attached(const struct ptd_stub *st);

/*
 * Handles one payload @pkt (@len bytes; binary packets may hold any
 * byte; the buffer may be modified, e.g. by unescaping X data) and writes
 * the reply payload (unframed) into @reply, reset first.  Returns the
 * PTD_STUB_* mask.
 */
extern PTD_EXPORT int ptd_stub_packet(struct ptd_stub *st, uint8_t *pkt, size_t len, struct ptd_rsp_buf *reply);

/* Runs the resume that ptd_stub_packet() asked for and writes the stop
 * reply (or "E NN") into @reply.  Returns the PTD_STUB_* mask. */
extern PTD_EXPORT int ptd_stub_resume(struct ptd_stub *st, struct ptd_rsp_buf *reply);

/* The stop reply gdb gets for '?' now. */
extern PTD_EXPORT void ptd_stub_last_stop(struct ptd_stub *st, struct ptd_rsp_buf *reply);

/* gdb's signal numbers (include/gdb/signals.def) from Linux ones and
 * back; 0 when there is no counterpart. */
extern PTD_EXPORT int ptd_stub_gdb_signal(int linux_sig);
extern PTD_EXPORT int ptd_stub_linux_signal(int gdb_sig);


#ifdef __cplusplus
}
#endif

#endif
