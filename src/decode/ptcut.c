/*
 * The end of a thread's Intel PT at its exit syscall (ptcut.h): a packet
 * walk from the last PSB, with libipt's packet decoder.
 */
#include "decode/ptcut.h"

#include <intel-pt.h>

size_t ptd__pt_exit_cut(const uint8_t *pt, size_t n)
{
	struct pt_packet_decoder *d;
	struct pt_config cfg;
	struct pt_packet pkt;
	uint64_t at = 0, pgd = n;
	int fup = 0;

	if (!pt || !n)
		return n;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)pt;
	cfg.end = (uint8_t *)pt + n;
	d = pt_pkt_alloc_decoder(&cfg);
	if (!d)
		return n;
	/* (from the end: the last PSB; the packets after it are few) */
	if (pt_pkt_sync_backward(d) < 0) {
		pt_pkt_free_decoder(d);
		return n;
	}
	for (;;) {
		if (pt_pkt_get_offset(d, &at) < 0 || pt_pkt_next(d, &pkt, sizeof(pkt)) < 0)
			break;
		switch (pkt.type) {
		case ppt_pad:
			continue; /* (padding after the TIP.PGD changes nothing) */
		case ppt_tip_pgd:
			/* a FUP before it: an asynchronous disable (an
			 * interrupt), where no instruction was executed */
			pgd = !fup && pkt.payload.ip.ipc == pt_ipc_suppressed ? at : n;
			fup = 0;
			continue;
		case ppt_fup:
			fup = 1;
			break;
		default:
			fup = 0;
			break;
		}
		pgd = n;
	}
	pt_pkt_free_decoder(d);
	/* (the walk must have reached the end: a packet it cannot read
	 * leaves the trace as it is) */
	return at == n ? (size_t)pgd : n;
}
