/*
 * Whether Intel PT and BTS can be used through a perf kernel (real or
 * simulated), and why not: the cpu (vendor, hypervisor bit, CPUID leaves
 * 7 and 0x14), the PMUs in sysfs, perf_event_paranoid and the process's
 * capabilities.  Every refusal names its cause and, where there is one,
 * the one-line fix; so do the errors of perf_event_open, mmap and ioctl
 * both recorders get (ptd__perf_errmsg).
 */
#include "record/ptrec_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "target/target.h"
#include "util/error.h"

void ptd__perf_cpu(struct ptd_perf_kernel *k, struct ptd__cpuinfo *c)
{
	unsigned r[4];

	memset(c, 0, sizeof(*c));
	k->ops->cpuid(k, 0, 0, r);
	c->max_leaf = r[0];
	memcpy(c->vendor, &r[1], 4);
	memcpy(c->vendor + 4, &r[3], 4);
	memcpy(c->vendor + 8, &r[2], 4);
	c->vendor[12] = 0;
	if (c->max_leaf >= 1) {
		unsigned fam, model;

		k->ops->cpuid(k, 1, 0, r);
		fam = (r[0] >> 8) & 0xf;
		model = (r[0] >> 4) & 0xf;
		/* The extended family counts only for family 0xf, the
		 * extended model for families 6 and 0xf (Intel SDM, CPUID.1). */
		if (fam == 0xf)
			fam += (r[0] >> 20) & 0xff;
		if (fam == 6 || fam >= 0xf)
			model |= ((r[0] >> 16) & 0xf) << 4;
		c->family = fam;
		c->model = model;
		c->stepping = r[0] & 0xf;
		c->hypervisor = (r[2] >> 31) & 1;
		c->ds = (r[3] >> 21) & 1;
	}
	if (c->max_leaf >= 7) {
		k->ops->cpuid(k, 7, 0, r);
		c->pt = (r[1] >> 25) & 1;
	}
	if (c->pt && c->max_leaf >= 0x14) {
		k->ops->cpuid(k, 0x14, 0, r);
		c->pt_topa = r[2] & 1;
	}
}

int ptd__cpu_is_intel(const struct ptd__cpuinfo *c)
{
	return strcmp(c->vendor, "GenuineIntel") == 0;
}

/* The process has @cap in its effective set. */
static int have_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0)
		return 0;
	return (data[cap / 32].effective >> (cap % 32)) & 1;
}

int ptd__perf_privileged(void)
{
	/* CAP_PERFMON (38) since Linux 5.8; CAP_SYS_ADMIN before. */
	return have_cap(38) || have_cap(CAP_SYS_ADMIN);
}

int ptd__perf_paranoid(struct ptd_perf_kernel *k)
{
	char buf[32];
	long n = k->ops->read_procsys(k, "kernel/perf_event_paranoid", buf, sizeof(buf));

	if (n <= 0)
		return -100; /* unknown: no perf support at all, or no /proc */
	return atoi(buf);
}

int ptd__perf_check_paranoid(struct ptd_perf_kernel *k, int kernel, char *why, size_t n)
{
	int p = ptd__perf_paranoid(k);

	if (p == -100) {
		snprintf(why, n,
			 "this kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid); "
			 "build it with CONFIG_PERF_EVENTS");
		return -ptde_unsupported;
	}
	if (ptd__perf_privileged())
		return 0;
	if (p >= 3) {
		snprintf(why, n,
			 "perf_event_paranoid is %d: run sysctl kernel.perf_event_paranoid=1, "
			 "or give ptdbg CAP_PERFMON",
			 p);
		return -ptde_perm;
	}
	if (kernel && p >= 2) {
		snprintf(why, n,
			 "tracing the kernel needs perf_event_paranoid <= 1 (it is %d): run sysctl "
			 "kernel.perf_event_paranoid=1, or give ptdbg CAP_PERFMON",
			 p);
		return -ptde_perm;
	}
	return 0;
}

