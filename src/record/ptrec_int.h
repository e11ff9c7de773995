/*
 * Internals shared by the pt and bts recorders (ptrec*.c, btsrec*.c):
 * what CPUID says about the cpu, the perf permission checks, and one
 * perf event's mappings.
 */
#ifndef PTD_RECORD_PTREC_INT_H
#define PTD_RECORD_PTREC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "record/btsrec.h"
#include "record/perf.h"
#include "record/ptrec.h"

struct ptd__cpuinfo {
	char vendor[13];
	unsigned max_leaf;
	unsigned family, model, stepping;
	int hypervisor; /* CPUID.1 ECX bit 31 */
	int ds;         /* CPUID.1 EDX bit 21: debug store (BTS) */
	int pt;         /* CPUID.7 EBX bit 25 */
	int pt_topa;    /* CPUID.0x14 ECX bit 0 */
};

void ptd__perf_cpu(struct ptd_perf_kernel *k, struct ptd__cpuinfo *c);
int ptd__cpu_is_intel(const struct ptd__cpuinfo *c);
/* perf_event_paranoid through @k, -100 when unknown. */
int ptd__perf_paranoid(struct ptd_perf_kernel *k);
/* CAP_PERFMON or CAP_SYS_ADMIN. */
int ptd__perf_privileged(void);
/* 0, or <0 with the cause and the fix in @why. */
int ptd__perf_check_paranoid(struct ptd_perf_kernel *k, int kernel, char *why, size_t n);

/* A perf_event_open / mmap failure as a message with its cause and fix.
 * @what: "open the intel_pt event", ... */
int ptd__perf_errmsg(struct ptd_perf_kernel *k, int err, const char *what, pid_t tid,
		     const char *pmu);

/* Kernel addresses (canonical upper half) are dropped from user-only
 * records. */
static inline int ptd__kernel_addr(uint64_t a)
{
	return (a >> 63) != 0;
}

struct ptd_target;
struct ptd_stop;

#endif
