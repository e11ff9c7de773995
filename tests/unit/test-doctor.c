/*
 * Unit tests for `ptdbg doctor` (src/record/doctor.c) on kernels described
 * by tables: a fake implementation of the perf layer's kernel ops whose
 * cpuid, sysfs and /proc/sys answers are given per test (a bare-metal
 * Skylake with Intel PT, an AMD virtual machine, an Intel virtual machine
 * without PT, garbage files), so the parsing (display family/model,
 * CPUID leaf 0x14, PMU type/caps/format, perf_event_paranoid, Yama) and
 * the conclusions (fixes, attach, auto's choice) are checked exactly.
 * The simulated kernel (PTDBG_SIMULATE_PMU) must be reported as such.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <intel-pt.h>

#include "ptdbg/ptdbg.h"
#include "record/doctor.h"
#include "record/perf.h"

struct file {
	const char *rel, *text;
};
struct leaf {
	unsigned leaf, sub, r[4];
};
struct fake {
	const struct file *sysfs, *procsys;
	const struct leaf *cpuid;
	int open_err; /* what perf_event_open returns (-errno) */
};

static long read_table(const struct file *t, const char *rel, char *buf, size_t n)
{
	for (; t && t->rel; t++)
		if (!strcmp(t->rel, rel)) {
			snprintf(buf, n, "%s", t->text);
			return (long)strlen(buf);
		}
	return -ENOENT;
}

static long fk_read_sysfs(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n)
{
	return read_table(((struct fake *)k->priv)->sysfs, rel, buf, n);
}

static long fk_read_procsys(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n)
{
	return read_table(((struct fake *)k->priv)->procsys, rel, buf, n);
}

static int fk_open(struct ptd_perf_kernel *k, struct perf_event_attr *attr, pid_t pid, int cpu,
		   int group_fd, unsigned long flags)
{
	return ((struct fake *)k->priv)->open_err;
}

static int fk_close(struct ptd_perf_kernel *k, int fd)
{
	return 0;
}

static void *fk_mmap(struct ptd_perf_kernel *k, int fd, size_t len, int prot, off_t offset,
		     int *err)
{
	*err = -ENODEV;
	return NULL;
}

static int fk_munmap(struct ptd_perf_kernel *k, void *addr, size_t len)
{
	return -EINVAL;
}

static int fk_ioctl(struct ptd_perf_kernel *k, int fd, unsigned long req, unsigned long arg)
{
	return -EBADF;
}

static int fk_fcntl(struct ptd_perf_kernel *k, int fd, int cmd, long arg)
{
	return -EBADF;
}

static void fk_cpuid(struct ptd_perf_kernel *k, unsigned leaf, unsigned sub, unsigned r[4])
{
	const struct leaf *l = ((struct fake *)k->priv)->cpuid;

	memset(r, 0, 4 * sizeof(r[0]));
	for (; l && (l->leaf || l->r[0] || l->r[1]); l++)
		if (l->leaf == leaf && l->sub == sub) {
			memcpy(r, l->r, 4 * sizeof(r[0]));
			return;
		}
}

static int fk_resume(struct ptd_perf_kernel *k, pid_t tid, int step, int signo)
{
	return -ESRCH;
}

static int fk_on_stop(struct ptd_perf_kernel *k, const struct ptd_stop *st)
{
	return 0;
}

static void fk_free(struct ptd_perf_kernel *k)
{
}

static const struct ptd_perf_kernel_ops fake_ops = {
	.read_sysfs = fk_read_sysfs,
	.read_procsys = fk_read_procsys,
	.open = fk_open,
	.close = fk_close,
	.mmap = fk_mmap,
	.munmap = fk_munmap,
	.ioctl = fk_ioctl,
	.fcntl = fk_fcntl,
	.cpuid = fk_cpuid,
	.resume = fk_resume,
	.on_stop = fk_on_stop,
	.free = fk_free,
};

static void fake_init(struct ptd_perf_kernel *k, struct fake *f)
{
	memset(k, 0, sizeof(*k));
	k->ops = &fake_ops;
	k->name = "fake";
	k->priv = f;
}

/* The report's lines, joined with newlines. */
struct text {
	char buf[16384];
	size_t len;
};