int ptd_ptrec_probe(struct ptd_perf_kernel *k, char *why, size_t n)
{
	struct ptd__cpuinfo c;
	struct ptd_perf_pmu pmu;
	char dummy[8];
	int rc;

	if (!why || !n)
		return -ptde_invalid;
	why[0] = 0;
	if (!k) {
		snprintf(why, n, "no perf kernel layer");
		return -ptde_invalid;
	}
	ptd__perf_cpu(k, &c);
	if (k->ops->read_sysfs(k, "intel_pt/type", dummy, sizeof(dummy)) < 0) {
		/* No PMU: say why, from the most to the least basic cause. */
		if (!ptd__cpu_is_intel(&c))
			snprintf(why, n,
				 "no Intel PT: this cpu is %s, and Intel PT exists on Intel cpus "
				 "only; use --method=soft",
				 strcmp(c.vendor, "AuthenticAMD") == 0 ? "AMD (AuthenticAMD)"
								       : c.vendor);
		else if (c.hypervisor)
			snprintf(why, n,
				 "no Intel PT: this is a virtual machine (hypervisor bit set) and "
				 "its hypervisor does not pass PT through; run on bare metal");
		else if (!c.pt)
			snprintf(why, n,
				 "no Intel PT: this cpu (family %u model 0x%x) does not have it "
				 "(CPUID.7 EBX bit 25 clear); use --method=bts or --method=soft",
				 c.family, c.model);
		else if (!c.pt_topa)
			snprintf(why, n,
				 "no Intel PT: this cpu's PT cannot write to ToPA buffers, which "
				 "Linux needs (CPUID.0x14 ECX bit 0 clear)");
		else
			snprintf(why, n,
				 "no Intel PT PMU in /sys/bus/event_source/devices/intel_pt although "
				 "the cpu has PT: use a kernel built with CONFIG_PERF_EVENTS_INTEL_PT "
				 "(Linux 4.1 or later)");
		return -ptde_unsupported;
	}
	rc = ptd_perf_pmu_read(k, "intel_pt", &pmu);
	if (rc < 0) {
		snprintf(why, n, "cannot read the intel_pt PMU: %s", ptd_last_error(rc));
		return rc;
	}
	return ptd__perf_check_paranoid(k, 0, why, n);
}

/*
 * gdb refuses BTS on the cpus with the erratum that makes branch records
 * give wrong "from" addresses after power-state changes (Intel's AAJ122
 * and its relatives in Nehalem, Westmere, Sandy Bridge and Ivy Bridge
 * client parts): a history built from them would be silently wrong.
 */
static int bts_erratum(const struct ptd__cpuinfo *c)
{
	static const unsigned char models[] = {
		0x1a, 0x1e, 0x1f, 0x2e, /* Nehalem */
		0x25, 0x2c, 0x2f,       /* Westmere */
		0x2a, 0x2d,             /* Sandy Bridge */
		0x3a,                   /* Ivy Bridge */
	};

	if (c->family != 6)
		return 0;
	for (size_t i = 0; i < sizeof(models); i++)
		if (c->model == models[i])
			return 1;
	return 0;
}

int ptd_btsrec_probe(struct ptd_perf_kernel *k, char *why, size_t n)
{
	struct ptd__cpuinfo c;
	char dummy[8];
	int have_bts_pmu;

	if (!why || !n)
		return -ptde_invalid;
	why[0] = 0;
	if (!k) {
		snprintf(why, n, "no perf kernel layer");
		return -ptde_invalid;
	}
	ptd__perf_cpu(k, &c);
	if (!ptd__cpu_is_intel(&c)) {
		snprintf(why, n,
			 "no BTS: this cpu is %s, and branch trace store exists on Intel cpus "
			 "only; use --method=soft",
			 strcmp(c.vendor, "AuthenticAMD") == 0 ? "AMD (AuthenticAMD)" : c.vendor);
		return -ptde_unsupported;
	}
	if (bts_erratum(&c)) {
		snprintf(why, n,
			 "no BTS: this cpu (family 6 model 0x%x) has the erratum (AAJ122) that "
			 "corrupts branch records after power-state changes, so gdb refuses it "
			 "too; use --method=pt if the cpu has it, else --method=soft",
			 c.model);
		return -ptde_unsupported;
	}
	have_bts_pmu = k->ops->read_sysfs(k, "intel_bts/type", dummy, sizeof(dummy)) >= 0;
	if (!have_bts_pmu && c.hypervisor) {
		snprintf(why, n,
			 "no BTS: this is a virtual machine (hypervisor bit set) and hypervisors "
			 "do not virtualize branch trace store; run on bare metal");
		return -ptde_unsupported;
	}
	if (!have_bts_pmu && !c.ds) {
		snprintf(why, n,
			 "no BTS: this cpu has no debug store (CPUID.1 EDX bit 21 clear); use "
			 "--method=soft");
		return -ptde_unsupported;
	}
	if (!have_bts_pmu && k->ops->read_sysfs(k, "cpu/type", dummy, sizeof(dummy)) < 0) {
		snprintf(why, n,
			 "no BTS: the kernel shows no cpu PMU (/sys/bus/event_source/devices/cpu); "
			 "use a kernel with CONFIG_CPU_SUP_INTEL and perf events");
		return -ptde_unsupported;
	}
	return ptd__perf_check_paranoid(k, 0, why, n);
}

