/* gdb remote serial protocol framing (src/gdb/rsp.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gdb/rsp.h"

/* Feeds @s whole; returns the events in order (at most 16). */
static int feed_all(struct ptd_rsp_reader *r, const char *s, size_t n, int *ev, char pk[][256])
{
	size_t off = 0, used;
	int k = 0;

	while (off < n) {
		int e = ptd_rsp_feed(r, (const uint8_t *)s + off, n - off, &used);
		assert_true(e >= 0);
		assert_true(used > 0);
		off += used;
		if (e == PTD_RSP_NONE)
			continue;
		assert_true(k < 16);
		if (e == PTD_RSP_PACKET)
			snprintf(pk[k], 256, "%.*s", (int)r->len, (const char *)r->buf);
		ev[k++] = e;
	}
	return k;
}

static void test_packets_and_acks(void **state)
{
	struct ptd_rsp_reader r;
	int ev[16];
	char pk[16][256];
	const char in[] = "+$qSupported:multiprocess+#c6-\x03junk$g#67$m0,4#fd";

	(void)state;
	assert_int_equal(ptd_rsp_reader_init(&r, 4096), 0);
	int k = feed_all(&r, in, sizeof(in) - 1, ev, pk);
	assert_int_equal(k, 6);
	assert_int_equal(ev[0], PTD_RSP_ACK);
	assert_int_equal(ev[1], PTD_RSP_PACKET);
	assert_string_equal(pk[1], "qSupported:multiprocess+");
	assert_int_equal(ev[2], PTD_RSP_NAK);
	assert_int_equal(ev[3], PTD_RSP_INTERRUPT);
	assert_int_equal(ev[4], PTD_RSP_PACKET);
	assert_string_equal(pk[4], "g");
	assert_int_equal(ev[5], PTD_RSP_PACKET);
	assert_string_equal(pk[5], "m0,4");
	assert_int_equal(r.garbage, 4);
	ptd_rsp_reader_free(&r);
}

static void test_byte_by_byte(void **state)
{
	struct ptd_rsp_reader r;
	const char in[] = "$vCont;c#a8";
	int got = 0;

	(void)state;
	assert_int_equal(ptd_rsp_reader_init(&r, 4096), 0);
	for (size_t i = 0; i < sizeof(in) - 1; i++) {
		size_t used;
		int e = ptd_rsp_feed(&r, (const uint8_t *)in + i, 1, &used);
		assert_int_equal(used, 1);
		if (i + 2 < sizeof(in) - 1)
			assert_int_equal(e, PTD_RSP_NONE);
		else if (e == PTD_RSP_PACKET)
			got++;
	}
	assert_int_equal(got, 1);
	assert_string_equal((char *)r.buf, "vCont;c");
	ptd_rsp_reader_free(&r);
}

static void test_bad_checksum_and_oversize(void **state)
{
	struct ptd_rsp_reader r;
	int ev[16];
	char pk[16][256];
	const char in[] = "$g#00$g#zz$0123456789abcdef0123#00$?#3f";
	char big[64];
	uint8_t sum = 0;

	(void)state;
	assert_int_equal(ptd_rsp_reader_init(&r, 8), 0);
	int k = feed_all(&r, in, sizeof(in) - 1, ev, pk);
	assert_int_equal(k, 4);
	assert_int_equal(ev[0], PTD_RSP_BAD_CHECKSUM);
	assert_int_equal(ev[1], PTD_RSP_BAD_CHECKSUM);
	assert_int_equal(ev[2], PTD_RSP_BAD_CHECKSUM);
	assert_int_equal(ev[3], PTD_RSP_PACKET);
	assert_string_equal(pk[3], "?");
	/* the same long packet with its right checksum: oversize */
	for (const char *p = "0123456789abcdef0123"; *p; p++)
		sum += (uint8_t)*p;
	snprintf(big, sizeof(big), "$0123456789abcdef0123#%02x", sum);
	k = feed_all(&r, big, strlen(big), ev, pk);
	assert_int_equal(k, 1);
	assert_int_equal(ev[0], PTD_RSP_OVERSIZE);
	assert_int_equal(r.cap, 256); /* it never grew past its first size: the limit is 8 */
	ptd_rsp_reader_free(&r);
}

