/*
 * `ptdbg doctor`: gathers what decides which recorder can run here (the
 * CPU, its Intel PT capabilities, the hypervisor bit, the PMUs the kernel
 * registered, perf_event_paranoid, Yama, the process's capabilities,
 * whether a child can be traced at all), asks the pt and bts recorders'
 * own probes, and concludes: each method usable or refused with its cause
 * and, where one exists, the one-line fix; the method --method=auto takes.
 * Machine facts are read through the perf layer's kernel ops so that a
 * simulated kernel answers for itself, and the report says so.
 */
#include "record/doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "decode/image.h"
#include "record/btsrec.h"
#include "record/ptrec.h"
#include "util/error.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

static const char *const method_names[PTD_DOCTOR_NMETHODS] = {
	[PTD_DOCTOR_PT] = "pt",
	[PTD_DOCTOR_BTS] = "bts",
	[PTD_DOCTOR_SOFT] = "soft",
	[PTD_DOCTOR_STEP] = "step",
};

const char *ptd_doctor_method_name(int m)
{
	if (m < 0 || m >= PTD_DOCTOR_NMETHODS)
		return "none";
	return method_names[m];
}

/* ---- gathering ------------------------------------------------------------------------------------ */

static void cpuid(struct ptd_perf_kernel *k, unsigned leaf, unsigned sub, unsigned r[4])
{
	r[0] = r[1] = r[2] = r[3] = 0;
	if (k->ops->cpuid)
		k->ops->cpuid(k, leaf, sub, r);
}

/* Four register bytes, little-endian, as a cpuid signature stores them. */
static void sig_bytes(char *out, unsigned reg)
{
	for (int i = 0; i < 4; i++)
		out[i] = (char)((reg >> (8 * i)) & 0xff);
}

/* Keeps the printable part of a signature (a hypervisor pads with NULs). */
static void sig_clean(char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			s[i] = '?';
	s[i < n ? i : n - 1] = '\0';
}

static void gather_cpu(struct ptd_perf_kernel *k, struct ptd_doctor *d)
{
	unsigned r[4];
	unsigned base_family, base_model;

	cpuid(k, 0, 0, r);
	d->max_leaf = r[0];
	/* the vendor string is EBX, EDX, ECX */
	sig_bytes(d->vendor, r[1]);
	sig_bytes(d->vendor + 4, r[3]);
	sig_bytes(d->vendor + 8, r[2]);
	d->vendor[12] = '\0';
	sig_clean(d->vendor, sizeof(d->vendor));
	if (d->max_leaf < 1)
		return;
	cpuid(k, 1, 0, r);
	d->leaf1_eax = r[0];
	d->hypervisor = !!(r[2] & (1u << 31));
	d->cpuid_dtes64 = !!(r[2] & (1u << 2));
	d->cpuid_ds = !!(r[3] & (1u << 21));
	/* The display family and model (Intel SDM vol. 2A, CPUID leaf 1):
	 * the extended family counts only for family 15, the extended
	 * model for families 6 and 15. */
	base_family = (r[0] >> 8) & 0xf;
	base_model = (r[0] >> 4) & 0xf;
	d->stepping = r[0] & 0xf;
	d->family = base_family == 0xf ? base_family + ((r[0] >> 20) & 0xff) : base_family;
	d->model = base_family == 0x6 || base_family == 0xf
			   ? base_model + (((r[0] >> 16) & 0xf) << 4)
			   : base_model;
	if (d->hypervisor) {
		char sig[13];

		cpuid(k, 0x40000000, 0, r);
		sig_bytes(sig, r[1]);
		sig_bytes(sig + 4, r[2]);
		sig_bytes(sig + 8, r[3]);
		sig[12] = '\0';
		sig_clean(sig, sizeof(sig));
		snprintf(d->hv_vendor, sizeof(d->hv_vendor), "%s", sig);
	}
	if (d->max_leaf >= 7) {
		cpuid(k, 7, 0, r);
		d->cpuid_pt = !!(r[1] & (1u << 25));
	}
	if (d->cpuid_pt && d->max_leaf >= 0x14) {
		d->have_leaf14 = 1;
		cpuid(k, 0x14, 0, d->leaf14[0]);
		/* subleaf 1 exists when subleaf 0 says so in EAX */
		if (d->leaf14[0][0] >= 1)
			cpuid(k, 0x14, 1, d->leaf14[1]);
	}
}

