/*
 * The simulated perf kernel, its kernel half (see perf.h, simpmu.h).
 *
 * What a user's machine shows, reproduced: sysfs with an intel_pt PMU of
 * a Skylake (the "pt" simulation) or none (the "bts" one: an Intel CPU
 * with the debug store, BTS through PERF_TYPE_HARDWARE), cpuid answering
 * as that CPU, perf_event_paranoid, and perf_event_open/mmap/ioctl/fcntl
 * checking their arguments as the kernel does and failing with its errno
 * values.  Each event gets a real file descriptor (a /dev/null one, so
 * the number is the process's own and close() works) and its rings are
 * real shared memory: one memfd mapped twice, once with the caller's
 * protection (a read-only mapping is the kernel's overwrite mode) and
 * once writable for the simulation, which writes records exactly as the
 * kernel lays them out (simpmu_rec.c).
 *
 * Deviations, each refused with an errno rather than simulated wrongly:
 * events are per thread of the target only (cpu must be -1: EINVAL; a
 * pid outside the target: ESRCH), no groups (EINVAL), no kernel tracing
 * (EOPNOTSUPP: the branch source sees user mode only), sample types
 * beyond IDENTIFIER|IP|TID|TIME|ADDR|ID|STREAM_ID|CPU|PERIOD (EINVAL).
 * In circular (overwrite) mode the AUX head is kept monotonic, as in
 * linear mode, where the Intel PT driver of the real kernel reports a
 * position inside the buffer (see ptd_perf_aux_read).
 */
#include "record/simpmu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "target/target.h"
#include "util/error.h"

/* ---- sysfs and cpuid of the simulated machine
 * ---------------------------------------------------- */

struct sysfs_file {
	const char *path, *value;
};

/* An intel_pt PMU as a Skylake client shows it (kernel 5.x). */
static const struct sysfs_file pt_sysfs[] = {{"intel_pt/type", "8"},
					     {"intel_pt/format/pt", "config:0"},
					     {"intel_pt/format/cyc", "config:1"},
					     {"intel_pt/format/pwr_evt", "config:4"},
					     {"intel_pt/format/fup_on_ptw", "config:5"},
					     {"intel_pt/format/mtc", "config:9"},
					     {"intel_pt/format/tsc", "config:10"},
					     {"intel_pt/format/noretcomp", "config:11"},
					     {"intel_pt/format/ptw", "config:12"},
					     {"intel_pt/format/branch", "config:13"},
					     {"intel_pt/format/mtc_period", "config:14-17"},
					     {"intel_pt/format/cyc_thresh", "config:19-22"},
					     {"intel_pt/format/psb_period", "config:24-27"},
					     {"intel_pt/caps/cr3_filtering", "1"},
					     {"intel_pt/caps/psb_cyc", "1"},
					     {"intel_pt/caps/ip_filtering", "1"},
					     {"intel_pt/caps/mtc", "1"},
					     {"intel_pt/caps/ptwrite", "0"},
					     {"intel_pt/caps/power_event_trace", "0"},
					     {"intel_pt/caps/topa_output", "1"},
					     {"intel_pt/caps/topa_multiple_entries", "1"},
					     {"intel_pt/caps/single_range_output", "1"},
					     {"intel_pt/caps/output_subsys", "0"},
					     {"intel_pt/caps/payloads_lip", "0"},
					     {"intel_pt/caps/num_address_ranges", "2"},
					     {"intel_pt/caps/mtc_periods", "249"},
					     {"intel_pt/caps/cycle_thresholds", "16383"},
					     {"intel_pt/caps/psb_periods", "63"},
					     {"intel_pt/caps/max_subleaf", "1"},
					     {"intel_pt/caps/tsc_art_ratio", "2:216"},
					     {"intel_pt/caps/max_nonturbo_ratio", "28"},
					     {"intel_pt/nr_addr_filters", "2"},
					     {NULL, NULL}};

/* Both machines have the core PMU. */
static const struct sysfs_file cpu_sysfs[] = {{"cpu/type", "4"},
					      {"cpu/format/event", "config:0-7"},
					      {"cpu/format/umask", "config:8-15"},
					      {"cpu/format/edge", "config:18"},
					      {"cpu/format/inv", "config:23"},
					      {"cpu/format/cmask", "config:24-31"},
					      {NULL, NULL}};