/* ---- perf errors, for both recorders --------------------------------------------------------------------------------- */

int ptd__perf_errmsg(struct ptd_perf_kernel *k, int err, const char *what, pid_t tid,
		     const char *pmu)
{
	const char *sim = k->simulated ? " (simulated)" : "";

	switch (err) {
	case ENOENT:
		return ptd__err(-ptde_unsupported,
				"cannot %s for thread %d: no such PMU or event%s (%s is not "
				"supported by this kernel or cpu); see `ptdbg doctor`",
				what, (int)tid, sim, pmu);
	case EACCES:
	case EPERM: {
		int p = ptd__perf_paranoid(k);
		if (p >= 2)
			return ptd__err(-ptde_perm,
					"cannot %s for thread %d: permission denied%s "
					"(perf_event_paranoid is %d): run sysctl "
					"kernel.perf_event_paranoid=1, or give ptdbg CAP_PERFMON",
					what, (int)tid, sim, p);
		return ptd__err(-ptde_perm,
				"cannot %s for thread %d: permission denied%s: give ptdbg "
				"CAP_PERFMON, or check the locked-memory limit "
				"(kernel.perf_event_mlock_kb)",
				what, (int)tid, sim);
	}
	case EINVAL:
		return ptd__err(-ptde_unsupported,
				"cannot %s for thread %d: invalid argument%s (the %s PMU refuses "
				"this configuration: an option its caps do not allow, or a bad "
				"buffer size)",
				what, (int)tid, sim, pmu);
	case EOPNOTSUPP:
		return ptd__err(-ptde_unsupported,
				"cannot %s for thread %d: operation not supported%s (the %s PMU "
				"cannot do it here: in a virtual machine, or the feature is missing "
				"on this cpu)",
				what, (int)tid, sim, pmu);
	case ENOMEM:
		return ptd__err(-ptde_nomem,
				"cannot %s for thread %d: out of memory%s; use a smaller buffer",
				what, (int)tid, sim);
	case ESRCH:
		return ptd__err(-ptde_nosrch, "cannot %s for thread %d: no such thread%s", what,
				(int)tid, sim);
	case EBUSY:
		return ptd__err(-ptde_busy,
				"cannot %s for thread %d: device busy%s (another tool, perf or a "
				"debugger, uses %s on this cpu); stop it and try again",
				what, (int)tid, sim, pmu);
	default:
		return ptd__err(-ptde_sys, "cannot %s for thread %d: %s%s", what, (int)tid,
				strerror(err), sim);
	}
}

uint64_t ptd__exit_syscall(struct ptd_target *t, const struct ptd_stop *st)
{
	struct user_regs_struct regs;
	uint8_t b[2];

	if (!st || st->kind != PTD_STOP_EXITING || ptd_target_get_regs(t, st->tid, &regs) < 0)
		return 0;
	/* In a syscall, orig_rax is its number; -1 when the thread entered
	 * the kernel otherwise (an interrupt, a fault) and was killed there. */
	if ((int64_t)regs.orig_rax < 0 || regs.rip < 2 ||
	    ptd_target_read(t, regs.rip - 2, b, 2) != 2)
		return 0;
	/* syscall, sysenter, int $0x80 */
	if ((b[0] == 0x0f && (b[1] == 0x05 || b[1] == 0x34)) || (b[0] == 0xcd && b[1] == 0x80))
		return regs.rip - 2;
	return 0;
}
