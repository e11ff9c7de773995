/*
 * The kernel-facing perf layer (see perf.h): the running kernel's ops
 * (real system calls, sysfs and /proc/sys files, cpuid), the choice
 * between it and the simulated kernel, PMU descriptions parsed from
 * sysfs, and the readers of the two rings an event maps (the data ring of
 * records and the AUX area of raw trace), which follow the memory-ordering
 * rules of include/uapi/linux/perf_event.h.
 */
#include "record/perf.h"

#include <cpuid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "target/target.h"
#include "util/error.h"

#define SYSFS_DEVICES "/sys/bus/event_source/devices"
#define PROCSYS "/proc/sys"

/* ---- the running kernel ------------------------------------------------------------------------
 */

struct linux_priv {
	char sysfs[4096];
	char procsys[4096];
};

/* Reads @dir/@rel into @buf: length, or -errno. */
static long read_file(const char *dir, const char *rel, char *buf, size_t n)
{
	char path[8192];
	ssize_t got;
	size_t len = 0;
	int fd, err;

	if (!rel || !buf || n == 0 || strstr(rel, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -errno;
	while (len + 1 < n) {
		got = read(fd, buf + len, n - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = errno;
			close(fd);
			return -err;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	buf[len] = 0;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = 0;
	return (long)len;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists @dir/@rel into @buf as sorted NUL-terminated names. */
static int list_dir(const char *dir, const char *rel, char *buf, size_t n)
{
	char path[8192];
	char *names[256];
	int count = 0, err = 0;
	size_t used = 0;
	struct dirent *de;
	DIR *d;

	if (!rel || !buf || strstr(rel, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL && count < 256) {
		if (de->d_name[0] == '.')
			continue;
		names[count] = strdup(de->d_name);
		if (!names[count]) {
			err = -ENOMEM;
			break;
		}
		count++;
	}
	closedir(d);
	qsort(names, (size_t)count, sizeof(names[0]), cmp_str);
	for (int i = 0; i < count; i++) {
		size_t l = strlen(names[i]) + 1;
		if (!err && used + l <= n) {
			memcpy(buf + used, names[i], l);
			used += l;
		} else if (!err) {
			err = -ENOSPC;
		}
		free(names[i]);
	}
	return err ? err : count;
}

static long lx_read_sysfs(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n)
{
	return read_file(((struct linux_priv *)k->priv)->sysfs, rel, buf, n);
}

static long lx_read_procsys(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n)
{
	return read_file(((struct linux_priv *)k->priv)->procsys, rel, buf, n);
}

static int lx_list_sysfs(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n)
{
	return list_dir(((struct linux_priv *)k->priv)->sysfs, rel, buf, n);
}

static int lx_open(struct ptd_perf_kernel *k, struct perf_event_attr *attr, pid_t pid, int cpu,
		   int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			  flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

static int lx_close(struct ptd_perf_kernel *k, int fd)
{
	return close(fd) < 0 ? -errno : 0;
}

static void *lx_mmap(struct ptd_perf_kernel *k, int fd, size_t len, int prot, off_t offset,
		     int *err)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, offset);

	if (p == MAP_FAILED) {
		if (err)
			*err = -errno;
		return NULL;
	}
	return p;
}

static int lx_munmap(struct ptd_perf_kernel *k, void *addr, size_t len)
{
	return munmap(addr, len) < 0 ? -errno : 0;
}

static int lx_ioctl(struct ptd_perf_kernel *k, int fd, unsigned long req, unsigned long arg)
{
	int rc;

	do
		rc = ioctl(fd, req, arg);
	while (rc < 0 && errno == EINTR);
	return rc < 0 ? -errno : rc;
}

static int lx_fcntl(struct ptd_perf_kernel *k, int fd, int cmd, long arg)
{
	int rc = fcntl(fd, cmd, arg);

	return rc < 0 ? -errno : rc;
}

static void lx_cpuid(struct ptd_perf_kernel *k, unsigned leaf, unsigned subleaf, unsigned r[4])
{
	unsigned max = __get_cpuid_max(leaf & 0x80000000u, NULL);

	r[0] = r[1] = r[2] = r[3] = 0;
	if (leaf > max)
		return; /* out of range: the CPU would answer with another leaf */
	__cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
}

static int lx_resume(struct ptd_perf_kernel *k, pid_t tid, int step, int signo)
{
	return ptd_target_resume(k->t, tid, step, signo);
}

static int lx_on_stop(struct ptd_perf_kernel *k, const struct ptd_stop *st)
{
	return 0; /* the real PMU records while the thread runs: no stop is ours */
}

static void lx_free(struct ptd_perf_kernel *k)
{
	free(k->priv);
	free(k);
}

static const struct ptd_perf_kernel_ops linux_ops = {
	.read_sysfs = lx_read_sysfs,
	.read_procsys = lx_read_procsys,
	.open = lx_open,
	.close = lx_close,
	.mmap = lx_mmap,
	.munmap = lx_munmap,
	.ioctl = lx_ioctl,
	.fcntl = lx_fcntl,
	.cpuid = lx_cpuid,
	.resume = lx_resume,
	.on_stop = lx_on_stop,
	.free = lx_free,
	.list_sysfs = lx_list_sysfs,
};

struct ptd_perf_kernel *ptd_perf_kernel_linux_root(const char *sysfs_root, const char *procsys_root)
{
	struct ptd_perf_kernel *k = calloc(1, sizeof(*k));
	struct linux_priv *p = calloc(1, sizeof(*p));

	if (!k || !p) {
		free(k);
		free(p);
		ptd__err(-ptde_nomem, "cannot allocate the perf layer: out of memory");
		return NULL;
	}
	snprintf(p->sysfs, sizeof(p->sysfs), "%s", sysfs_root ? sysfs_root : SYSFS_DEVICES);
	snprintf(p->procsys, sizeof(p->procsys), "%s", procsys_root ? procsys_root : PROCSYS);
	k->ops = &linux_ops;
	k->name = "linux";
	k->simulated = 0;
	k->priv = p;
	return k;
}

struct ptd_perf_kernel *ptd_perf_kernel_linux(void)
{
	return ptd_perf_kernel_linux_root(NULL, NULL);
}

struct ptd_perf_kernel *ptd_perf_kernel_default(void)
{
	const char *v = getenv("PTDBG_SIMULATE_PMU");

	if (!v || !*v)
		return ptd_perf_kernel_linux();
	if (strcmp(v, "pt") == 0 || strcmp(v, "bts") == 0)
		return ptd_perf_kernel_sim(v);
	ptd__err(-ptde_invalid,
		 "cannot simulate a PMU of kind '%s' (PTDBG_SIMULATE_PMU): use pt or bts, or unset "
		 "it",
		 v);
	return NULL;
}

void ptd_perf_kernel_set_target(struct ptd_perf_kernel *k, struct ptd_target *t)
{
	if (k)
		k->t = t;
}

/* ---- PMU descriptions ------------------------------------------------------------------------ */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	return *end ? -1 : 0;
}

/* "config:0", "config:14-17", "config1:0-31", "config2:3". */
static int parse_format(const char *s, struct ptd_perf_format *f)
{
	const char *colon = strchr(s, ':');
	char *end;
	unsigned long lo, hi;
	size_t flen;

	if (!colon)
		return -1;
	flen = (size_t)(colon - s);
	if (flen == 6 && strncmp(s, "config", 6) == 0)
		f->field = 0;
	else if (flen == 7 && strncmp(s, "config1", 7) == 0)
		f->field = 1;
	else if (flen == 7 && strncmp(s, "config2", 7) == 0)
		f->field = 2;
	else
		return -1;
	if (colon[1] < '0' || colon[1] > '9')
		return -1;
	lo = strtoul(colon + 1, &end, 10);
	hi = lo;
	if (*end == '-') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		hi = strtoul(end + 1, &end, 10);
	}
	if (*end == ',')
		return 1; /* several ranges: a valid file we cannot represent */
	if (*end || lo > 63 || hi > 63 || hi < lo)
		return -1;
	f->lo = (int)lo;
	f->hi = (int)hi;
	return 0;
}

/* Names a PMU may have when the kernel ops cannot list a directory. */
static const char *const known_terms[] = {
	"pt",	 "cyc",	   "pwr_evt", "fup_on_ptw", "mtc",	  "tsc",	"noretcomp",
	"ptw",	 "branch", "event",   "notnt",	    "mtc_period", "cyc_thresh", "psb_period",
	"umask", "edge",   "inv",     "cmask",	    NULL};
static const char *const known_caps[] = {"cr3_filtering",
					 "psb_cyc",
					 "ip_filtering",
					 "mtc",
					 "ptwrite",
					 "power_event_trace",
					 "topa_output",
					 "topa_multiple_entries",
					 "single_range_output",
					 "output_subsys",
					 "payloads_lip",
					 "num_address_ranges",
					 "mtc_periods",
					 "cycle_thresholds",
					 "psb_periods",
					 "event_trace",
					 "tnt_disable",
					 "max_subleaf",
					 "tsc_art_ratio",
					 "max_nonturbo_ratio",
					 NULL};

/* Fills @names with the entries of @dir (NUL-separated); returns the count. */
static int list_entries(struct ptd_perf_kernel *k, const char *dir, const char *const *known,
			char *names, size_t n)
{
	char buf[64];
	char rel[200];
	size_t used = 0;
	int count = 0;

	if (k->ops->list_sysfs)
		return k->ops->list_sysfs(k, dir, names, n);
	for (int i = 0; known[i]; i++) {
		size_t l = strlen(known[i]) + 1;
		snprintf(rel, sizeof(rel), "%s/%s", dir, known[i]);
		if (k->ops->read_sysfs(k, rel, buf, sizeof(buf)) < 0 || used + l > n)
			continue;
		memcpy(names + used, known[i], l);
		used += l;
		count++;
	}
	return count ? count : -ENOENT;
}

int ptd_perf_pmu_read(struct ptd_perf_kernel *k, const char *name, struct ptd_perf_pmu *pmu)
{
	char rel[256], buf[256];
	char names[8192];
	const char *p;
	uint64_t v;
	long len;
	int n;

	if (!k || !name || !pmu || strlen(name) >= sizeof(pmu->name) || strchr(name, '/'))
		return ptd__err(-ptde_invalid, "cannot read a PMU: bad argument");
	memset(pmu, 0, sizeof(*pmu));
	snprintf(pmu->name, sizeof(pmu->name), "%s", name);
	snprintf(rel, sizeof(rel), "%s/type", name);
	len = k->ops->read_sysfs(k, rel, buf, sizeof(buf));
	if (len < 0)
		return ptd__err(len == -ENOENT ? -ptde_notfound : -ptde_sys,
				"cannot read %s/%s: %s", SYSFS_DEVICES, rel, strerror((int)-len));
	if (parse_u64(buf, &v) < 0 || v > UINT32_MAX)
		return ptd__err(-ptde_bad_trace, "cannot parse %s/%s: '%s' is not a PMU type",
				SYSFS_DEVICES, rel, buf);
	pmu->type = (uint32_t)v;

	snprintf(rel, sizeof(rel), "%s/format", name);
	n = list_entries(k, rel, known_terms, names, sizeof(names));
	for (p = names; n > 0; n--, p += strlen(p) + 1) {
		struct ptd_perf_format f;
		int rc;
		if (strlen(p) >= sizeof(f.name) ||
		    pmu->nfmt == (int)(sizeof(pmu->fmt) / sizeof(pmu->fmt[0])))
			continue;
		snprintf(rel, sizeof(rel), "%s/format/%s", name, p);
		len = k->ops->read_sysfs(k, rel, buf, sizeof(buf));
		if (len < 0)
			return ptd__err(-ptde_sys, "cannot read %s/%s: %s", SYSFS_DEVICES, rel,
					strerror((int)-len));
		memset(&f, 0, sizeof(f));
		rc = parse_format(buf, &f);
		if (rc < 0)
			return ptd__err(-ptde_bad_trace,
					"cannot parse %s/%s: '%s' is not a config bit range",
					SYSFS_DEVICES, rel, buf);
		if (rc > 0)
			continue;
		snprintf(f.name, sizeof(f.name), "%s", p);
		pmu->fmt[pmu->nfmt++] = f;
	}

	snprintf(rel, sizeof(rel), "%s/caps", name);
	n = list_entries(k, rel, known_caps, names, sizeof(names));
	for (p = names; n > 0; n--, p += strlen(p) + 1) {
		int i = pmu->ncaps;
		if (strlen(p) >= sizeof(pmu->caps[0].name) ||
		    i == (int)(sizeof(pmu->caps) / sizeof(pmu->caps[0])))
			continue;
		snprintf(rel, sizeof(rel), "%s/caps/%s", name, p);
		len = k->ops->read_sysfs(k, rel, buf, sizeof(buf));
		if (len < 0)
			return ptd__err(-ptde_sys, "cannot read %s/%s: %s", SYSFS_DEVICES, rel,
					strerror((int)-len));
		/* Not every cap is a number: intel_pt/caps/tsc_art_ratio is
		 * "N:M" (a ratio).  Such caps are left out (h3). */
		if (parse_u64(buf, &v) < 0)
			continue;
		snprintf(pmu->caps[i].name, sizeof(pmu->caps[i].name), "%s", p);
		pmu->caps[i].value = v;
		pmu->ncaps++;
	}
	return 0;
}

uint64_t ptd_perf_pmu_cap(const struct ptd_perf_pmu *pmu, const char *cap, uint64_t def)
{
	if (!pmu || !cap)
		return def;
	for (int i = 0; i < pmu->ncaps; i++)
		if (strcmp(pmu->caps[i].name, cap) == 0)
			return pmu->caps[i].value;
	return def;
}

int ptd_perf_pmu_set(const struct ptd_perf_pmu *pmu, struct perf_event_attr *attr, const char *term,
		     uint64_t value)
{
	const struct ptd_perf_format *f = NULL;
	__u64 *field;
	uint64_t mask;
	int width;

	if (!pmu || !attr || !term)
		return ptd__err(-ptde_invalid, "cannot set a PMU term: bad argument");
	for (int i = 0; i < pmu->nfmt; i++)
		if (strcmp(pmu->fmt[i].name, term) == 0)
			f = &pmu->fmt[i];
	if (!f)
		return ptd__err(-ptde_unsupported, "the %s PMU has no format term '%s'", pmu->name,
				term);
	width = f->hi - f->lo + 1;
	mask = width >= 64 ? ~0ull : (1ull << width) - 1;
	if (value & ~mask)
		return ptd__err(-ptde_invalid, "cannot set %s/%s to %llu: it has %d bit%s",
				pmu->name, term, (unsigned long long)value, width,
				width == 1 ? "" : "s");
	field = f->field == 0 ? &attr->config : f->field == 1 ? &attr->config1 : &attr->config2;
	*field = (*field & ~(mask << f->lo)) | (value << f->lo);
	return 0;
}

/* ---- the data ring --------------------------------------------------------------------------- */

int ptd_perf_ring_init(struct ptd_perf_ring *r, void *base, size_t map_len, int writable)
{
	volatile struct perf_event_mmap_page *pg = base;
	uint64_t off, size;
	long page = sysconf(_SC_PAGESIZE);

	if (!r || !base || map_len < (size_t)page)
		return ptd__err(-ptde_invalid, "cannot read a perf ring: bad mapping");
	memset(r, 0, sizeof(*r));
	/* Kernels before 4.1 leave data_offset/data_size 0: one page, the rest. */
	off = pg->data_offset ? pg->data_offset : (uint64_t)page;
	size = pg->data_size ? pg->data_size : map_len - (uint64_t)page;
	if (off > map_len || size > map_len - off || size == 0 || (size & (size - 1)))
		return ptd__err(
			-ptde_bad_trace,
			"cannot read a perf ring: data at %llu+%llu in a mapping of %zu bytes",
			(unsigned long long)off, (unsigned long long)size, map_len);
	r->pg = pg;
	r->data = (uint8_t *)base + off;
	r->size = size;
	r->writable = writable;
	r->tail = writable ? pg->data_tail : 0;
	return 0;
}

static void ring_copy(const struct ptd_perf_ring *r, uint64_t pos, void *dst, size_t n)
{
	uint64_t off = pos & (r->size - 1);
	size_t first = r->size - off < n ? (size_t)(r->size - off) : n;

	memcpy(dst, r->data + off, first);
	if (first < n)
		memcpy((uint8_t *)dst + first, r->data, n - first);
}

int ptd_perf_ring_read(struct ptd_perf_ring *r,
		       int (*fn)(void *ctx, const struct perf_event_header *h, const void *rec),
		       void *ctx, uint64_t *lost)
{
	uint64_t head, tail;
	uint8_t *joined = NULL;
	int count = 0, rc = 0;

	if (lost)
		*lost = 0;
	if (!r || !r->pg || !fn)
		return ptd__err(-ptde_invalid, "cannot read a perf ring: bad argument");
	/* The kernel's writes of the records happen before its store of
	 * data_head; this acquire load pairs with it (perf_event.h: "rmb()
	 * after reading data_head"). */
	head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	tail = r->tail;
	if (head < tail)
		return ptd__err(-ptde_bad_trace,
				"perf ring: data_head %llu is behind what was read (%llu)",
				(unsigned long long)head, (unsigned long long)tail);
	if (head - tail > r->size) {
		if (r->writable)
			return ptd__err(-ptde_bad_trace,
					"perf ring: data_head %llu is %llu bytes past data_tail in "
					"a ring of %llu",
					(unsigned long long)head, (unsigned long long)(head - tail),
					(unsigned long long)r->size);
		/* Overwritten: record boundaries between tail and head are gone. */
		if (lost)
			*lost = head - tail;
		r->tail = head;
		return 0;
	}
	while (tail < head) {
		struct perf_event_header h;
		const void *rec;
		uint64_t off;
		if (head - tail < sizeof(h)) {
			rc = ptd__err(-ptde_bad_trace,
				      "perf ring: %llu stray bytes before data_head",
				      (unsigned long long)(head - tail));
			break;
		}
		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			rc = ptd__err(-ptde_bad_trace,
				      "perf ring: record of type %u at %llu has size %u (%llu "
				      "bytes left)",
				      h.type, (unsigned long long)tail, h.size,
				      (unsigned long long)(head - tail));
			break;
		}
		off = tail & (r->size - 1);
		if (off + h.size <= r->size) {
			rec = r->data + off;
		} else {
			/* Split across the ring end: join the two pieces. */
			if (!joined) {
				joined = malloc(65536);
				if (!joined) {
					rc = ptd__err(-ptde_nomem, "perf ring: out of memory");
					break;
				}
			}
			ring_copy(r, tail, joined, h.size);
			rec = joined;
		}
		rc = fn(ctx, (const struct perf_event_header *)rec, rec);
		if (rc < 0)
			break;
		rc = 0;
		tail += h.size;
		count++;
	}
	free(joined);
	r->tail = tail;
	if (r->writable) {
		/* Our reads of the records complete before the kernel may
		 * reuse the space ("mb() before writing data_tail"). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
	}
	return rc < 0 ? rc : count;
}

int ptd_perf_ring_read_fixed(struct ptd_perf_ring *r, size_t rec_size,
			     int (*fn)(void *ctx, const struct perf_event_header *h,
				       const void *rec),
			     void *ctx, uint64_t *lost)
{
	uint64_t head, start, skipped = 0;
	uint8_t *joined;
	int count = 0, rc = 0;

	if (lost)
		*lost = 0;
	if (!r || !r->pg || !fn || rec_size < sizeof(struct perf_event_header) ||
	    rec_size > r->size || (rec_size & 7))
		return ptd__err(-ptde_invalid, "cannot read a perf ring: bad argument");
	head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	if (head < r->tail)
		return ptd__err(-ptde_bad_trace,
				"perf ring: data_head %llu is behind what was read (%llu)",
				(unsigned long long)head, (unsigned long long)r->tail);
	start = r->tail;
	if (head - start > r->size) {
		/* Overwritten: the newest whole records end at head. */
		uint64_t keep = (r->size / rec_size) * rec_size;
		if ((head - start) % rec_size)
			return ptd__err(-ptde_bad_trace,
					"perf ring: %llu bytes are not whole records of %zu bytes",
					(unsigned long long)(head - start), rec_size);
		skipped = head - keep - start;
		start = head - keep;
	}
	joined = malloc(rec_size);
	if (!joined)
		return ptd__err(-ptde_nomem, "perf ring: out of memory");
	while (start < head) {
		struct perf_event_header h;
		if (head - start < rec_size) {
			rc = ptd__err(-ptde_bad_trace,
				      "perf ring: %llu stray bytes before data_head",
				      (unsigned long long)(head - start));
			break;
		}
		ring_copy(r, start, joined, rec_size);
		memcpy(&h, joined, sizeof(h));
		if (h.size != rec_size) {
			rc = ptd__err(-ptde_bad_trace,
				      "perf ring: record of type %u at %llu has size %u, not %zu",
				      h.type, (unsigned long long)start, h.size, rec_size);
			break;
		}
		rc = fn(ctx, (const struct perf_event_header *)joined, joined);
		if (rc < 0)
			break;
		rc = 0;
		start += rec_size;
		count++;
	}
	free(joined);
	r->tail = start;
	if (lost)
		*lost = skipped;
	if (r->writable) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&r->pg->data_tail, start, __ATOMIC_RELEASE);
	}
	return rc < 0 ? rc : count;
}