static struct sim *sim_of(struct ptd_perf_kernel *k)
{
	return k->priv;
}

static const char *sysfs_lookup(struct sim *s, const char *rel)
{
	for (int i = 0; cpu_sysfs[i].path; i++)
		if (strcmp(cpu_sysfs[i].path, rel) == 0)
			return cpu_sysfs[i].value;
	if (s->kind == SIM_PT)
		for (int i = 0; pt_sysfs[i].path; i++)
			if (strcmp(pt_sysfs[i].path, rel) == 0)
				return pt_sysfs[i].value;
	return NULL;
}

static long copy_out(const char *v, char *buf, size_t n)
{
	size_t l = strlen(v);

	if (!buf || n == 0)
		return -EINVAL;
	if (l >= n)
		l = n - 1;
	memcpy(buf, v, l);
	buf[l] = 0;
	return (long)l;
}

static long sim_read_sysfs(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n)
{
	const char *v = rel ? sysfs_lookup(sim_of(k), rel) : NULL;

	return v ? copy_out(v, buf, n) : -ENOENT;
}

static int sim_list_sysfs(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n)
{
	struct sim *s = sim_of(k);
	const struct sysfs_file *tabs[2] = {cpu_sysfs, s->kind == SIM_PT ? pt_sysfs : NULL};
	size_t rl, used = 0;
	int count = 0;

	if (!rel || !buf)
		return -EINVAL;
	rl = strlen(rel);
	/* The tables are grouped by directory; names come out in table
	 * order, which the reader does not rely on. */
	for (int t = 0; t < 2; t++)
		for (int i = 0; tabs[t] && tabs[t][i].path; i++) {
			const char *p = tabs[t][i].path;
			size_t l;
			if (strncmp(p, rel, rl) != 0 || p[rl] != '/' || strchr(p + rl + 1, '/'))
				continue;
			l = strlen(p + rl + 1) + 1;
			if (used + l > n)
				return -ENOSPC;
			memcpy(buf + used, p + rl + 1, l);
			used += l;
			count++;
		}
	if (count == 0) {
		/* an existing directory with subdirectories only, or none */
		for (int t = 0; t < 2; t++)
			for (int i = 0; tabs[t] && tabs[t][i].path; i++)
				if (strncmp(tabs[t][i].path, rel, rl) == 0 &&
				    tabs[t][i].path[rl] == '/')
					return 0;
		return -ENOENT;
	}
	return count;
}

static long sim_read_procsys(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n)
{
	char v[32];

	if (!rel)
		return -EINVAL;
	if (strcmp(rel, "kernel/perf_event_paranoid") == 0) {
		snprintf(v, sizeof(v), "%d", sim_of(k)->paranoid);
		return copy_out(v, buf, n);
	}
	if (strcmp(rel, "kernel/perf_event_mlock_kb") == 0)
		return copy_out("516", buf, n);
	if (strcmp(rel, "kernel/perf_event_max_sample_rate") == 0)
		return copy_out("100000", buf, n);
	if (strcmp(rel, "kernel/yama/ptrace_scope") == 0)
		return copy_out("0", buf, n);
	return -ENOENT;
}

static void sim_cpuid(struct ptd_perf_kernel *k, unsigned leaf, unsigned subleaf, unsigned r[4])
{
	struct sim *s = sim_of(k);

	r[0] = r[1] = r[2] = r[3] = 0;
	switch (leaf) {
	case 0:
		r[0] = 0x16;	   /* max leaf */
		r[1] = 0x756e6547; /* "GenuineIntel" in ebx, edx, ecx */
		r[3] = 0x49656e69;
		r[2] = 0x6c65746e;
		break;
	case 1:
		/* family 6, model 0x5e (Skylake), stepping 3; no hypervisor
		 * bit; edx: DS (21); ecx: DTES64 (2), DS-CPL (4). */
		r[0] = (0x5u << 16) | (6u << 8) | (0xeu << 4) | 3u;
		r[2] = (1u << 2) | (1u << 4);
		r[3] = (1u << 21) | (1u << 0) | (1u << 4);
		break;
	case 7:
		if (subleaf == 0 && s->kind == SIM_PT)
			r[1] = 1u << 25; /* Intel PT */
		break;
	case 0x14:
		if (s->kind != SIM_PT)
			break;
		if (subleaf == 0) {
			r[0] = 1; /* max subleaf */
			/* cr3 filter, psb/cyc, ip filtering, mtc */
			r[1] = (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3);
			/* topa, topa multiple entries, single range */
			r[2] = (1u << 0) | (1u << 1) | (1u << 2);
		} else if (subleaf == 1) {
			r[0] = 2u | (0xf9u << 16);	/* address ranges, mtc periods */
			r[1] = 0x3fffu | (0x3fu << 16); /* cyc thresholds, psb periods */
		}
		break;
	case 0x80000000:
		r[0] = 0x80000008;
		break;
	default:
		break;
	}
}

