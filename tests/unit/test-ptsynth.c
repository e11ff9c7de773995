/*
 * Unit tests for the PT synthesizer (src/record/ptsynth.c): each outcome
 * call is checked against the packet sequence libipt's packet decoder reads
 * back (types, IP compression and payloads, TNT bit order and packing,
 * PSB+ contents and placement, the user-mode-only enable/disable patterns),
 * plus the argument and state errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <intel-pt.h>

#include "ptdbg/ptdbg.h"
#include "record/ptsynth.h"

#define MAXPKT 4096

struct pkts {
	struct pt_packet p[MAXPKT];
	uint64_t off[MAXPKT];
	int n;
};

/* Decodes the synthesizer's current output into packets (no PAD). */
static void packets_of(struct ptd_ptsynth *s, struct pkts *out)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	const uint8_t *buf;
	size_t size;

	out->n = 0;
	buf = ptd_ptsynth_data(s, &size);
	if (!size)
		return;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + size;
	d = pt_pkt_alloc_decoder(&cfg);
	assert_non_null(d);
	assert_int_equal(pt_pkt_sync_set(d, 0), 0);
	for (;;) {
		uint64_t off;
		int r;

		pt_pkt_get_offset(d, &off);
		r = pt_pkt_next(d, &out->p[out->n], sizeof(out->p[0]));
		if (r == -pte_eos)
			break;
		assert_true(r >= 0);
		if (out->p[out->n].type == ppt_pad)
			continue;
		out->off[out->n] = off;
		out->n++;
		assert_true(out->n < MAXPKT);
	}
	pt_pkt_free_decoder(d);
}

static struct ptd_ptsynth *mk(int period, int retc, int tsc, int tnt64)
{
	struct ptd_ptsynth_config cfg;
	struct ptd_ptsynth *s;

	memset(&cfg, 0, sizeof(cfg));
	cfg.psb_period = (uint32_t)period;
	cfg.ret_compression = retc;
	cfg.tsc = tsc;
	cfg.tnt64 = tnt64;
	s = ptd_ptsynth_alloc(&cfg);
	assert_non_null(s);
	return s;
}