static void collect(void *ctx, const char *line)
{
	struct text *t = ctx;
	int n = snprintf(t->buf + t->len, sizeof(t->buf) - t->len, "%s\n", line);

	assert_true(n > 0 && (size_t)n < sizeof(t->buf) - t->len);
	t->len += (size_t)n;
}

static void report(const struct ptd_doctor *d, struct text *t)
{
	memset(t, 0, sizeof(*t));
	ptd_doctor_print(d, collect, t);
}

#define assert_has(text, needle)                                                                   \
	do {                                                                                       \
		if (!strstr((text), (needle)))                                                     \
			fail_msg("missing \"%s\" in:\n%s", (needle), (text));                       \
	} while (0)

/* "GenuineIntel" as cpuid leaf 0 gives it: EBX "Genu", EDX "ineI", ECX "ntel". */
#define INTEL 0x756e6547u, 0x6c65746eu, 0x49656e69u
#define AMD 0x68747541u, 0x444d4163u, 0x69746e65u

/* A bare-metal Skylake client with Intel PT (values from its cpuid). */
static const struct leaf skylake[] = {
	{ 0, 0, { 0x16, INTEL } },
	/* family 6, model 0x5e (extended model 5, model 0xe), stepping 3; DS, DTES64 */
	{ 1, 0, { 0x000506e3, 0, (1u << 2), (1u << 21) } },
	{ 7, 0, { 0, (1u << 25), 0, 0 } },
	{ 0x14, 0, { 1, 0x0f, 0x07, 0 } },
	{ 0x14, 1, { 0x02490002, 0x003f3fff, 0, 0 } },
	{ 0, 0, { 0 } },
};
static const struct file skylake_sysfs[] = {
	{ "intel_pt/type", "8" },
	{ "intel_pt/format/pt", "config:0" },
	{ "intel_pt/format/tsc", "config:10" },
	{ "intel_pt/format/noretcomp", "config:11" },
	{ "intel_pt/format/psb_period", "config:24-27" },
	{ "intel_pt/caps/num_address_ranges", "2" },
	{ "intel_pt/caps/psb_cyc", "1" },
	{ "intel_pt/caps/ip_filtering", "1" },
	{ NULL, NULL },
};
static const struct file paranoid2[] = {
	{ "kernel/perf_event_paranoid", "2" },
	{ "kernel/yama/ptrace_scope", "1" },
	{ NULL, NULL },
};

static void test_intel_bare_metal(void **state)
{
	struct fake f = { skylake_sysfs, paranoid2, skylake, -EACCES };
	struct ptd_perf_kernel k;
	struct ptd_doctor *d = calloc(1, sizeof(*d));
	struct text *t = calloc(1, sizeof(*t));

	assert_non_null(d);
	assert_non_null(t);
	fake_init(&k, &f);
	assert_int_equal(ptd_doctor_run(&k, d), 0);
	assert_string_equal(d->vendor, "GenuineIntel");
	assert_int_equal(d->family, 6);
	assert_int_equal(d->model, 0x5e);
	assert_int_equal(d->stepping, 3);
	assert_int_equal(d->hypervisor, 0);
	assert_int_equal(d->cpuid_pt, 1);
	assert_int_equal(d->cpuid_ds, 1);
	assert_int_equal(d->cpuid_dtes64, 1);
	assert_int_equal(d->have_leaf14, 1);
	assert_int_equal(d->leaf14[1][0], 0x02490002);
	assert_int_equal(d->pt_pmu, 1);
	assert_int_equal(d->pt.type, 8);
	assert_int_equal(ptd_perf_pmu_cap(&d->pt, "num_address_ranges", 0), 2);
	assert_int_equal(d->bts_pmu, 0);
	assert_int_equal(d->paranoid_known, 1);
	assert_int_equal(d->paranoid, 2);
	assert_int_equal(d->scope_known, 1);
	assert_int_equal(d->ptrace_scope, 1);
	assert_int_equal(d->simulated, 0);
	report(d, t);
	assert_has(t->buf, "PMU: the running kernel's (not simulated)");
	assert_has(t->buf, "cpu:                  GenuineIntel family 6 model 94 (0x5e) stepping 3\n");
	assert_has(t->buf, "libipt errata:        this cpu is known to libipt ");
	assert_has(t->buf, "hypervisor:           no\n");
	assert_has(t->buf, "cpuid Intel PT:       yes");
	assert_has(t->buf, "features: cr3-filter psb-cyc ip-filter mtc topa topa-multi single-range\n");
	assert_has(t->buf, "2 address ranges, mtc periods 0x0249, cyc thresholds 0x3fff, psb periods "
			   "0x003f\n");
	assert_has(t->buf, "pmu intel_pt:         type 8\n");
	assert_has(t->buf, "num_address_ranges=2");
	assert_has(t->buf, "psb_period=config:24-27");
	assert_has(t->buf, "pt=config:0");
	assert_has(t->buf, "pmu intel_bts:        absent\n");
	assert_has(t->buf, "perf_event_paranoid:  2: own threads in user mode only");
	assert_has(t->buf, "ptrace_scope:         1 (Yama)\n");
	/* the ladder's four lines, in order */
	assert_true(strstr(t->buf, "\n  pt    ") < strstr(t->buf, "\n  bts   "));
	assert_true(strstr(t->buf, "\n  bts   ") < strstr(t->buf, "\n  soft  "));
	assert_true(strstr(t->buf, "\n  soft  ") < strstr(t->buf, "\n  step  "));
	/* paranoid 2 lets anyone trace their own threads in user mode */
	assert_int_equal(d->m[PTD_DOCTOR_PT].usable, 1);
	assert_int_equal(d->auto_choice, PTD_DOCTOR_PT);
	assert_has(t->buf, "  pt    usable: Intel PT through perf (the intel_pt PMU, type 8)\n");
	assert_has(t->buf, "--method=auto chooses pt\n");
	free(d);
	free(t);
}