/* ---- events ---------------------------------------------------------------------------------- */

static struct sim_event *event_by_fd(struct sim *s, int fd)
{
	for (struct sim_event *e = s->ev; e; e = e->next)
		if (e->fd == fd && !e->closed)
			return e;
	return NULL;
}

struct sim_event *ptd__sim_event_of(struct sim *s, pid_t tid)
{
	for (struct sim_event *e = s->ev; e; e = e->next)
		if (e->tid == tid && !e->closed && e->enabled)
			return e;
	return NULL;
}

static int take_fail(struct sim *s, const char *op)
{
	int err = s->fail_err;

	if (!err || strcmp(s->fail_op, op) != 0)
		return 0;
	s->fail_err = 0;
	s->fail_op[0] = 0;
	return -err;
}

static uint64_t pt_term_mask(const char *term)
{
	for (int i = 0; pt_sysfs[i].path; i++) {
		const char *p = pt_sysfs[i].path;
		unsigned lo, hi;
		if (strncmp(p, "intel_pt/format/", 16) != 0 || strcmp(p + 16, term) != 0)
			continue;
		if (sscanf(pt_sysfs[i].value, "config:%u-%u", &lo, &hi) == 2)
			return ((1ull << (hi - lo + 1)) - 1) << lo;
		if (sscanf(pt_sysfs[i].value, "config:%u", &lo) == 1)
			return 1ull << lo;
	}
	return 0;
}

static uint64_t pt_term(uint64_t config, const char *term)
{
	uint64_t m = pt_term_mask(term);

	return m ? (config & m) >> __builtin_ctzll(m) : 0;
}

static uint64_t pt_cap(const char *cap)
{
	char path[80];

	snprintf(path, sizeof(path), "intel_pt/caps/%s", cap);
	for (int i = 0; pt_sysfs[i].path; i++)
		if (strcmp(pt_sysfs[i].path, path) == 0)
			return strtoull(pt_sysfs[i].value, NULL, 0);
	return 0;
}

/* pt_event_valid() of the Intel PT driver. */
static int pt_config_valid(uint64_t config)
{
	uint64_t all = 0;
	static const char *const terms[] = {
		"pt",  "cyc",	 "pwr_evt",    "fup_on_ptw", "mtc",	   "tsc", "noretcomp",
		"ptw", "branch", "mtc_period", "cyc_thresh", "psb_period", NULL};

	for (int i = 0; terms[i]; i++)
		all |= pt_term_mask(terms[i]);
	if (config & ~all)
		return -EINVAL;
	if (pt_term(config, "cyc") && !pt_cap("psb_cyc"))
		return -EINVAL;
	if (pt_term(config, "cyc") &&
	    !(pt_cap("cycle_thresholds") & (1ull << pt_term(config, "cyc_thresh"))))
		return -EINVAL;
	if (pt_term(config, "psb_period") &&
	    !(pt_cap("psb_periods") & (1ull << pt_term(config, "psb_period"))))
		return -EINVAL;
	if (pt_term(config, "mtc") && !pt_cap("mtc"))
		return -EINVAL;
	if (pt_term(config, "mtc") &&
	    !(pt_cap("mtc_periods") & (1ull << pt_term(config, "mtc_period"))))
		return -EINVAL;
	if ((pt_term(config, "ptw") || pt_term(config, "fup_on_ptw")) && !pt_cap("ptwrite"))
		return -EINVAL;
	if (pt_term(config, "pwr_evt") && !pt_cap("power_event_trace"))
		return -EINVAL;
	/* Bit 0 set lets "branch" through; the simulated branch source
	 * cannot run without branch tracing. */
	if (pt_term(config, "pt") && !pt_term(config, "branch"))
		return -EOPNOTSUPP;
	return 0;
}

