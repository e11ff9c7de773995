/*
 * libFuzzer over the gdb remote-protocol framing (src/gdb/rsp.h), as the
 * stub meets an untrusted client: the input is cut into reads at the
 * places its first byte chooses and fed to one reader; every complete
 * packet is framed again (with and without run-length encoding) and must
 * read back identical, and its binary unescape must stay in bounds.
 * Every packet also goes to the stub's dispatcher (src/gdb/stub.h) on a
 * session with no program: any reply, within PacketSize, never a crash
 * (all but vRun and vAttach, which would touch real processes, and the
 * host I/O packets that would write or remove real files).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gdb/rsp.h"
#include "gdb/stub.h"
#include "session/session.h"

static void round_trip(const uint8_t *p, size_t n, int rle)
{
	struct ptd_rsp_buf out = { 0 };
	struct ptd_rsp_reader r;
	size_t used;

	/* A payload with '$' or '#' cannot be framed as is (the packet layer
	 * never produces one: binary is escaped first). */
	if (memchr(p, '$', n) || memchr(p, '#', n) || memchr(p, '*', n))
		return;
	if (ptd_rsp_frame(&out, (const char *)p, n, rle) < 0 || ptd_rsp_reader_init(&r, n + 1) < 0) {
		ptd_rsp_buf_free(&out);
		return;
	}
	int e = ptd_rsp_feed(&r, (const uint8_t *)out.p, out.len, &used);
	if (e != PTD_RSP_PACKET || used != out.len || r.len != n || memcmp(r.buf, p, n) != 0)
		abort();
	ptd_rsp_reader_free(&r);
	ptd_rsp_buf_free(&out);
}

/* One stub for the whole run (a session with no process: nothing the
 * packets ask can touch a real one). */
static struct ptd_session *sess;
static struct ptd_stub *stub;
static struct ptd_rsp_buf reply;

static void dispatch(uint8_t *p, size_t n)
{
	if (!stub) {
		sess = ptd_session_alloc();
		stub = sess ? ptd_stub_alloc(sess, 0) : NULL;
		if (!stub)
			return;
	}
	/* vRun and vAttach would start or seize real processes (after a
	 * '!' the fuzzer may find): those two stay out */
	if ((n >= 4 && !memcmp(p, "vRun", 4)) || (n >= 7 && !memcmp(p, "vAttach", 7)))
		return;
	/* host I/O works on the real file system: files are opened only for
	 * reading, never written or removed */
	if ((n >= 12 && !memcmp(p, "vFile:unlink", 12)) || (n >= 12 && !memcmp(p, "vFile:pwrite", 12)))
		return;
	if (n >= 11 && !memcmp(p, "vFile:open:", 11)) {
		const uint8_t *c = memchr(p + 11, ',', n - 11);

		if (!c || (size_t)(p + n - c) < 3 || c[1] != '0' || c[2] != ',')
			return;
	}
	int act = ptd_stub_packet(stub, p, n, &reply);
	if (act & PTD_STUB_RESUME)
		act = ptd_stub_resume(stub, &reply);
	if (reply.len > PTD_STUB_PACKET_SIZE && !reply.oom)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptd_rsp_reader r;
	size_t off = 1, chunk;

	if (size < 1 || ptd_rsp_reader_init(&r, 512) < 0)
		return 0;
	chunk = data[0] % 17 + 1;
	while (off < size) {
		size_t n = size - off < chunk ? size - off : chunk, used = 0;
		int e = ptd_rsp_feed(&r, data + off, n, &used);
		if (e < 0 || used == 0 || used > n)
			abort();
		off += used;
		if (e == PTD_RSP_PACKET) {
			if (r.len > r.max || r.buf[r.len] != 0)
				abort();
			uint8_t *copy = malloc(r.len + 1);
			if (copy) {
				memcpy(copy, r.buf, r.len);
				round_trip(copy, r.len, 0);
				round_trip(copy, r.len, 1);
				long u = ptd_rsp_unescape(copy, r.len);
				if (u > (long)r.len)
					abort();
				memcpy(copy, r.buf, r.len);
				dispatch(copy, r.len);
				free(copy);
			}
		}
	}
	ptd_rsp_reader_free(&r);
	return 0;
}