static void test_rle_round_trip(void **state)
{
	struct ptd_rsp_buf out = { 0 };
	struct ptd_rsp_reader r;
	int ev[16];
	char pk[16][256];
	char payload[200];

	(void)state;
	/* runs of every length 1..99, including 7 and 8 (counts 6, 7) */
	for (int len = 1; len < 100; len++) {
		memset(payload, 'x', (size_t)len);
		payload[len] = 'y';
		payload[len + 1] = 0;
		assert_int_equal(ptd_rsp_frame(&out, payload, (size_t)len + 1, 1), 0);
		assert_null(strchr(out.p + 1, '$'));
		assert_true(strchr(out.p, '#') == out.p + out.len - 3);
		assert_int_equal(ptd_rsp_reader_init(&r, 4096), 0);
		int k = feed_all(&r, out.p, out.len, ev, pk);
		assert_int_equal(k, 1);
		assert_int_equal(ev[0], PTD_RSP_PACKET);
		assert_string_equal(pk[0], payload);
		ptd_rsp_reader_free(&r);
	}
	/* a '*' count of '#' is refused */
	assert_int_equal(ptd_rsp_reader_init(&r, 4096), 0);
	const char bad2[] = "$*!#4b";
	int k = feed_all(&r, bad2, sizeof(bad2) - 1, ev, pk);
	assert_int_equal(k, 1);
	assert_int_equal(ev[0], PTD_RSP_BAD_ENCODING);
	ptd_rsp_reader_free(&r);
	ptd_rsp_buf_free(&out);
}

static void test_binary_escape(void **state)
{
	struct ptd_rsp_buf b = { 0 }, out = { 0 };
	struct ptd_rsp_reader r;
	uint8_t data[256];
	int ev[16];
	char pk[16][256];

	(void)state;
	for (int i = 0; i < 256; i++)
		data[i] = (uint8_t)i;
	ptd_rsp_puts(&b, "l");
	ptd_rsp_put_binary(&b, data, sizeof(data));
	assert_false(b.oom);
	assert_int_equal(ptd_rsp_frame(&out, b.p, b.len, 1), 0);
	assert_int_equal(ptd_rsp_reader_init(&r, 4096), 0);
	size_t used;
	int e = ptd_rsp_feed(&r, (uint8_t *)out.p, out.len, &used);
	assert_int_equal(e, PTD_RSP_PACKET);
	assert_int_equal(used, out.len);
	assert_int_equal(r.buf[0], 'l');
	long n = ptd_rsp_unescape(r.buf + 1, r.len - 1);
	assert_int_equal(n, 256);
	assert_memory_equal(r.buf + 1, data, 256);
	/* a dangling escape */
	uint8_t dangling[] = { 'a', '}' };
	assert_true(ptd_rsp_unescape(dangling, 2) < 0);
	(void)ev;
	(void)pk;
	ptd_rsp_reader_free(&r);
	ptd_rsp_buf_free(&b);
	ptd_rsp_buf_free(&out);
}

static void test_hex(void **state)
{
	struct ptd_rsp_buf b = { 0 };
	uint8_t out[4];

	(void)state;
	ptd_rsp_put_hex(&b, "\x01\xab\xff", 3);
	assert_string_equal(b.p, "01abff");
	assert_int_equal(ptd_rsp_unhex("01abFF", 6, out, 4), 3);
	assert_memory_equal(out, "\x01\xab\xff", 3);
	assert_true(ptd_rsp_unhex("012", 3, out, 4) < 0);
	assert_true(ptd_rsp_unhex("0g", 2, out, 4) < 0);
	assert_int_equal(ptd_rsp_unhex("0102030405", 10, out, 4), 4);
	ptd_rsp_printf(&b, ";%s:%x", "thread", 0x1f);
	assert_string_equal(b.p, "01abff;thread:1f");
	ptd_rsp_buf_free(&b);
}

/* A packet restarted by a '$' inside it keeps only the new one. */
static void test_restart(void **state)
{
	struct ptd_rsp_reader r;
	int ev[16];
	char pk[16][256];
	const char in[] = "$qC$g#67";

	(void)state;
	assert_int_equal(ptd_rsp_reader_init(&r, 4096), 0);
	int k = feed_all(&r, in, sizeof(in) - 1, ev, pk);
	assert_int_equal(k, 1);
	assert_int_equal(ev[0], PTD_RSP_PACKET);
	assert_string_equal(pk[0], "g");
	ptd_rsp_reader_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packets_and_acks),
		cmocka_unit_test(test_byte_by_byte),
		cmocka_unit_test(test_bad_checksum_and_oversize),
		cmocka_unit_test(test_rle_round_trip),
		cmocka_unit_test(test_binary_escape),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_restart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
