/*
 * The Intel PT recorder's state, shared by ptrec.c (events, rings, ops)
 * and ptrec_decode.c (decoding the kept PT into the histories).
 */
#ifndef PTDBG_RECORD_PTREC_PRIV_H
#define PTDBG_RECORD_PTREC_PRIV_H

#include "record/ptrec_int.h"

#include "decode/pt.h"
#include "history/history.h"

struct ptd_image;

struct ptthread {
	pid_t tid;
	struct ptd_history *h;
	int fd;		/* -1: closed (the thread is gone) */
	void *base;	/* data ring mapping */
	size_t base_len;
	void *aux;
	size_t aux_len;
	struct ptd_perf_ring ring;
	struct ptd_perf_aux auxr;
	int gone;

	/* The kept PT, all streams one after the other. */
	uint8_t *pt;
	size_t pt_size, pt_cap;
	uint64_t aux_pos; /* aux position (head) the end of pt corresponds to */

	/* The current stream: pt[s_start, pt_size). */
	size_t s_start;
	int s_synced;		/* its first PSB was found */
	uint64_t s_base;	/* offset (in the stream) of the PSB decoding restarts at */
	struct ptd_pt_state s_state; /* the decoder state at s_base */
	uint64_t s_done;	/* numbers the run from s_base gave and that are in h */
	uint64_t s_done_ev;	/* events it gave after its last number */
	/* Why bytes before the stream's first PSB cannot be decoded, when
	 * no loss gap said so already (NULL: nothing to say). */
	const char *s_lead_why;

	/* Losses the sideband reported, by aux position, not yet applied. */
	struct loss {
		uint64_t pos;
		char msg[256];
	} loss[8];
	int nloss;
	uint64_t lost_bytes, wraps, trace_bytes;
	uint64_t last_tail; /* the tail set at the last sync */
	int truncated; /* the kernel stopped the event: enable it after reading */
	/* Stopped in its exit (PTD_STOP_EXITING) inside the syscall at this
	 * address (ptd__exit_syscall), or 0: the PT shows that instruction
	 * executed (TIP.PGD into the kernel), the history ends before it. */
	uint64_t exit_sys;
	int exit_trimmed; /* its history lost that instruction (exit_trim) */
};

struct ptrec {
	struct ptd_recorder rec;
	struct ptd_perf_kernel *k;
	struct ptd_ptrec_config cfg;
	struct ptd_perf_pmu pmu;
	struct ptd__cpuinfo cpu;
	struct ptthread *th;
	int nth, cap;
	struct ptd_image *img;
	int img_stale;
	/* Sideband said the image changed: true for the trace read after
	 * the trace decoded next, so it applies after that decode. */
	int img_pending;
	int exec_seen; /* a COMM exec record was read, its trace not decoded yet */
	uint64_t aux_size; /* bytes per thread now (halved on ENOMEM) */
	int started;
	int stopped;
	char pmu_name[64];
	int filters_set;
};

struct ptd_image *ptd__ptrec_image(struct ptrec *p);
/* Decodes what is new in @th's current stream into its history; @final:
 * the stream ends here (data was lost after it, or the thread is gone). */
int ptd__ptrec_decode_stream(struct ptrec *p, struct ptthread *th, int final);
/* The stream ends (data lost after it): its rest decoded, the gap put. */
int ptd__ptrec_end_stream(struct ptrec *p, struct ptthread *th, const char *msg);
/* A new stream starts at the end of the kept PT. */
void ptd__ptrec_reset_stream(struct ptthread *th);

#endif