/* An AMD virtual machine, as the VMs ptdbg is tested on. */
static const struct leaf amd_vm[] = {
	{ 0, 0, { 0x10, AMD } },
	/* family 0xf + 0xa = 25, model 0x11, stepping 1; hypervisor bit */
	{ 1, 0, { 0x00a10f11, 0, (1u << 31), 0 } },
	{ 7, 0, { 0, 0, 0, 0 } },
	/* "KVMKVMKVM\0\0\0" */
	{ 0x40000000, 0, { 0x40000001, 0x4b4d564b, 0x564b4d56, 0x0000004d } },
	{ 0, 0, { 0 } },
};

static void test_amd_vm(void **state)
{
	struct fake f = { NULL, paranoid2, amd_vm, -ENOENT };
	struct ptd_perf_kernel k;
	struct ptd_doctor *d = calloc(1, sizeof(*d));
	struct text *t = calloc(1, sizeof(*t));

	assert_non_null(d);
	assert_non_null(t);
	fake_init(&k, &f);
	assert_int_equal(ptd_doctor_run(&k, d), 0);
	assert_string_equal(d->vendor, "AuthenticAMD");
	assert_int_equal(d->family, 25);
	assert_int_equal(d->model, 0x11);
	assert_int_equal(d->stepping, 1);
	assert_int_equal(d->hypervisor, 1);
	assert_string_equal(d->hv_vendor, "KVMKVMKVM");
	assert_int_equal(d->cpuid_pt, 0);
	assert_int_equal(d->have_leaf14, 0);
	assert_int_equal(d->pt_pmu, 0);
	assert_int_equal(d->bts_pmu, 0);
	/* no PT and no BTS on AMD: refused, and nothing to fix */
	assert_int_equal(d->m[PTD_DOCTOR_PT].usable, 0);
	assert_int_equal(d->m[PTD_DOCTOR_BTS].usable, 0);
	assert_true(d->m[PTD_DOCTOR_PT].why[0] != '\0');
	assert_true(d->m[PTD_DOCTOR_BTS].why[0] != '\0');
	assert_string_equal(d->m[PTD_DOCTOR_PT].fix, "");
	assert_string_equal(d->m[PTD_DOCTOR_BTS].fix, "");
	/* this test process can trace a child: soft is auto's choice */
	assert_int_equal(d->trace_tried, 1);
	assert_int_equal(d->trace_ok, 1);
	assert_int_equal(d->m[PTD_DOCTOR_SOFT].usable, 1);
	assert_int_equal(d->m[PTD_DOCTOR_STEP].usable, 1);
	assert_int_equal(d->auto_choice, PTD_DOCTOR_SOFT);
	report(d, t);
	assert_has(t->buf, "cpu:                  AuthenticAMD family 25 model 17 (0x11) stepping 1\n");
	assert_has(t->buf, "hypervisor:           yes (KVMKVMKVM) (a virtual machine)\n");
	assert_has(t->buf, "cpuid Intel PT:       no");
	assert_has(t->buf, "  pt    refused: ");
	assert_has(t->buf, "  bts   refused: ");
	assert_has(t->buf, "  soft  usable: ");
	assert_has(t->buf, "--method=auto chooses soft\n");
	assert_null(strstr(t->buf, "fix:"));
	free(d);
	free(t);
}