static void gather_pmu(struct ptd_perf_kernel *k, const char *name, int *present,
		       struct ptd_perf_pmu *pmu, char *err, size_t n)
{
	int rc;

	ptd_clear_error();
	rc = ptd_perf_pmu_read(k, name, pmu);
	if (rc == 0) {
		*present = 1;
		err[0] = '\0';
		return;
	}
	*present = rc == -ptde_notfound ? 0 : -1;
	snprintf(err, n, "%s", ptd_last_error(rc));
}

/* Reads a number from /proc/sys through @k.  Returns 1, or 0 when the file
 * is absent or holds no number. */
static int read_procsys_long(struct ptd_perf_kernel *k, const char *rel, long *out)
{
	char buf[64], *end;
	long v;

	if (!k->ops->read_procsys || k->ops->read_procsys(k, rel, buf, sizeof(buf)) < 0)
		return 0;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || errno)
		return 0;
	while (*end == ' ' || *end == '\n' || *end == '\t')
		end++;
	if (*end)
		return 0;
	*out = v;
	return 1;
}

static void gather_caps(struct ptd_doctor *d)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[2];

	d->euid = geteuid();
	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	hdr.pid = 0;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return;
	d->caps_known = 1;
#define HAS_CAP(c) (!!(data[(c) / 32].effective & (1u << ((c) % 32))))
	d->cap_sys_ptrace = HAS_CAP(CAP_SYS_PTRACE);
	d->cap_perfmon = HAS_CAP(CAP_PERFMON);
	d->cap_sys_admin = HAS_CAP(CAP_SYS_ADMIN);
#undef HAS_CAP
}

/*
 * Whether this process can trace a child, the way ptdbg launches
 * programs: a forked child asks PTRACE_TRACEME and stops.  Containers
 * (seccomp) and Yama's scope 3 refuse it; nothing else tells as surely.
 */