#define SIM_SAMPLE_TYPES                                                                           \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD)

static int sim_open(struct ptd_perf_kernel *k, struct perf_event_attr *uattr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags)
{
	struct sim *s = sim_of(k);
	struct perf_event_attr attr;
	struct sim_event *e;
	uint32_t size;
	int rc, is_pt = 0;

	if ((rc = take_fail(s, "open")) < 0)
		return rc;
	if (!uattr)
		return -EFAULT;
	/* perf_copy_attr() */
	size = uattr->size;
	if (size == 0)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > (uint32_t)s->page) {
		uattr->size = sizeof(attr);
		return -E2BIG;
	}
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, uattr, size < sizeof(attr) ? size : sizeof(attr));
	for (uint32_t i = sizeof(attr); i < size; i++)
		if (((const uint8_t *)uattr)[i]) {
			uattr->size = sizeof(attr);
			return -E2BIG;
		}
	attr.size = sizeof(attr);
	if (attr.__reserved_1 || attr.__reserved_2 || attr.__reserved_3)
		return -EINVAL;
	if (flags & ~(PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP |
		      PERF_FLAG_FD_CLOEXEC))
		return -EINVAL;
	if (attr.sample_type & ~((uint64_t)PERF_SAMPLE_MAX - 1))
		return -EINVAL;
	if (attr.freq && attr.sample_freq > 100000)
		return -EINVAL;
	if (pid == -1 && cpu == -1)
		return -EINVAL;
	/* perf_event_paranoid */
	if (s->paranoid >= 3)
		return -EACCES;
	if (!attr.exclude_kernel && s->paranoid >= 2)
		return -EACCES;
	if (pid == -1 && s->paranoid >= 1)
		return -EACCES;
	/* what the simulation can do */
	if (cpu != -1 || pid <= 0 || (flags & PERF_FLAG_PID_CGROUP))
		return -EINVAL;
	if (group_fd != -1)
		return -EINVAL;
	if (!s->k.t || ptd_target_thread_state(s->k.t, pid) == PTD_THREAD_GONE ||
	    !ptd_target_alive(s->k.t))
		return -ESRCH;
	{
		pid_t tids[4096];
		int n = ptd_target_threads(s->k.t, tids, 4096), found = 0;
		for (int i = 0; i < n && i < 4096; i++)
			found |= tids[i] == pid;
		if (!found)
			return -ESRCH;
	}
	if (s->kind == SIM_PT && attr.type == SIM_PT_TYPE) {
		rc = pt_config_valid(attr.config);
		if (rc < 0)
			return rc;
		if (attr.config1 || attr.config2)
			return -EINVAL;
		is_pt = 1;
	} else if (attr.type == PERF_TYPE_HARDWARE &&
		   attr.config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS) {
		/* intel_pmu_has_bts(): a period of one without freq is BTS;
		 * any other branch counter is a counter, not simulated. */
		if (attr.freq || attr.sample_period != 1)
			return -EOPNOTSUPP;
	} else if (attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_SOFTWARE ||
		   attr.type == PERF_TYPE_HW_CACHE || attr.type == 4) {
		return -EOPNOTSUPP;
	} else {
		return -ENOENT; /* no such PMU */
	}
	if (!attr.exclude_kernel || attr.exclude_user)
		return -EOPNOTSUPP; /* the branch source sees user mode only */
	if (attr.sample_type & ~(uint64_t)SIM_SAMPLE_TYPES)
		return -EINVAL;
	if (attr.inherit)
		return -EINVAL;

	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		rc = -errno;
		free(e);
		return rc;
	}
	e->tid = pid;
	e->pid = ptd_target_pid(s->k.t);
	e->is_pt = is_pt;
	e->attr = attr;
	e->id = ++s->next_id;
	e->sys_nr = -1;
	e->enabled = !attr.disabled && !attr.enable_on_exec;
	e->exec_pending = attr.disabled && attr.enable_on_exec;
	e->next = s->ev;
	s->ev = e;
	return e->fd;
}

