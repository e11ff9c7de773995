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
#ifndef PTD_GDB_STUB_H
#define PTD_GDB_STUB_H

#include <stddef.h>
#include <stdint.h>

#include "gdb/rsp.h"

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
struct ptd_stub *ptd_stub_alloc(struct ptd_session *s, int attached);
void ptd_stub_free(struct ptd_stub *st);
/* Programs started or attached later (extended-remote vRun, vAttach) are
 * recorded with enum ptd_method @method from the start; -1: not. */
void ptd_stub_set_record(struct ptd_stub *st, int method);
/* Whether the session's process was attached (not launched). */
int ptd_stub_attached(const struct ptd_stub *st);

/*
 * Handles one payload @pkt (@len bytes; binary packets may hold any
 * byte; the buffer may be modified, e.g. by unescaping X data) and writes
 * the reply payload (unframed) into @reply, reset first.  Returns the
 * PTD_STUB_* mask.
 */
int ptd_stub_packet(struct ptd_stub *st, uint8_t *pkt, size_t len, struct ptd_rsp_buf *reply);

/* Runs the resume that ptd_stub_packet() asked for and writes the stop
 * reply (or "E NN") into @reply.  Returns the PTD_STUB_* mask. */
int ptd_stub_resume(struct ptd_stub *st, struct ptd_rsp_buf *reply);

/* The stop reply gdb gets for '?' now. */
void ptd_stub_last_stop(struct ptd_stub *st, struct ptd_rsp_buf *reply);

/* gdb's signal numbers (include/gdb/signals.def) from Linux ones and
 * back; 0 when there is no counterpart. */
int ptd_stub_gdb_signal(int linux_sig);
int ptd_stub_linux_signal(int gdb_sig);

#endif
