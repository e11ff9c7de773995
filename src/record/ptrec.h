/*
 * The Intel PT recorder: one perf event per thread (pid = tid, cpu = -1)
 * on the intel_pt PMU, set up from sysfs (type, caps, format bits), the
 * AUX area circular (default: the newest trace survives, like gdb) or
 * linear (drained at stops and at the watermark: nothing lost), sideband
 * from the data ring (PERF_RECORD_AUX flags, ITRACE_START, LOST, MMAP2)
 * turned into gaps that say what was lost and how to avoid it.  At each
 * stop the new PT is decoded (src/decode/pt.h) and joins the thread's
 * history; nothing is decoded twice.  It runs on the kernel given
 * (src/record/perf.h): the real one, or the simulated PMU.
 */
#ifndef PTD_RECORD_PTREC_H
#define PTD_RECORD_PTREC_H

#include <stdint.h>

#include "record/perf.h"
#include "record/recorder.h"

#define PTD_PT_FILTERS_MAX 4

struct ptd_ptrec_config {
	uint64_t buffer_size; /* AUX bytes per thread; power-of-two pages; 0: 4 MiB */
	int linear;           /* 1: --pt-buffer=full (linear, drained) */
	int kernel;           /* also trace the kernel (where permitted) */
	int ret_compression;  /* -1: PMU default (on), 0 off, 1 on */
	int tsc, mtc, cyc;    /* timing packets when caps allow (-1: default) */
	int psb_period;       /* -1: default; else the format term's value */
	/* Address filters, perf's syntax: "filter START/SIZE@FILE",
	 * "filter FUNC@FILE" resolved by the caller to addresses. */
	char *filters[PTD_PT_FILTERS_MAX];
	int nfilters;
};

/* Is Intel PT usable through @k?  0, or <0 with the cause and the fix in
 * @why ("no Intel PT: this is a virtual machine (hypervisor bit set); run
 * on bare metal", "perf_event_paranoid is 3: run sysctl
 * kernel.perf_event_paranoid=1, or give ptdbg CAP_PERFMON", ...). */
int ptd_ptrec_probe(struct ptd_perf_kernel *k, char *why, size_t n);
/* The recorder; takes ownership of @k.  NULL with the message set. */
struct ptd_recorder *ptd_ptrec_recorder(struct ptd_perf_kernel *k, const struct ptd_recorder_env *env,
					const struct ptd_ptrec_config *cfg);

#endif