static void free_event(struct sim *s, struct sim_event *e)
{
	struct sim_event **pp;

	for (pp = &s->ev; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	ptd_history_free(e->stage);
	ptd_ptsynth_free(e->synth);
	free(e->bts);
	for (int i = 0; i < e->nfilt; i++)
		free(e->filt[i].file);
	free(e);
}

static void maybe_free(struct sim *s, struct sim_event *e)
{
	if (e->closed && !e->user_map && !e->user_aux)
		free_event(s, e);
}

static int sim_close(struct ptd_perf_kernel *k, int fd)
{
	struct sim *s = sim_of(k);
	struct sim_event *e = event_by_fd(s, fd);

	if (!e)
		return -EBADF;
	if (e->recording)
		ptd__sim_stop_recording(s, e);
	close(e->fd);
	e->closed = 1;
	e->fd = -1;
	maybe_free(s, e);
	return 0;
}

/* Shared memory seen through two mappings: the caller's (@prot) and the
 * simulation's (writable). */
static void *map_twice(size_t len, int prot, void **sim_view, int *err)
{
	int fd = (int)syscall(SYS_memfd_create, "ptdbg-simpmu", 1 /* MFD_CLOEXEC */);
	void *u, *w;

	if (fd < 0) {
		*err = -errno;
		return NULL;
	}
	if (ftruncate(fd, (off_t)len) < 0) {
		*err = -errno;
		close(fd);
		return NULL;
	}
	w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	u = w == MAP_FAILED ? MAP_FAILED : mmap(NULL, len, prot, MAP_SHARED, fd, 0);
	close(fd);
	if (w == MAP_FAILED || u == MAP_FAILED) {
		*err = -ENOMEM;
		if (w != MAP_FAILED)
			munmap(w, len);
		return NULL;
	}
	*sim_view = w;
	return u;
}

#define SIM_AUX_MAX (256ull << 20)

static void *sim_mmap(struct ptd_perf_kernel *k, int fd, size_t len, int prot, off_t offset,
		      int *err)
{
	struct sim *s = sim_of(k);
	struct sim_event *e = event_by_fd(s, fd);
	size_t pages;
	int rc, dummy;
	void *u;

	if (!err)
		err = &dummy;
	if ((rc = take_fail(s, "mmap")) < 0) {
		*err = rc;
		return NULL;
	}
	if (!e) {
		*err = -EBADF;
		return NULL;
	}
	if (!(prot & PROT_READ) || len == 0 || (len % (size_t)s->page) || (offset % s->page)) {
		*err = -EINVAL;
		return NULL;
	}
	pages = len / (size_t)s->page;
	if (offset == 0) {
		/* The data ring: the user page and 2^n data pages. */
		size_t n = pages - 1;
		volatile struct perf_event_mmap_page *pg;
		if (e->user_map || (n & (n - 1))) {
			*err = -EINVAL;
			return NULL;
		}
		if (len > SIM_AUX_MAX) {
			*err = -ENOMEM;
			return NULL;
		}
		u = map_twice(len, prot, &e->sim_map, err);
		if (!u)
			return NULL;
		e->user_map = u;
		e->map_len = len;
		e->ring_writable = !!(prot & PROT_WRITE);
		e->data_size = n * (uint64_t)s->page;
		pg = ptd__sim_upage(e);
		pg->version = 0;
		pg->compat_version = 0;
		pg->index = 0; /* no rdpmc */
		pg->cap_user_time = 1;
		pg->cap_user_time_zero = 1;
		/* A 2 GHz TSC: ns = cyc * mult >> shift. */
		pg->time_shift = 31;
		pg->time_mult = 1u << 30;
		pg->time_zero = 0;
		pg->time_offset = 0;
		pg->data_offset = (uint64_t)s->page;
		pg->data_size = e->data_size;
		if (e->is_pt && e->enabled && e->recording == 0)
			ptd__sim_itrace_start(s, e);
		return u;
	}
	/* The AUX area (rb_alloc_aux): after the data ring, where the user
	 * page says, a power of two of pages. */
	if (!e->user_map) {
		*err = -EINVAL;
		return NULL;
	}
	if (!e->is_pt) {
		*err = -EOPNOTSUPP;
		return NULL;
	}
	{
		volatile struct perf_event_mmap_page *pg = ptd__sim_upage(e);
		if (e->user_aux || (uint64_t)offset != pg->aux_offset || len != pg->aux_size ||
		    pg->aux_offset < pg->data_offset + pg->data_size || (pages & (pages - 1))) {
			*err = -EINVAL;
			return NULL;
		}
	}
	if (len > SIM_AUX_MAX) {
		*err = -ENOMEM;
		return NULL;
	}
	u = map_twice(len, prot, &e->sim_aux, err);
	if (!u)
		return NULL;
	e->user_aux = u;
	e->aux_len = len;
	e->aux_linear = !!(prot & PROT_WRITE);
	return u;
}

static int sim_munmap(struct ptd_perf_kernel *k, void *addr, size_t len)
{
	struct sim *s = sim_of(k);

	for (struct sim_event *e = s->ev; e; e = e->next) {
		if (addr && addr == e->user_map) {
			if (e->recording)
				ptd__sim_stop_recording(s, e);
			if (e->user_aux)
				return -EINVAL; /* the AUX area first, as perf does */
			munmap(e->user_map, e->map_len);
			munmap(e->sim_map, e->map_len);
			e->user_map = e->sim_map = NULL;
			maybe_free(s, e);
			return 0;
		}
		if (addr && addr == e->user_aux) {
			if (e->recording)
				ptd__sim_stop_recording(s, e);
			munmap(e->user_aux, e->aux_len);
			munmap(e->sim_aux, e->aux_len);
			e->user_aux = e->sim_aux = NULL;
			maybe_free(s, e);
			return 0;
		}
	}
	return munmap(addr, len) < 0 ? -errno : 0;
}

/* Maps file offset @off of @file to an address of the thread's process
 * (the kernel's perf_addr_filter_apply over the file's vmas). */
static int file_addr(struct sim *s, const char *file, uint64_t off, uint64_t size, uint64_t *lo)
{
	char path[64], line[4400];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)ptd_target_pid(s->k.t));
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long a, b, pgoff;
		char perms[8], name[4096];
		name[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &a, &b, perms, &pgoff, name) <
		    4)
			continue;
		if (strcmp(name, file) != 0 || off < pgoff || off + size > pgoff + (b - a))
			continue;
		*lo = a + (off - pgoff);
		found = 1;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/*
 * PERF_EVENT_IOC_SET_FILTER for Intel PT: "filter START/SIZE@FILE" (also
 * "filter START@FILE", one byte), several separated by ',', ' ' or
 * newline.  Actions start/stop are refused (EOPNOTSUPP) as by the
 * driver, more filters than num_address_ranges too; kernel addresses
 * (no @FILE) make no sense for a user-only event (EINVAL).
 */