/* An Intel virtual machine without PT: the fix is bare metal.  Its cpu
 * (family 6 model 0xcf stepping 2) is newer than libipt 2.0.5's tables. */
static const struct leaf intel_vm[] = {
	{ 0, 0, { 0x16, INTEL } },
	{ 1, 0, { 0x000c06f2, 0, (1u << 31), 0 } },
	{ 7, 0, { 0, 0, 0, 0 } },
	{ 0, 0, { 0 } },
};

static void test_intel_vm_fixes(void **state)
{
	struct fake f = { NULL, paranoid2, intel_vm, -ENOENT };
	struct ptd_perf_kernel k;
	struct ptd_doctor *d = calloc(1, sizeof(*d));
	struct text *t = calloc(1, sizeof(*t));

	assert_non_null(d);
	assert_non_null(t);
	fake_init(&k, &f);
	assert_int_equal(ptd_doctor_run(&k, d), 0);
	assert_int_equal(d->hypervisor, 1);
	assert_string_equal(d->hv_vendor, "");
	assert_int_equal(d->m[PTD_DOCTOR_PT].usable, 0);
	assert_int_equal(d->m[PTD_DOCTOR_BTS].usable, 0);
	/* the doctor's fix adds what the probe did not say (KVM's pass-through) */
	assert_non_null(strstr(d->m[PTD_DOCTOR_PT].fix, "run on bare metal"));
	assert_non_null(strstr(d->m[PTD_DOCTOR_PT].fix, "pt_mode=1"));
	/* the bts probe says "bare metal" itself: no second fix line for it */
	assert_non_null(strstr(d->m[PTD_DOCTOR_BTS].why, "bare metal"));
	assert_string_equal(d->m[PTD_DOCTOR_BTS].fix, "");
	report(d, t);
	assert_has(t->buf, "hypervisor:           yes (a virtual machine)\n");
	assert_has(t->buf, "cpu:                  GenuineIntel family 6 model 207 (0xcf) stepping 2\n");
	{ /* (as the libipt linked here says) */
		struct pt_errata e;
		struct pt_cpu pc = { pcv_intel, 6, 0xcf, 2 };

		assert_has(t->buf, pt_cpu_errata(&e, &pc) == 0
					   ? "libipt errata:        this cpu is known to libipt "
					   : "libipt errata:        this cpu is not known to libipt ");
	}
	assert_has(t->buf, "        fix: run on bare metal, or in a virtual machine given the host's "
			   "Intel PT (KVM: kvm_intel pt_mode=1 and -cpu host)\n");
	free(d);
	free(t);
}

/* perf_event_paranoid 3 without CAP_PERFMON: the sysctl is the fix. */
static const struct file paranoid3[] = {
	{ "kernel/perf_event_paranoid", "3" },
	{ NULL, NULL },
};

