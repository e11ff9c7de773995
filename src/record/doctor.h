/*
 * `ptdbg doctor`: what ptdbg can record with on this machine, and why.
 *
 * The facts (the CPU from cpuid, CPUID leaf 0x14, the hypervisor bit, the
 * intel_pt and intel_bts PMUs and their caps in sysfs, perf_event_paranoid,
 * Yama's ptrace_scope) are read through the kernel-facing perf layer
 * (src/record/perf.h), so a simulated kernel (PTDBG_SIMULATE_PMU) answers
 * for itself; ptrace's facts (Yama, capabilities, whether a child can be
 * traced at all) always come from the running kernel, since soft and step
 * run for real under a simulated PMU too.  The verdicts for pt and bts
 * are the recorders' own probes (ptd_ptrec_probe, ptd_btsrec_probe), so
 * the doctor says exactly what `record pt` / `record bts` would say; soft
 * and step need ptrace only.  Every front end (the shell's `doctor` and
 * `ptdbg doctor`, a gdb stub's monitor command) prints the same lines
 * with ptd_doctor_print().
 */
#ifndef PTD_RECORD_DOCTOR_H
#define PTD_RECORD_DOCTOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ptdbg/ptdbg.h"
#include "record/perf.h"

/* enum ptd_doctor_method, ptd_doctor_report() and ptd_doctor_method_name()
 * are public (include/ptdbg/ptdbg.h). */

struct ptd_doctor_verdict {
	const char *name; /* "pt", "bts", "soft", "step" */
	int usable;       /* 1: the method can record here */
	char why[320];    /* refused: the cause (the probe's words); usable: what it is */
	char fix[240];    /* refused: the one-line fix, "" when there is none */
};

struct ptd_doctor {
	/* The kernel the facts were read through. */
	char kernel[32]; /* its name: "linux", "simulated pt", ... */
	int simulated;   /* PTDBG_SIMULATE_PMU: the PMU below is not this machine's */
	char simulate_env[32]; /* the PTDBG_SIMULATE_PMU value, "" when unset */

	/* cpuid */
	char vendor[13];       /* "GenuineIntel", "AuthenticAMD" */
	unsigned max_leaf;     /* highest basic leaf */
	unsigned family, model, stepping; /* display family and model */
	unsigned leaf1_eax;
	int hypervisor;        /* CPUID.1:ECX[31] */
	char hv_vendor[13];    /* leaf 0x40000000 signature ("KVMKVMKVM"), "" when none */
	int cpuid_pt;          /* CPUID.(7,0):EBX[25]: Intel PT */
	int cpuid_ds;          /* CPUID.1:EDX[21]: debug store (BTS lives in it) */
	int cpuid_dtes64;      /* CPUID.1:ECX[2]: 64-bit DS layout */
	int have_leaf14;       /* leaf 0x14 was read (cpuid_pt and max_leaf >= 0x14) */
	unsigned leaf14[2][4]; /* subleaves 0 and 1: eax, ebx, ecx, edx */

	/* sysfs: /sys/bus/event_source/devices/{intel_pt,intel_bts} */
	int pt_pmu;          /* 1: intel_pt read, 0: absent, <0: unreadable */
	char pt_pmu_err[160];
	struct ptd_perf_pmu pt;
	int bts_pmu;         /* the same for intel_bts */
	char bts_pmu_err[160];
	struct ptd_perf_pmu bts;

	/* /proc/sys */
	int paranoid_known;
	long paranoid;       /* kernel/perf_event_paranoid */
	int scope_known;     /* 0: no Yama (its file is absent) */
	long ptrace_scope;   /* kernel/yama/ptrace_scope */

	/* the process */
	uid_t euid;
	int caps_known;
	int cap_sys_ptrace, cap_perfmon, cap_sys_admin; /* effective capabilities */
	int trace_tried;     /* a child was forked to try PTRACE_TRACEME */
	int trace_ok;        /* ... and it could be traced */
	char trace_err[160];

	/* conclusions (ptd_doctor_conclude) */
	struct ptd_doctor_verdict m[PTD_DOCTOR_NMETHODS];
	int auto_choice;     /* enum ptd_doctor_method --method=auto takes, -1: none */
	int kernel_trace_ok; /* `set record pt kernel on` is permitted */
	char attach[200];    /* whether attach works, and the fix when it does not */

	/* Under simulation, what the running kernel itself says of pt and bts
	 * (a simulation never hides a real refusal). */
	int real_checked;
	int real_usable[2];
	char real_why[2][320];
};

/*
 * Reads every fact through @k (not taken over; NULL: the running kernel),
 * runs the pt and bts probes through it and concludes.  Under simulation
 * the running kernel is asked too (real_*).  Never fails: what cannot be
 * read is reported as such.  Returns 0, or -ptde_invalid for a NULL @d.
 */
int ptd_doctor_run(struct ptd_perf_kernel *k, struct ptd_doctor *d);

/*
 * Recomputes the soft/step verdicts, each refused method's fix, the
 * attach line and auto's choice from the facts in @d (the pt and bts
 * verdicts' usable/why are the probes' and are kept).  ptd_doctor_run()
 * calls it; tests call it again after changing facts.
 */
void ptd_doctor_conclude(struct ptd_doctor *d);

/* Writes the report, one line per call of @line (no newline in @text). */
void ptd_doctor_print(const struct ptd_doctor *d, void (*line)(void *ctx, const char *text),
		      void *ctx);

#endif