static int set_filter(struct sim *s, struct sim_event *e, const char *str)
{
	struct sim_filter f[SIM_MAX_FILTERS];
	char buf[4096], *save = NULL, *tok;
	int n = 0, rc;

	memset(f, 0, sizeof(f));

	if (!e->is_pt)
		return -EINVAL;
	if (!str || strlen(str) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", str);
	tok = strtok_r(buf, " ,\n", &save);
	while (tok) {
		char *spec, *at, *slash, *end;
		uint64_t start, size = 1;
		if (strcmp(tok, "start") == 0 || strcmp(tok, "stop") == 0 ||
		    strcmp(tok, "tracestop") == 0) {
			rc = -EOPNOTSUPP;
			goto fail;
		}
		if (strcmp(tok, "filter") != 0) {
			rc = -EINVAL;
			goto fail;
		}
		spec = strtok_r(NULL, " ,\n", &save);
		if (!spec) {
			rc = -EINVAL;
			goto fail;
		}
		at = strchr(spec, '@');
		if (!at || !at[1]) {
			rc = -EINVAL;
			goto fail;
		}
		*at = 0;
		slash = strchr(spec, '/');
		if (slash)
			*slash = 0;
		errno = 0;
		start = strtoull(spec, &end, 0);
		if (errno || end == spec || *end) {
			rc = -EINVAL;
			goto fail;
		}
		if (slash) {
			size = strtoull(slash + 1, &end, 0);
			if (errno || end == slash + 1 || *end || size == 0) {
				rc = -EINVAL;
				goto fail;
			}
		}
		if (++n > (int)pt_cap("num_address_ranges")) {
			rc = -EOPNOTSUPP;
			goto fail;
		}
		if (at[1] != '/') {
			rc = -EINVAL;
			goto fail;
		} /* the kernel resolves an absolute path */
		if (access(at + 1, F_OK) < 0) {
			rc = -errno; /* kern_path() */
			goto fail;
		}
		f[n - 1].off = start;
		f[n - 1].size = size;
		f[n - 1].file = strdup(at + 1);
		if (!f[n - 1].file) {
			rc = -ENOMEM;
			goto fail;
		}
		tok = strtok_r(NULL, " ,\n", &save);
	}
	if (e->recording)
		ptd__sim_finish(s, e);
	for (int i = 0; i < e->nfilt; i++)
		free(e->filt[i].file);
	memcpy(e->filt, f, sizeof(f));
	e->nfilt = n;
	ptd__sim_filters_apply(s, e);
	return 0;
fail:
	for (int i = 0; i < SIM_MAX_FILTERS; i++)
		free(f[i].file);
	return rc;
}

void ptd__sim_filters_apply(struct sim *s, struct sim_event *e)
{
	/* A file not mapped (yet) gives an empty range, as in the kernel
	 * until perf_event_addr_filters_apply finds a vma. */
	for (int i = 0; i < e->nfilt; i++) {
		struct sim_filter *f = &e->filt[i];
		if (!f->file || file_addr(s, f->file, f->off, f->size, &f->lo) < 0)
			f->lo = f->hi = 0;
		else
			f->hi = f->lo + f->size;
	}
}

static int sim_ioctl(struct ptd_perf_kernel *k, int fd, unsigned long req, unsigned long arg)
{
	struct sim *s = sim_of(k);
	struct sim_event *e = event_by_fd(s, fd);
	int rc;

	if ((rc = take_fail(s, "ioctl")) < 0)
		return rc;
	if (!e)
		return -EBADF;
	switch (req) {
	case PERF_EVENT_IOC_ENABLE:
		if (!e->enabled) {
			e->enabled = 1;
			e->exec_pending = 0;
			if (e->is_pt && e->user_map)
				ptd__sim_itrace_start(s, e);
		}
		return 0;
	case PERF_EVENT_IOC_DISABLE:
		if (e->enabled) {
			if (e->recording)
				ptd__sim_stop_recording(s, e);
			e->enabled = 0;
		}
		return 0;
	case PERF_EVENT_IOC_RESET:
		return 0;
	case PERF_EVENT_IOC_ID:
		if (!arg)
			return -EFAULT;
		*(uint64_t *)arg = e->id;
		return 0;
	case PERF_EVENT_IOC_SET_FILTER:
		if (!arg)
			return -EFAULT;
		return set_filter(s, e, (const char *)arg);
	case PERF_EVENT_IOC_SET_OUTPUT:
		return -EINVAL;
	default:
		return -ENOTTY;
	}
}

static int sim_fcntl(struct ptd_perf_kernel *k, int fd, int cmd, long arg)
{
	struct sim *s = sim_of(k);
	struct sim_event *e = event_by_fd(s, fd);
	int rc;

	if ((rc = take_fail(s, "fcntl")) < 0)
		return rc;
	if (!e)
		return -EBADF;
	switch (cmd) {
	case F_SETOWN:
		e->owner = (pid_t)arg;
		return 0;
	case F_GETOWN:
		return e->owner;
	case F_SETSIG:
		if (arg < 0 || arg > SIGRTMAX)
			return -EINVAL;
		e->sig = (int)arg;
		return 0;
	case F_GETSIG:
		return e->sig;
	case F_SETFL:
		e->async = !!(arg & O_ASYNC);
		return 0;
	case F_GETFL:
		return O_RDONLY | (e->async ? O_ASYNC : 0);
	default:
		return -EINVAL;
	}
}

/* ---- the kernel object ----------------------------------------------------------------------- */

static int sim_resume(struct ptd_perf_kernel *k, pid_t tid, int step, int signo)
{
	return ptd__sim_resume(sim_of(k), tid, step, signo);
}

static int sim_on_stop(struct ptd_perf_kernel *k, const struct ptd_stop *st)
{
	return ptd__sim_on_stop(sim_of(k), st);
}

static int sim_sync(struct ptd_perf_kernel *k, pid_t tid)
{
	struct sim *s = sim_of(k);
	int rc = 0;

	for (struct sim_event *e = s->ev; e; e = e->next) {
		if (!e->recording || (tid && e->tid != tid))
			continue;
		if (s->k.t && ptd_target_thread_state(s->k.t, e->tid) == PTD_THREAD_RUNNING)
			continue; /* it is still on the CPU */
		int r = ptd__sim_finish(s, e);
		if (r < 0)
			rc = r;
	}
	return rc;
}

static void sim_free(struct ptd_perf_kernel *k)
{
	struct sim *s = sim_of(k);

	while (s->ev) {
		struct sim_event *e = s->ev;
		if (e->user_aux) {
			munmap(e->user_aux, e->aux_len);
			munmap(e->sim_aux, e->aux_len);
		}
		if (e->user_map) {
			munmap(e->user_map, e->map_len);
			munmap(e->sim_map, e->map_len);
		}
		if (!e->closed)
			close(e->fd);
		free_event(s, e);
	}
	ptd_steprec_free(s->sr);
	free(s);
}

static const struct ptd_perf_kernel_ops sim_ops = {
	.read_sysfs = sim_read_sysfs,
	.read_procsys = sim_read_procsys,
	.open = sim_open,
	.close = sim_close,
	.mmap = sim_mmap,
	.munmap = sim_munmap,
	.ioctl = sim_ioctl,
	.fcntl = sim_fcntl,
	.cpuid = sim_cpuid,
	.resume = sim_resume,
	.on_stop = sim_on_stop,
	.free = sim_free,
	.list_sysfs = sim_list_sysfs,
	.sync = sim_sync,
};

struct ptd_perf_kernel *ptd_perf_kernel_sim(const char *what)
{
	struct sim *s;
	const char *p;

	if (!what || (strcmp(what, "pt") != 0 && strcmp(what, "bts") != 0)) {
		ptd__err(-ptde_invalid, "cannot simulate a PMU of kind '%s': use pt or bts",
			 what ? what : "(null)");
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		ptd__err(-ptde_nomem, "cannot simulate a PMU: out of memory");
		return NULL;
	}
	s->kind = strcmp(what, "pt") == 0 ? SIM_PT : SIM_BTS;
	s->paranoid = -1;
	p = getenv("PTDBG_SIM_PARANOID");
	if (p && *p)
		s->paranoid = atoi(p);
	s->page = sysconf(_SC_PAGESIZE);
	s->k.ops = &sim_ops;
	s->k.name = s->kind == SIM_PT ? "simulated pt" : "simulated bts";
	s->k.simulated = 1;
	s->k.priv = s;
	return &s->k;
}

void ptd_perf_sim_fail(struct ptd_perf_kernel *k, const char *op, int err)
{
	struct sim *s;

	if (!k || !k->simulated || !op)
		return;
	s = sim_of(k);
	snprintf(s->fail_op, sizeof(s->fail_op), "%s", op);
	s->fail_err = err < 0 ? -err : err;
}

void ptd_perf_sim_set_paranoid(struct ptd_perf_kernel *k, int level)
{
	if (k && k->simulated)
		sim_of(k)->paranoid = level;
}

void ptd_perf_sim_stats(const struct ptd_perf_kernel *k, struct ptd_perf_sim_stats *st)
{
	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	if (k && k->simulated)
		*st = ((const struct sim *)k->priv)->st;
}

void ptd_perf_sim_keep_history(struct ptd_perf_kernel *k, pid_t tid, struct ptd_history *h)
{
	if (k && k->simulated) {
		sim_of(k)->keep = h;
		sim_of(k)->keep_tid = tid;
	}
}