static void test_paranoid_fix(void **state)
{
	struct fake f = { skylake_sysfs, paranoid3, skylake, -EACCES };
	struct ptd_perf_kernel k;
	struct ptd_doctor *d = calloc(1, sizeof(*d));
	struct text *t = calloc(1, sizeof(*t));

	assert_non_null(d);
	assert_non_null(t);
	fake_init(&k, &f);
	assert_int_equal(ptd_doctor_run(&k, d), 0);
	assert_int_equal(d->paranoid, 3);
	assert_int_equal(d->scope_known, 0);
	/* as an unprivileged user whom the probes refused */
	d->cap_perfmon = d->cap_sys_admin = d->cap_sys_ptrace = 0;
	d->m[PTD_DOCTOR_PT].usable = d->m[PTD_DOCTOR_BTS].usable = 0;
	ptd_doctor_conclude(d);
	assert_non_null(strstr(d->m[PTD_DOCTOR_PT].fix, "sysctl kernel.perf_event_paranoid=2"));
	assert_non_null(strstr(d->m[PTD_DOCTOR_PT].fix, "CAP_PERFMON"));
	assert_non_null(strstr(d->m[PTD_DOCTOR_BTS].fix, "sysctl kernel.perf_event_paranoid=2"));
	assert_int_equal(d->kernel_trace_ok, 0);
	report(d, t);
	assert_has(t->buf, "perf_event_paranoid:  3: perf_event_open closed to unprivileged users");
	assert_has(t->buf, "ptrace_scope:         none (no Yama)\n");
	assert_has(t->buf, "pt kernel tracing:    not permitted");
	/* a probe that already says which sysctl to run gets no second fix */
	snprintf(d->m[PTD_DOCTOR_PT].why, sizeof(d->m[PTD_DOCTOR_PT].why),
		 "perf_event_paranoid is 3: run sysctl kernel.perf_event_paranoid=1, or give ptdbg "
		 "CAP_PERFMON");
	ptd_doctor_conclude(d);
	assert_string_equal(d->m[PTD_DOCTOR_PT].fix, "");
	d->m[PTD_DOCTOR_PT].why[0] = '\0';
	/* with CAP_PERFMON paranoid does not matter: no such fix */
	d->cap_perfmon = 1;
	ptd_doctor_conclude(d);
	assert_null(strstr(d->m[PTD_DOCTOR_PT].fix, "perf_event_paranoid"));
	assert_int_equal(d->kernel_trace_ok, 1);
	/* Intel PT in cpuid but no intel_pt PMU registered: the kernel is the fix */
	d->cap_perfmon = 0;
	d->pt_pmu = 0;
	ptd_doctor_conclude(d);
	assert_non_null(strstr(d->m[PTD_DOCTOR_PT].fix, "intel_pt PMU"));
	free(d);
	free(t);
}

/* No child can be traced: soft and step are refused, auto has nothing;
 * attach by Yama scope and CAP_SYS_PTRACE. */
static void test_ptrace_conclusions(void **state)
{
	struct ptd_doctor *d = calloc(1, sizeof(*d));
	struct text *t = calloc(1, sizeof(*t));

	assert_non_null(d);
	assert_non_null(t);
	snprintf(d->vendor, sizeof(d->vendor), "AuthenticAMD");
	d->trace_tried = 1;
	d->trace_ok = 0;
	snprintf(d->trace_err, sizeof(d->trace_err), "PTRACE_TRACEME failed: Operation not permitted");
	d->scope_known = 1;
	d->ptrace_scope = 3;
	ptd_doctor_conclude(d);
	assert_int_equal(d->m[PTD_DOCTOR_SOFT].usable, 0);
	assert_int_equal(d->m[PTD_DOCTOR_STEP].usable, 0);
	assert_int_equal(d->auto_choice, -1);
	assert_non_null(strstr(d->m[PTD_DOCTOR_SOFT].why, "Operation not permitted"));
	assert_non_null(strstr(d->m[PTD_DOCTOR_SOFT].fix, "reboot"));
	report(d, t);
	assert_has(t->buf, "--method=auto has nothing to choose: no method can record here\n");
	assert_has(t->buf, "ptrace a child:       PTRACE_TRACEME failed: Operation not permitted\n");

	/* scope 3 from Yama but no other cause: a container's seccomp */
	d->scope_known = 0;
	ptd_doctor_conclude(d);
	assert_non_null(strstr(d->m[PTD_DOCTOR_SOFT].fix, "SYS_PTRACE"));

	/* tracing works: attach by scope */
	d->trace_ok = 1;
	d->scope_known = 1;
	d->ptrace_scope = 0;
	ptd_doctor_conclude(d);
	assert_int_equal(d->auto_choice, PTD_DOCTOR_SOFT);
	assert_string_equal(d->attach, "to processes of the same user (Yama ptrace_scope 0)");
	d->ptrace_scope = 1;
	ptd_doctor_conclude(d);
	assert_non_null(strstr(d->attach, "only to ptdbg's own children (Yama ptrace_scope 1)"));
	assert_non_null(strstr(d->attach, "sysctl kernel.yama.ptrace_scope=0"));
	d->cap_sys_ptrace = 1;
	ptd_doctor_conclude(d);
	assert_string_equal(d->attach, "to any process (CAP_SYS_PTRACE)");
	d->cap_sys_ptrace = 0;
	d->ptrace_scope = 2;
	ptd_doctor_conclude(d);
	assert_non_null(strstr(d->attach, "refused (Yama ptrace_scope 2"));
	d->ptrace_scope = 3;
	ptd_doctor_conclude(d);
	assert_non_null(strstr(d->attach, "refused for everyone (Yama ptrace_scope 3"));
	free(d);
	free(t);
}