/* ---- the AUX area ---------------------------------------------------------------------------- */

int ptd_perf_aux_init(struct ptd_perf_aux *a, volatile struct perf_event_mmap_page *pg, void *aux,
		      uint64_t size, int linear)
{
	if (!a || !pg || !aux || size == 0 || (size & (size - 1)))
		return ptd__err(-ptde_invalid, "cannot read an AUX area: bad argument");
	memset(a, 0, sizeof(*a));
	a->pg = pg;
	a->data = aux;
	a->size = size;
	a->linear = linear;
	a->tail = linear ? pg->aux_tail : 0;
	return 0;
}

static int grow(uint8_t **out, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 4096;
	uint8_t *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*out, c);
	if (!p)
		return -ptde_nomem;
	*out = p;
	*cap = c;
	return 0;
}

long ptd_perf_aux_read(struct ptd_perf_aux *a, uint8_t **out, size_t *out_size, size_t *out_cap,
		       int *wrapped)
{
	uint64_t head, start, n, off, first;

	if (wrapped)
		*wrapped = 0;
	if (!a || !a->pg || !out || !out_size || !out_cap)
		return ptd__err(-ptde_invalid, "cannot read an AUX area: bad argument");
	head = __atomic_load_n(&a->pg->aux_head, __ATOMIC_ACQUIRE);
	start = a->tail;
	if (head < start) {
		if (a->linear)
			return ptd__err(-ptde_bad_trace,
					"AUX area: aux_head %llu is behind aux_tail %llu",
					(unsigned long long)head, (unsigned long long)start);
		/* A circular area whose head is a position inside it (Intel
		 * PT snapshot mode resets it so): all of it may be new, the
		 * oldest byte at head. */
		start = head;
		n = a->size;
		if (wrapped)
			*wrapped = 1;
	} else {
		n = head - start;
		if (n > a->size) {
			if (a->linear)
				return ptd__err(-ptde_bad_trace,
						"AUX area: aux_head %llu is %llu bytes past "
						"aux_tail in an area of %llu",
						(unsigned long long)head, (unsigned long long)n,
						(unsigned long long)a->size);
			start = head - a->size;
			n = a->size;
			if (wrapped)
				*wrapped = 1;
		}
	}
	if (n == 0)
		return 0;
	if (grow(out, out_cap, *out_size + n) < 0)
		return ptd__err(-ptde_nomem, "cannot copy %llu bytes of trace: out of memory",
				(unsigned long long)n);
	off = start & (a->size - 1);
	first = a->size - off < n ? a->size - off : n;
	memcpy(*out + *out_size, a->data + off, first);
	if (first < n)
		memcpy(*out + *out_size + first, a->data, n - first);
	*out_size += n;
	a->tail = head;
	if (a->linear) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&a->pg->aux_tail, head, __ATOMIC_RELEASE);
	}
	return (long)n;
}

uint64_t ptd_perf_tsc_to_time(const volatile struct perf_event_mmap_page *pg, uint64_t tsc)
{
	uint64_t quot, rem, cyc = tsc;
	uint16_t shift;
	uint32_t mult;

	if (!pg || !pg->cap_user_time_zero)
		return 0;
	shift = pg->time_shift;
	mult = pg->time_mult;
	if (pg->cap_user_time_short)
		cyc = pg->time_cycles + ((cyc - pg->time_cycles) & pg->time_mask);
	quot = shift < 64 ? cyc >> shift : 0;
	rem = shift < 64 ? cyc & ((1ull << shift) - 1) : cyc;
	return pg->time_zero + quot * mult + ((rem * mult) >> shift);
}