static void test_null(void **state)
{
	(void)state;
	ptd_ptsynth_free(NULL);
	assert_int_equal(ptd_ptsynth_begin(NULL, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_cond(NULL, 1, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_call(NULL, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_icall(NULL, 0x1000, 0x2000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_indirect(NULL, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_ret(NULL, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_syscall(NULL, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_async(NULL, 0x1000, 0x2000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_overflow(NULL, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_end(NULL, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_flush(NULL), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_enabled(NULL), 0);
	assert_null(ptd_ptsynth_take(NULL, NULL));
}

static void test_state_errors(void **state)
{
	struct ptd_ptsynth *s = mk(0, 1, 0, 0);
	size_t before, after;

	(void)state;
	/* Nothing may happen before tracing is enabled. */
	assert_int_equal(ptd_ptsynth_cond(s, 1, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_ret(s, 0x1000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_begin(s, 0), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_end(s, 0x1000), 0); /* already disabled: no-op */
	ptd_ptsynth_data(s, &before);
	assert_int_equal(before, 0);
	assert_int_equal(ptd_ptsynth_begin(s, 0x401000), 0);
	assert_int_equal(ptd_ptsynth_enabled(s), 1);
	ptd_ptsynth_data(s, &before);
	assert_int_equal(ptd_ptsynth_begin(s, 0x401000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_async(s, 0, 0x2000), -ptde_invalid);
	assert_int_equal(ptd_ptsynth_overflow(s, 0), -ptde_invalid);
	ptd_ptsynth_data(s, &after);
	assert_int_equal(before, after);
	ptd_ptsynth_free(s);
}

static void test_begin_end(void **state)
{
	struct ptd_ptsynth *s = mk(0, 1, 0, 0);
	struct pkts *k = malloc(sizeof(*k));

	(void)state;
	assert_int_equal(ptd_ptsynth_begin(s, 0x401000), 0);
	assert_int_equal(ptd_ptsynth_end(s, 0x401234), 0);
	assert_int_equal(ptd_ptsynth_enabled(s), 0);
	packets_of(s, k);
	assert_int_equal(k->n, 7);
	assert_int_equal(k->p[0].type, ppt_psb);
	assert_int_equal(k->p[1].type, ppt_mode);
	assert_int_equal(k->p[1].payload.mode.leaf, pt_mol_exec);
	assert_int_equal(pt_get_exec_mode(&k->p[1].payload.mode.bits.exec), ptem_64bit);
	assert_int_equal(k->p[2].type, ppt_psbend);
	assert_int_equal(k->p[3].type, ppt_mode);
	assert_int_equal(k->p[4].type, ppt_tip_pge);
	assert_int_equal(k->p[4].payload.ip.ip, 0x401000);
	/* FUP at the stop ip, compressed against the PGE ip. */
	assert_int_equal(k->p[5].type, ppt_fup);
	assert_int_equal(k->p[5].payload.ip.ipc, pt_ipc_update_16);
	assert_int_equal(k->p[5].payload.ip.ip & 0xffff, 0x1234);
	assert_int_equal(k->p[6].type, ppt_tip_pgd);
	assert_int_equal(k->p[6].payload.ip.ipc, pt_ipc_suppressed);
	free(k);
	ptd_ptsynth_free(s);
}

static void test_tnt_packing(void **state)
{
	struct ptd_ptsynth *s = mk(0, 1, 0, 0);
	struct pkts *k = malloc(sizeof(*k));
	static const int bits[] = { 1, 0, 1, 1, 0, 0, 1, 1 };
	int i;

	(void)state;
	assert_int_equal(ptd_ptsynth_begin(s, 0x401000), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(ptd_ptsynth_cond(s, bits[i], 0x401000), 0);
	assert_int_equal(ptd_ptsynth_flush(s), 0);
	packets_of(s, k);
	/* 6 bits fill a TNT-8; the other 2 come out at the flush. */
	assert_int_equal(k->p[k->n - 2].type, ppt_tnt_8);
	assert_int_equal(k->p[k->n - 2].payload.tnt.bit_size, 6);
	/* Oldest branch in the most significant bit: 101100. */
	assert_int_equal(k->p[k->n - 2].payload.tnt.payload, 0x2c);
	assert_int_equal(k->p[k->n - 1].type, ppt_tnt_8);
	assert_int_equal(k->p[k->n - 1].payload.tnt.bit_size, 2);
	assert_int_equal(k->p[k->n - 1].payload.tnt.payload, 0x3);
	ptd_ptsynth_free(s);

	s = mk(0, 1, 0, 1);
	assert_int_equal(ptd_ptsynth_begin(s, 0x401000), 0);
	for (i = 0; i < 50; i++)
		assert_int_equal(ptd_ptsynth_cond(s, i & 1, 0x401000), 0);
	assert_int_equal(ptd_ptsynth_flush(s), 0);
	packets_of(s, k);
	assert_int_equal(k->p[k->n - 2].type, ppt_tnt_64);
	assert_int_equal(k->p[k->n - 2].payload.tnt.bit_size, 47);
	assert_int_equal(k->p[k->n - 1].type, ppt_tnt_8);
	assert_int_equal(k->p[k->n - 1].payload.tnt.bit_size, 3);
	free(k);
	ptd_ptsynth_free(s);
}

static void test_ret_compression(void **state)
{
	struct pkts *k = malloc(sizeof(*k));
	struct ptd_ptsynth *s;
	int retc;

	(void)state;
	for (retc = 0; retc <= 1; retc++) {
		s = mk(0, retc, 0, 0);
		assert_int_equal(ptd_ptsynth_begin(s, 0x401000), 0);
		assert_int_equal(ptd_ptsynth_call(s, 0x401005), 0);
		assert_int_equal(ptd_ptsynth_ret(s, 0x401005), 0); /* matching: compressible */
		assert_int_equal(ptd_ptsynth_call(s, 0x401005), 0);
		assert_int_equal(ptd_ptsynth_ret(s, 0x401777), 0); /* mismatch: TIP, no pop */
		assert_int_equal(ptd_ptsynth_ret(s, 0x401005), 0); /* still on the stack */
		assert_int_equal(ptd_ptsynth_flush(s), 0);
		packets_of(s, k);
		if (retc) {
			/* TNT(1) TIP(777) TNT(1) */
			assert_int_equal(k->p[k->n - 3].type, ppt_tnt_8);
			assert_int_equal(k->p[k->n - 3].payload.tnt.bit_size, 1);
			assert_int_equal(k->p[k->n - 2].type, ppt_tip);
			assert_int_equal(k->p[k->n - 2].payload.ip.ip & 0xffff, 0x1777);
			assert_int_equal(k->p[k->n - 1].type, ppt_tnt_8);
			assert_int_equal(k->p[k->n - 1].payload.tnt.payload, 1);
		} else {
			assert_int_equal(k->p[k->n - 3].type, ppt_tip);
			assert_int_equal(k->p[k->n - 2].type, ppt_tip);
			assert_int_equal(k->p[k->n - 1].type, ppt_tip);
		}
		ptd_ptsynth_free(s);
	}
	free(k);
}

static void test_ip_compression(void **state)
{
	struct ptd_ptsynth *s = mk(0, 1, 0, 0);
	struct pkts *k = malloc(sizeof(*k));

	(void)state;
	assert_int_equal(ptd_ptsynth_begin(s, 0x401000), 0);
	assert_int_equal(ptd_ptsynth_indirect(s, 0x40ffff), 0);
	assert_int_equal(ptd_ptsynth_indirect(s, 0x7fff12345678), 0);
	assert_int_equal(ptd_ptsynth_indirect(s, 0x7fff12ab9999), 0);
	assert_int_equal(ptd_ptsynth_indirect(s, 0xffffffff81000000ull), 0);
	packets_of(s, k);
	assert_int_equal(k->p[k->n - 4].payload.ip.ipc, pt_ipc_update_16);
	assert_int_equal(k->p[k->n - 3].payload.ip.ipc, pt_ipc_sext_48);
	assert_int_equal(k->p[k->n - 2].payload.ip.ipc, pt_ipc_update_32);
	assert_int_equal(k->p[k->n - 1].payload.ip.ipc, pt_ipc_sext_48);
	free(k);
	ptd_ptsynth_free(s);
}

static void test_psb_period(void **state)
{
	struct ptd_ptsynth *s = mk(64, 1, 1, 0);
	struct pkts *k = malloc(sizeof(*k));
	uint64_t last_psb = 0;
	int i, npsb = 0, ntsc = 0;

	(void)state;
	assert_int_equal(ptd_ptsynth_begin(s, 0x401000), 0);
	for (i = 0; i < 600; i++)
		assert_int_equal(ptd_ptsynth_cond(s, 1, 0x401000 + (uint64_t)(i % 7)), 0);
	assert_int_equal(ptd_ptsynth_end(s, 0x401000), 0);
	packets_of(s, k);
	for (i = 0; i < k->n; i++) {
		if (k->p[i].type == ppt_tsc)
			ntsc++;
		if (k->p[i].type != ppt_psb)
			continue;
		npsb++;
		if (npsb > 1) {
			/* PSB+ = PSB TSC MODE FUP PSBEND, the FUP being the ip the
			 * last outcome led to; it only follows a flushed TNT. */
			assert_true(k->off[i] - last_psb >= 64);
			assert_int_equal(k->p[i + 1].type, ppt_tsc);
			assert_int_equal(k->p[i + 2].type, ppt_mode);
			assert_int_equal(k->p[i + 3].type, ppt_fup);
			assert_int_equal(k->p[i + 4].type, ppt_psbend);
			assert_true(k->p[i + 3].payload.ip.ipc == pt_ipc_sext_48 ||
				    k->p[i + 3].payload.ip.ipc == pt_ipc_update_32);
			assert_int_equal(k->p[i - 1].type, ppt_tnt_8);
		}
		last_psb = k->off[i];
	}
	assert_true(npsb >= 600 / 6 / 64 * 1 + 2);
	assert_true(ntsc >= npsb + 1); /* one per PSB+ and one at the PGE */
	free(k);
	ptd_ptsynth_free(s);
}

static void test_syscall_async_overflow(void **state)
{
	struct ptd_ptsynth *s = mk(0, 1, 0, 0);
	struct pkts *k = malloc(sizeof(*k));
	int i;

	(void)state;
	assert_int_equal(ptd_ptsynth_begin(s, 0x401000), 0);
	assert_int_equal(ptd_ptsynth_cond(s, 0, 0x401002), 0);
	assert_int_equal(ptd_ptsynth_syscall(s, 0x401004), 0);
	assert_int_equal(ptd_ptsynth_async(s, 0x401010, 0x402000), 0);
	assert_int_equal(ptd_ptsynth_overflow(s, 0x401020), 0);
	assert_int_equal(ptd_ptsynth_syscall(s, 0), 0);
	assert_int_equal(ptd_ptsynth_enabled(s), 0);
	assert_int_equal(ptd_ptsynth_end(s, 0x401000), 0); /* no-op */
	packets_of(s, k);
	i = 5; /* after PSB MODE PSBEND MODE PGE */
	assert_int_equal(k->p[i].type, ppt_tnt_8);
	assert_int_equal(k->p[i + 1].type, ppt_tip_pgd);
	assert_int_equal(k->p[i + 1].payload.ip.ipc, pt_ipc_suppressed);
	assert_int_equal(k->p[i + 2].type, ppt_mode);
	assert_int_equal(k->p[i + 3].type, ppt_tip_pge);
	assert_int_equal(k->p[i + 3].payload.ip.ip & 0xffff, 0x1004);
	assert_int_equal(k->p[i + 4].type, ppt_fup);
	assert_int_equal(k->p[i + 4].payload.ip.ip & 0xffff, 0x1010);
	assert_int_equal(k->p[i + 5].type, ppt_tip_pgd);
	assert_int_equal(k->p[i + 5].payload.ip.ipc, pt_ipc_suppressed);
	assert_int_equal(k->p[i + 6].type, ppt_mode);
	assert_int_equal(k->p[i + 7].type, ppt_tip_pge);
	assert_int_equal(k->p[i + 7].payload.ip.ip & 0xffff, 0x2000);
	assert_int_equal(k->p[i + 8].type, ppt_ovf);
	/* After OVF the FUP does not depend on the last IP. */
	assert_int_equal(k->p[i + 9].type, ppt_fup);
	assert_int_equal(k->p[i + 9].payload.ip.ipc, pt_ipc_sext_48);
	assert_int_equal(k->p[i + 9].payload.ip.ip, 0x401020);
	assert_int_equal(k->p[i + 10].type, ppt_tip_pgd);
	assert_int_equal(k->n, i + 11);
	free(k);
	ptd_ptsynth_free(s);
}

static void test_take(void **state)
{
	struct ptd_ptsynth *s = mk(0, 1, 0, 0);
	uint16_t fam;
	uint8_t model, step;
	size_t n, n2;
	uint8_t *b;

	(void)state;
	assert_int_equal(ptd_ptsynth_begin(s, 0x401000), 0);
	b = ptd_ptsynth_take(s, &n);
	assert_non_null(b);
	assert_true(n > 16);
	assert_memory_equal(b, "\x02\x82\x02\x82", 4);
	free(b);
	ptd_ptsynth_data(s, &n2);
	assert_int_equal(n2, 0);
	assert_int_equal(ptd_ptsynth_cond(s, 1, 0x401000), 0);
	assert_int_equal(ptd_ptsynth_flush(s), 0);
	ptd_ptsynth_data(s, &n2);
	assert_int_equal(n2, 1);
	ptd_ptsynth_cpu(s, &fam, &model, &step);
	assert_int_equal(fam, 6);
	assert_int_equal(model, 0x8e);
	ptd_ptsynth_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_state_errors),
		cmocka_unit_test(test_begin_end),
		cmocka_unit_test(test_tnt_packing),
		cmocka_unit_test(test_ret_compression),
		cmocka_unit_test(test_ip_compression),
		cmocka_unit_test(test_psb_period),
		cmocka_unit_test(test_syscall_async_overflow),
		cmocka_unit_test(test_take),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