/* Files that hold no number, a PMU type that is not one: reported as
 * unknown or unreadable, never a crash or a made-up value. */
static const struct file garbage_procsys[] = {
	{ "kernel/perf_event_paranoid", "two" },
	{ "kernel/yama/ptrace_scope", "1x" },
	{ NULL, NULL },
};
static const struct file garbage_sysfs[] = {
	{ "intel_pt/type", "eight" },
	{ NULL, NULL },
};

static void test_garbage(void **state)
{
	static const struct leaf none[] = { { 0, 0, { 0 } } };
	struct fake f = { garbage_sysfs, garbage_procsys, none, -ENOENT };
	struct ptd_perf_kernel k;
	struct ptd_doctor *d = calloc(1, sizeof(*d));
	struct text *t = calloc(1, sizeof(*t));

	assert_non_null(d);
	assert_non_null(t);
	fake_init(&k, &f);
	assert_int_equal(ptd_doctor_run(&k, d), 0);
	assert_string_equal(d->vendor, "");
	assert_int_equal(d->paranoid_known, 0);
	assert_int_equal(d->scope_known, 0);
	assert_int_equal(d->pt_pmu, -1);
	assert_non_null(strstr(d->pt_pmu_err, "eight"));
	assert_int_equal(d->m[PTD_DOCTOR_PT].usable, 0);
	report(d, t);
	assert_has(t->buf, "cpu:                  unknown (cpuid gave no vendor)\n");
	assert_has(t->buf, "pmu intel_pt:         unreadable\n");
	assert_has(t->buf, "perf_event_paranoid:  unknown");
	free(d);
	free(t);
}

static void test_null_args(void **state)
{
	struct text t;

	assert_int_equal(ptd_doctor_run(NULL, NULL), -ptde_invalid);
	ptd_doctor_conclude(NULL);
	memset(&t, 0, sizeof(t));
	ptd_doctor_print(NULL, collect, &t);
	assert_int_equal(t.len, 0);
	assert_int_equal(ptd_doctor_report(NULL, NULL, NULL), -ptde_invalid);
	assert_string_equal(ptd_doctor_method_name(PTD_DOCTOR_BTS), "bts");
	assert_string_equal(ptd_doctor_method_name(-1), "none");
	assert_string_equal(ptd_doctor_method_name(PTD_DOCTOR_NMETHODS), "none");
}

/* PTDBG_SIMULATE_PMU with a value ptdbg cannot simulate is an error that
 * says so, never ignored. */
static void test_bad_simulation(void **state)
{
	struct text *t = calloc(1, sizeof(*t));
	int choice = 7;

	assert_non_null(t);
	setenv("PTDBG_SIMULATE_PMU", "arm-spe", 1);
	ptd_clear_error();
	assert_int_equal(ptd_doctor_report(collect, t, &choice), -ptde_invalid);
	assert_non_null(strstr(ptd_last_error(-ptde_invalid), "arm-spe"));
	assert_int_equal(choice, -1);
	assert_int_equal(t->len, 0);
	unsetenv("PTDBG_SIMULATE_PMU");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel_bare_metal),
		cmocka_unit_test(test_amd_vm),
		cmocka_unit_test(test_intel_vm_fixes),
		cmocka_unit_test(test_paranoid_fix),
		cmocka_unit_test(test_ptrace_conclusions),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_bad_simulation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