static void try_trace_child(struct ptd_doctor *d)
{
	int fds[2], st, err = 0;
	pid_t pid, w;

	d->trace_tried = 1;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(d->trace_err, sizeof(d->trace_err), "cannot make a pipe: %s",
			 strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(d->trace_err, sizeof(d->trace_err), "cannot fork a child to try: %s",
			 strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		/* only async-signal-safe calls here */
		int e = 0;

		close(fds[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) {
			e = errno;
			if (write(fds[1], &e, sizeof(e)) < 0)
				_exit(2);
			_exit(1);
		}
		close(fds[1]);
		raise(SIGSTOP);
		_exit(0);
	}
	close(fds[1]);
	do
		w = waitpid(pid, &st, 0);
	while (w < 0 && errno == EINTR);
	if (w == pid && WIFSTOPPED(st)) {
		d->trace_ok = 1;
		kill(pid, SIGKILL);
		do
			w = waitpid(pid, &st, 0);
		while (w < 0 && errno == EINTR);
	} else if (w == pid) {
		if (read(fds[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
			err = 0;
		snprintf(d->trace_err, sizeof(d->trace_err), "PTRACE_TRACEME failed: %s",
			 err ? strerror(err) : "the child did not stop");
	} else {
		snprintf(d->trace_err, sizeof(d->trace_err), "cannot wait for the child: %s",
			 strerror(errno));
		kill(pid, SIGKILL);
	}
	close(fds[0]);
}

static void probe(struct ptd_perf_kernel *k, int m, int *usable, char *why, size_t n)
{
	int rc;

	why[0] = '\0';
	ptd_clear_error();
	rc = m == PTD_DOCTOR_PT ? ptd_ptrec_probe(k, why, n) : ptd_btsrec_probe(k, why, n);
	*usable = rc == 0;
	if (rc < 0 && !why[0])
		snprintf(why, n, "%s", ptd_last_error(rc));
}

int ptd_doctor_run(struct ptd_perf_kernel *k, struct ptd_doctor *d)
{
	struct ptd_perf_kernel *own = NULL;
	const char *env;

	if (!d)
		return ptd__err(-ptde_invalid, "doctor: NULL argument");
	memset(d, 0, sizeof(*d));
	if (!k) {
		own = ptd_perf_kernel_linux();
		if (!own)
			return ptd__err(-ptde_nomem, "doctor: cannot open the kernel's perf layer");
		k = own;
	}
	snprintf(d->kernel, sizeof(d->kernel), "%s", k->name ? k->name : "?");
	d->simulated = k->simulated;
	env = getenv("PTDBG_SIMULATE_PMU");
	snprintf(d->simulate_env, sizeof(d->simulate_env), "%s", env ? env : "");

	gather_cpu(k, d);
	gather_pmu(k, "intel_pt", &d->pt_pmu, &d->pt, d->pt_pmu_err, sizeof(d->pt_pmu_err));
	gather_pmu(k, "intel_bts", &d->bts_pmu, &d->bts, d->bts_pmu_err, sizeof(d->bts_pmu_err));
	d->paranoid_known = read_procsys_long(k, "kernel/perf_event_paranoid", &d->paranoid);
	/* ptrace is the machine's own even under a simulated PMU: soft and
	 * step run for real, so Yama is read from the running kernel then. */
	if (k->simulated) {
		struct ptd_perf_kernel *real = ptd_perf_kernel_linux();

		if (real) {
			d->scope_known = read_procsys_long(real, "kernel/yama/ptrace_scope",
							   &d->ptrace_scope);
			ptd_perf_kernel_free(real);
		}
	} else {
		d->scope_known = read_procsys_long(k, "kernel/yama/ptrace_scope", &d->ptrace_scope);
	}
	gather_caps(d);
	try_trace_child(d);

	for (int m = 0; m < PTD_DOCTOR_NMETHODS; m++)
		d->m[m].name = method_names[m];
	probe(k, PTD_DOCTOR_PT, &d->m[PTD_DOCTOR_PT].usable, d->m[PTD_DOCTOR_PT].why,
	      sizeof(d->m[PTD_DOCTOR_PT].why));
	probe(k, PTD_DOCTOR_BTS, &d->m[PTD_DOCTOR_BTS].usable, d->m[PTD_DOCTOR_BTS].why,
	      sizeof(d->m[PTD_DOCTOR_BTS].why));

	if (d->m[PTD_DOCTOR_PT].usable && !d->m[PTD_DOCTOR_PT].why[0])
		snprintf(d->m[PTD_DOCTOR_PT].why, sizeof(d->m[PTD_DOCTOR_PT].why),
			 "Intel PT through perf (the intel_pt PMU, type %u)%s", d->pt.type,
			 d->simulated ? ", simulated" : "");
	if (d->m[PTD_DOCTOR_BTS].usable && !d->m[PTD_DOCTOR_BTS].why[0])
		snprintf(d->m[PTD_DOCTOR_BTS].why, sizeof(d->m[PTD_DOCTOR_BTS].why),
			 "branch trace store through perf (%s)%s",
			 d->bts_pmu > 0 ? "the intel_bts PMU" : "branch samples of the cpu PMU",
			 d->simulated ? ", simulated" : "");

	/* A simulation must never hide what the machine itself refuses. */
	if (d->simulated) {
		struct ptd_perf_kernel *real = ptd_perf_kernel_linux();

		if (real) {
			d->real_checked = 1;
			probe(real, PTD_DOCTOR_PT, &d->real_usable[0], d->real_why[0],
			      sizeof(d->real_why[0]));
			probe(real, PTD_DOCTOR_BTS, &d->real_usable[1], d->real_why[1],
			      sizeof(d->real_why[1]));
			ptd_perf_kernel_free(real);
		}
	}
	ptd_perf_kernel_free(own);
	ptd_clear_error();
	ptd_doctor_conclude(d);
	return 0;
}

/* ---- conclusions ---------------------------------------------------------------------------------- */

static int is_intel(const struct ptd_doctor *d)
{
	return !strcmp(d->vendor, "GenuineIntel");
}

/* perf_event_open is closed to this process by perf_event_paranoid. */
static int perf_closed(const struct ptd_doctor *d)
{
	return d->paranoid_known && d->paranoid > 2 && !d->cap_perfmon && !d->cap_sys_admin;
}

/* 2 is enough for user-mode tracing of one's own threads. */
static const char paranoid_fix[] =
	"as root: sysctl kernel.perf_event_paranoid=2 (or give ptdbg CAP_PERFMON: "
	"setcap cap_perfmon+ep ptdbg)";

/*
 * The fixes below are the doctor's own, from the facts it read; the
 * probes' refusals often carry a fix already.  @key is the phrase that
 * shows the probe said the same, so a report never gives one fix twice.
 */
static void set_fix(char *fix, size_t n, const char *why, const char *key, const char *text)
{
	if (key && strstr(why, key))
		fix[0] = '\0';
	else
		snprintf(fix, n, "%s", text);
}

static void pt_fix(const struct ptd_doctor *d, const char *why, char *fix, size_t n)
{
	fix[0] = '\0';
	if (d->simulated)
		return; /* the simulated PMU refuses only what the caller asked for */
	if (d->vendor[0] && !is_intel(d))
		return; /* Intel PT exists only on Intel CPUs: nothing to fix */
	if (!d->cpuid_pt) {
		if (d->hypervisor)
			set_fix(fix, n, why, "pt_mode",
				"run on bare metal, or in a virtual machine given the host's Intel "
				"PT (KVM: kvm_intel pt_mode=1 and -cpu host)");
		return; /* a CPU older than Broadwell has no Intel PT */
	}
	if (d->pt_pmu == 0) {
		set_fix(fix, n, why, "dmesg",
			"boot a kernel (4.1 or later) that registers the intel_pt PMU; dmesg | "
			"grep -i intel_pt says why this one did not");
		return;
	}
	if (perf_closed(d))
		set_fix(fix, n, why, "perf_event_paranoid=", paranoid_fix);
}

static void bts_fix(const struct ptd_doctor *d, const char *why, char *fix, size_t n)
{
	fix[0] = '\0';
	if (d->simulated)
		return;
	if (d->vendor[0] && !is_intel(d))
		return; /* BTS exists only on Intel CPUs */
	if (d->hypervisor) {
		set_fix(fix, n, why, "bare metal",
			"run on bare metal (hypervisors do not give guests BTS)");
		return;
	}
	if (perf_closed(d))
		set_fix(fix, n, why, "perf_event_paranoid=", paranoid_fix);
}

/* The fix when no child can be traced, by the likely cause. */
static void trace_fix(const struct ptd_doctor *d, char *fix, size_t n)
{
	if (d->scope_known && d->ptrace_scope >= 3)
		snprintf(fix, n, "kernel.yama.ptrace_scope is 3 and only a reboot lowers it: set it "
				 "to 1 in /etc/sysctl.d and reboot");
	else if (!d->cap_sys_ptrace)
		snprintf(fix, n, "in a container, allow ptrace: docker run --cap-add=SYS_PTRACE "
				 "--security-opt seccomp=unconfined");
	else
		fix[0] = '\0';
}

static void conclude_attach(struct ptd_doctor *d)
{
	const char *who;

	if (!d->trace_ok && d->trace_tried) {
		snprintf(d->attach, sizeof(d->attach), "refused: no process can be traced here");
		return;
	}
	who = d->cap_sys_ptrace ? "to any process (CAP_SYS_PTRACE)" : NULL;
	if (!d->scope_known) {
		snprintf(d->attach, sizeof(d->attach), "%s (no Yama ptrace_scope)",
			 who ? who : "to processes of the same user");
		return;
	}
	switch (d->ptrace_scope) {
	case 0:
		snprintf(d->attach, sizeof(d->attach), "%s (Yama ptrace_scope 0)",
			 who ? who : "to processes of the same user");
		break;
	case 1:
		if (who)
			snprintf(d->attach, sizeof(d->attach), "%s", who);
		else
			snprintf(d->attach, sizeof(d->attach),
				 "only to ptdbg's own children (Yama ptrace_scope 1); for -p PID: "
				 "sysctl kernel.yama.ptrace_scope=0, or run ptdbg as root");
		break;
	case 2:
		if (who)
			snprintf(d->attach, sizeof(d->attach), "%s", who);
		else
			snprintf(d->attach, sizeof(d->attach),
				 "refused (Yama ptrace_scope 2: CAP_SYS_PTRACE only); for -p PID: run "
				 "ptdbg as root");
		break;
	default:
		snprintf(d->attach, sizeof(d->attach),
			 "refused for everyone (Yama ptrace_scope %ld; only a reboot lowers it)",
			 d->ptrace_scope);
		break;
	}
}

void ptd_doctor_conclude(struct ptd_doctor *d)
{
	struct ptd_doctor_verdict *v;
	int traceable;

	if (!d)
		return;
	for (int m = 0; m < PTD_DOCTOR_NMETHODS; m++)
		d->m[m].name = method_names[m];
	v = &d->m[PTD_DOCTOR_PT];
	if (v->usable)
		v->fix[0] = '\0';
	else
		pt_fix(d, v->why, v->fix, sizeof(v->fix));
	v = &d->m[PTD_DOCTOR_BTS];
	if (v->usable)
		v->fix[0] = '\0';
	else
		bts_fix(d, v->why, v->fix, sizeof(v->fix));

	/* soft and step need ptrace and nothing else */
	traceable = !d->trace_tried || d->trace_ok;
	for (int m = PTD_DOCTOR_SOFT; m <= PTD_DOCTOR_STEP; m++) {
		v = &d->m[m];
		v->usable = traceable;
		if (traceable) {
			snprintf(v->why, sizeof(v->why), "%s",
				 m == PTD_DOCTOR_SOFT
					 ? "needs only ptrace: int3 on branches, one stop per branch"
					 : "needs only ptrace: one stop per instruction (slow, exact)");
			v->fix[0] = '\0';
		} else {
			snprintf(v->why, sizeof(v->why), "cannot trace a child: %s", d->trace_err);
			trace_fix(d, v->fix, sizeof(v->fix));
		}
	}
	d->auto_choice = -1;
	for (int m = 0; m < PTD_DOCTOR_NMETHODS; m++)
		if (d->m[m].usable) {
			d->auto_choice = m;
			break;
		}
	d->kernel_trace_ok = (d->paranoid_known && d->paranoid <= 1) || d->cap_perfmon ||
			     d->cap_sys_admin;
	conclude_attach(d);
}

/* ---- the report ----------------------------------------------------------------------------------- */

struct out {
	void (*line)(void *ctx, const char *text);
	void *ctx;
};

static void say(const struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct out *o, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	o->line(o->ctx, buf);
}

static const char *yesno(int v)
{
	return v ? "yes" : "no";
}

static const char *paranoid_meaning(long v)
{
	if (v <= 0)
		return "no restriction on tracing";
	if (v == 1)
		return "own threads, user and kernel mode";
	if (v == 2)
		return "own threads in user mode only (kernel mode needs CAP_PERFMON)";
	return "perf_event_open closed to unprivileged users (a Debian/Ubuntu setting)";
}

/* Flags of CPUID leaf 0x14 subleaf 0 that matter to a tracer. */
static void print_leaf14(const struct ptd_doctor *d, const struct out *o)
{
	const unsigned *s0 = d->leaf14[0], *s1 = d->leaf14[1];
	static const char *const ebx_names[] = {
		"cr3-filter", "psb-cyc", "ip-filter", "mtc", "ptwrite", "power-event",
		"psb-pmi-preserve", "event-trace", "tnt-disable",
	};
	static const char *const ecx_names[] = {
		"topa", "topa-multi", "single-range", "output-subsys",
	};
	char buf[400];
	size_t len = 0;

	for (unsigned i = 0; i < sizeof(ebx_names) / sizeof(ebx_names[0]); i++)
		if (s0[1] & (1u << i))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " %s", ebx_names[i]);
	for (unsigned i = 0; i < sizeof(ecx_names) / sizeof(ecx_names[0]) && len < sizeof(buf); i++)
		if (s0[2] & (1u << i))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " %s", ecx_names[i]);
	if (len < sizeof(buf) && (s0[2] & (1u << 31)))
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, " lip");
	if (!len)
		snprintf(buf, sizeof(buf), " (none)");
	say(o, "cpuid 0x14:           max subleaf %u; features:%s", s0[0], buf);
	if (s0[0] >= 1)
		say(o, "cpuid 0x14.1:         %u address ranges, mtc periods 0x%04x, cyc thresholds "
		       "0x%04x, psb periods 0x%04x",
		    s1[0] & 7, s1[0] >> 16, s1[1] & 0xffff, s1[1] >> 16);
}

static void print_pmu(const struct out *o, const char *name, int present,
		      const struct ptd_perf_pmu *pmu, const char *err)
{
	char buf[900];
	size_t len = 0;

	if (present <= 0) {
		say(o, "%-22s%s", name, present == 0 ? "absent" : "unreadable");
		if (err && err[0])
			say(o, "%22s(%s)", "", err);
		return;
	}
	say(o, "%-22stype %u", name, pmu->type);
	for (int i = 0; i < pmu->ncaps && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s=%llu", i ? " " : "",
					pmu->caps[i].name, (unsigned long long)pmu->caps[i].value);
	if (len)
		say(o, "  caps:               %s", buf);
	len = 0;
	for (int i = 0; i < pmu->nfmt && len < sizeof(buf); i++) {
		const struct ptd_perf_format *f = &pmu->fmt[i];
		const char *field = f->field == 0 ? "config" : f->field == 1 ? "config1" : "config2";

		if (f->lo == f->hi)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s=%s:%d",
						i ? " " : "", f->name, field, f->lo);
		else
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s=%s:%d-%d",
						i ? " " : "", f->name, field, f->lo, f->hi);
	}
	if (len)
		say(o, "  format:             %s", buf);
}

