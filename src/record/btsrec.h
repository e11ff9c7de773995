/*
 * The BTS recorder: perf branch samples per thread, gdb's proven
 * settings (PERF_TYPE_HARDWARE / PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
 * sample_period 1, sample_type IP|ADDR, user only), each (from, to)
 * record closing the block [previous to, this from]; records from kernel
 * addresses are dropped; overflow (head moved more than the buffer since
 * the last read) is a gap.  CPU models with the BTS erratum are refused,
 * as gdb refuses them.  The intel_bts AUX PMU is used when present.
 */
#ifndef PTD_RECORD_BTSREC_H
#define PTD_RECORD_BTSREC_H

#include <stdint.h>

#include "record/perf.h"
#include "record/recorder.h"

struct ptd_btsrec_config {
	uint64_t buffer_size; /* data ring bytes per thread (power-of-two pages); 0: 1 MiB */
};

int ptd_btsrec_probe(struct ptd_perf_kernel *k, char *why, size_t n);
struct ptd_recorder *ptd_btsrec_recorder(struct ptd_perf_kernel *k,
					 const struct ptd_recorder_env *env,
					 const struct ptd_btsrec_config *cfg);

#endif