/* Whether libipt knows the cpu's errata (an Intel cpu newer than the
 * libipt ptdbg runs with it does not: PT from it is decoded without
 * workarounds, and ptdbg-server leaves it out for gdb, see stub_xfer.c). */
static void print_errata(const struct ptd_doctor *d, struct out *o)
{
	struct pt_version v = pt_library_version();
	struct ptd_cpu c = { (uint16_t)d->family, (uint8_t)d->model, (uint8_t)d->stepping };

	if (strcmp(d->vendor, "GenuineIntel") || !d->family)
		return;
	if (ptd_cpu_errata(&c, NULL) == 0)
		say(o, "libipt errata:        this cpu is known to libipt %u.%u.%u (its PT errata "
		       "workarounds apply)", v.major, v.minor, v.patch);
	else
		say(o, "libipt errata:        this cpu is not known to libipt %u.%u.%u (newer than "
		       "it): PT is decoded without errata workarounds, and gdb through "
		       "ptdbg-server is not told the cpu", v.major, v.minor, v.patch);
}

void ptd_doctor_print(const struct ptd_doctor *d, void (*line)(void *ctx, const char *text),
		      void *ctx)
{
	struct out o = { line, ctx };

	if (!d || !line)
		return;
	if (d->simulated)
		say(&o, "PMU: SIMULATED (PTDBG_SIMULATE_PMU=%s): the CPU, PMUs and perf settings "
			"below are ptdbg's simulated kernel, not this machine's",
		    d->simulate_env[0] ? d->simulate_env : "?");
	else
		say(&o, "PMU: the running kernel's (not simulated)");
	say(&o, "%s", "");
	if (d->vendor[0])
		say(&o, "cpu:                  %s family %u model %u (0x%x) stepping %u", d->vendor,
		    d->family, d->model, d->model, d->stepping);
	else
		say(&o, "cpu:                  unknown (cpuid gave no vendor)");
	print_errata(d, &o);
	if (d->hypervisor)
		say(&o, "hypervisor:           yes%s%s%s (a virtual machine)",
		    d->hv_vendor[0] ? " (" : "", d->hv_vendor, d->hv_vendor[0] ? ")" : "");
	else
		say(&o, "hypervisor:           no");
	say(&o, "cpuid Intel PT:       %s (leaf 7 EBX bit 25)", yesno(d->cpuid_pt));
	if (d->have_leaf14)
		print_leaf14(d, &o);
	say(&o, "cpuid DS (BTS):       %s (leaf 1 EDX bit 21), DTES64 %s", yesno(d->cpuid_ds),
	    yesno(d->cpuid_dtes64));
	print_pmu(&o, "pmu intel_pt:", d->pt_pmu, &d->pt, d->pt_pmu_err);
	print_pmu(&o, "pmu intel_bts:", d->bts_pmu, &d->bts, d->bts_pmu_err);
	if (d->paranoid_known)
		say(&o, "perf_event_paranoid:  %ld: %s", d->paranoid, paranoid_meaning(d->paranoid));
	else
		say(&o, "perf_event_paranoid:  unknown (no /proc/sys/kernel/perf_event_paranoid: "
			"no perf events in this kernel?)");
	if (d->scope_known)
		say(&o, "ptrace_scope:         %ld (Yama)", d->ptrace_scope);
	else
		say(&o, "ptrace_scope:         none (no Yama)");
	if (d->caps_known)
		say(&o, "capabilities:         euid %u; CAP_SYS_PTRACE %s, CAP_PERFMON %s, "
			"CAP_SYS_ADMIN %s",
		    (unsigned)d->euid, yesno(d->cap_sys_ptrace), yesno(d->cap_perfmon),
		    yesno(d->cap_sys_admin));
	else
		say(&o, "capabilities:         euid %u; unknown (capget failed)", (unsigned)d->euid);
	if (d->trace_tried)
		say(&o, "ptrace a child:       %s", d->trace_ok ? "yes (PTRACE_TRACEME tried)"
							  : d->trace_err);
	say(&o, "ptrace attach:        %s", d->attach);
	if (d->simulated)
		say(&o, "pt kernel tracing:    not simulated (the simulated PMU sees user mode only)");
	else
		say(&o, "pt kernel tracing:    %s", d->kernel_trace_ok
					  ? "permitted (set record pt kernel on)"
					  : "not permitted (needs perf_event_paranoid <= 1 or "
					    "CAP_PERFMON)");
	say(&o, "%s", "");
	say(&o, "methods (--method=auto tries pt, bts, soft, step in this order):");
	for (int m = 0; m < PTD_DOCTOR_NMETHODS; m++) {
		const struct ptd_doctor_verdict *v = &d->m[m];

		say(&o, "  %-5s %s: %s", v->name, v->usable ? "usable" : "refused", v->why);
		if (!v->usable && v->fix[0])
			say(&o, "        fix: %s", v->fix);
	}
	if (d->auto_choice >= 0)
		say(&o, "--method=auto chooses %s%s", ptd_doctor_method_name(d->auto_choice),
		    d->simulated && d->auto_choice <= PTD_DOCTOR_BTS ? " (simulated PMU)" : "");
	else
		say(&o, "--method=auto has nothing to choose: no method can record here");
	if (d->real_checked) {
		say(&o, "%s", "");
		say(&o, "without PTDBG_SIMULATE_PMU, this machine:");
		for (int m = 0; m < 2; m++)
			say(&o, "  %-5s %s%s%s", method_names[m],
			    d->real_usable[m] ? "usable" : "refused",
			    d->real_why[m][0] ? ": " : "", d->real_why[m]);
	}
}

int ptd_doctor_report(void (*line)(void *ctx, const char *text), void *ctx, int *auto_choice)
{
	struct ptd_perf_kernel *k;
	struct ptd_doctor *d;
	int rc;

	if (auto_choice)
		*auto_choice = -1;
	if (!line)
		return ptd__err(-ptde_invalid, "doctor: NULL argument");
	ptd_clear_error();
	k = ptd_perf_kernel_default();
	if (!k)
		return -ptde_invalid; /* the perf layer said why */
	d = malloc(sizeof(*d));
	if (!d) {
		ptd_perf_kernel_free(k);
		return ptd__err(-ptde_nomem, "doctor: out of memory");
	}
	rc = ptd_doctor_run(k, d);
	if (rc == 0) {
		ptd_doctor_print(d, line, ctx);
		if (auto_choice)
			*auto_choice = d->auto_choice;
	}
	free(d);
	ptd_perf_kernel_free(k);
	return rc;
}
