/*
 * Trace bundle reader and writer (format in bundle.h and docs/bundle.md).
 * The reader is a strict line parser: every field is checked for syntax and
 * range, every problem is reported with the manifest line number, and
 * nothing in a bundle can make it read outside the bundle directory except
 * an absolute map path, which names a file on purpose (an ELF on this
 * machine).  The writer writes every file under a temporary name, then
 * renames them, the manifest last, so a half-written bundle has no
 * manifest and a failed save leaves the directory as it was.
 */
#include "decode/bundle.h"

#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

#define MAX_RECORDS 65536
#define MAX_LINE 8192
#define MAX_PT_FILE (64ull << 30)

struct ptd_bundle_mem {
	uint64_t vaddr;
	uint8_t *bytes;
	size_t size;
	int vdso; /* the [vdso] (a perf.data describes it by name) */
};

/*
 * PT files are mapped (loading costs nothing until a segment is decoded),
 * and a mapping of a file that another process truncates raises SIGBUS
 * where the pages past the new end are touched: in the decoder, at any
 * time.  Each mapping is guarded: a SIGBUS handler, installed while any
 * guard is in use, replaces the mapping from the faulting page to its end
 * with zero pages (so the access completes; PT's PAD packet is 0x00), and
 * marks the guard, which ptd_bundle_check() reports.  A SIGBUS that is
 * not ours goes to the handler that was there before, or kills as usual.
 *
 * The handler reads the guard list without locks: guards are only ever
 * added (at the head, published with release ordering) and never freed;
 * a free one has lo == 0 and is reused.
 */
struct ptd_bundle_guard {
	_Atomic uintptr_t lo, hi; /* [lo, hi): the mapping, page-rounded; 0: free */
	atomic_int truncated;
	char *path;               /* for the message; owned while in use */
	struct ptd_bundle_guard *next;
};

static struct ptd_bundle_guard *_Atomic guards;
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guards_used;
static struct sigaction old_bus;
static uintptr_t page_size;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	struct ptd_bundle_guard *g;

	for (g = atomic_load_explicit(&guards, memory_order_acquire); g; g = g->next) {
		uintptr_t lo = atomic_load(&g->lo), hi = atomic_load(&g->hi);

		if (lo && a >= lo && a < hi) {
			uintptr_t page = a & ~(page_size - 1);

			if (mmap((void *)page, hi - page, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
				break;
			atomic_store(&g->truncated, 1);
			return;
		}
	}
	if ((old_bus.sa_flags & SA_SIGINFO) && old_bus.sa_sigaction) {
		old_bus.sa_sigaction(sig, si, uc);
		return;
	}
	if (!(old_bus.sa_flags & SA_SIGINFO) && old_bus.sa_handler != SIG_DFL &&
	    old_bus.sa_handler != SIG_IGN) {
		old_bus.sa_handler(sig);
		return;
	}
	/* The default action: a fault re-executes and dies of it; a sent
	 * signal is sent again. */
	signal(SIGBUS, SIG_DFL);
	if (si->si_code <= 0)
		raise(sig);
}

/* Guards [@p, @p + @size) of the file @path.  Returns the guard or NULL
 * (out of memory, or the handler could not be installed) with the message
 * set. */
static struct ptd_bundle_guard *guard_add(void *p, size_t size, const char *path)
{
	struct ptd_bundle_guard *g;
	char *copy = strdup(path);

	if (!copy) {
		ptd__err(-ptde_nomem, "out of memory mapping '%s'", path);
		return NULL;
	}
	pthread_mutex_lock(&guard_lock);
	if (!guards_used) {
		struct sigaction sa;

		page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &old_bus) < 0) {
			pthread_mutex_unlock(&guard_lock);
			ptd__err(-ptde_sys, "cannot install a SIGBUS handler: %s", strerror(errno));
			free(copy);
			return NULL;
		}
	}
	for (g = atomic_load(&guards); g; g = g->next)
		if (!atomic_load(&g->lo))
			break;
	if (!g) {
		g = calloc(1, sizeof(*g));
		if (!g) {
			if (!guards_used)
				sigaction(SIGBUS, &old_bus, NULL);
			pthread_mutex_unlock(&guard_lock);
			free(copy);
			ptd__err(-ptde_nomem, "out of memory mapping '%s'", path);
			return NULL;
		}
		g->next = atomic_load(&guards);
		atomic_store_explicit(&guards, g, memory_order_release);
	}
	g->path = copy;
	atomic_store(&g->truncated, 0);
	atomic_store(&g->hi, ((uintptr_t)p + size + page_size - 1) & ~(page_size - 1));
	atomic_store(&g->lo, (uintptr_t)p);
	guards_used++;
	pthread_mutex_unlock(&guard_lock);
	return g;
}

/* Before the mapping goes: the handler stops claiming its addresses. */
static void guard_remove(struct ptd_bundle_guard *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&guard_lock);
	atomic_store(&g->lo, 0);
	free(g->path);
	g->path = NULL;
	if (--guards_used == 0)
		sigaction(SIGBUS, &old_bus, NULL);
	pthread_mutex_unlock(&guard_lock);
}

struct ptd_bundle *ptd_bundle_new(const struct ptd_cpu *cpu)
{
	struct ptd_bundle *b = calloc(1, sizeof(*b));

	if (!b) {
		ptd__err(-ptde_nomem, "out of memory allocating a bundle");
		return NULL;
	}
	if (cpu)
		b->cpu = *cpu;
	return b;
}

void ptd_bundle_free(struct ptd_bundle *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nmaps; i++)
		free(b->maps[i].path);
	for (i = 0; i < b->nthreads; i++) {
		if (b->threads[i].mapped) {
			guard_remove(b->threads[i].guard);
			munmap(b->threads[i].pt, b->threads[i].size);
		} else {
			free(b->threads[i].pt);
		}
	}
	for (i = 0; i < b->nmems; i++)
		free(b->mems[i].bytes);
	free(b->maps);
	free(b->threads);
	free(b->mems);
	free(b);
}

static int grow(void **p, size_t n, size_t elem)
{
	/* Grows by doubling at powers of two; n is the current count. */
	if (n && (n & (n - 1)))
		return 0;
	{
		void *q = realloc(*p, (n ? n * 2 : 4) * elem);

		if (!q)
			return ptd__err(-ptde_nomem, "out of memory growing a bundle");
		*p = q;
	}
	return 0;
}

static int check_range(const char *what, uint64_t offset, uint64_t size, uint64_t vaddr)
{
	if (!size)
		return ptd__err(-ptde_invalid, "%s: zero size", what);
	if (vaddr + size < vaddr || offset + size < offset)
		return ptd__err(-ptde_invalid, "%s: range wraps around", what);
	return 0;
}

static int add_map_raw(struct ptd_bundle *b, const char *path, uint64_t offset, uint64_t size,
		       uint64_t vaddr)
{
	struct ptd_bundle_map *m;
	int err;

	if (!b || !path || !*path || strchr(path, '\n') || strchr(path, '\r'))
		return ptd__err(-ptde_invalid, "bundle map: bad or missing path");
	err = check_range("bundle map", offset, size, vaddr);
	if (err < 0)
		return err;
	if (b->nmaps >= MAX_RECORDS)
		return ptd__err(-ptde_invalid, "bundle map: too many mappings");
	err = grow((void **)&b->maps, b->nmaps, sizeof(*b->maps));
	if (err < 0)
		return err;
	m = &b->maps[b->nmaps];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return ptd__err(-ptde_nomem, "out of memory adding a bundle map");
	m->offset = offset;
	m->size = size;
	m->vaddr = vaddr;
	b->nmaps++;
	return 0;
}

int ptd_bundle_add_map(struct ptd_bundle *b, const char *path, uint64_t offset, uint64_t size,
		       uint64_t vaddr)
{
	char abs[PATH_MAX];

	/* A relative path would be read relative to the bundle directory;
	 * record where the file really is. */
	if (path && path[0] && path[0] != '/' && realpath(path, abs))
		path = abs;
	return add_map_raw(b, path, offset, size, vaddr);
}

int ptd_bundle_add_memory(struct ptd_bundle *b, uint64_t vaddr, const uint8_t *bytes, size_t size)
{
	return ptd_bundle_add_memory_named(b, vaddr, bytes, size, NULL);
}

int ptd_bundle_add_memory_named(struct ptd_bundle *b, uint64_t vaddr, const uint8_t *bytes,
				size_t size, const char *name)
{
	struct ptd_bundle_mem *m;
	char file[64];
	int err;

	if (!b || !bytes)
		return ptd__err(-ptde_invalid, "bundle memory: no bytes");
	err = check_range("bundle memory", 0, size, vaddr);
	if (err < 0)
		return err;
	err = grow((void **)&b->mems, b->nmems, sizeof(*b->mems));
	if (err < 0)
		return err;
	m = &b->mems[b->nmems];
	m->bytes = malloc(size);
	if (!m->bytes)
		return ptd__err(-ptde_nomem, "out of memory copying %zu bytes of code", size);
	memcpy(m->bytes, bytes, size);
	m->vaddr = vaddr;
	m->size = size;
	m->vdso = name && !strcmp(name, "[vdso]");
	b->nmems++;
	snprintf(file, sizeof(file), "mem-%" PRIx64 ".bin", vaddr);
	err = add_map_raw(b, file, 0, size, vaddr);
	if (err < 0) {
		free(m->bytes);
		b->nmems--;
	}
	return err;
}

int ptd_bundle_add_thread(struct ptd_bundle *b, int tid, const uint8_t *pt, size_t size,
			  uint64_t tail_pc)
{
	struct ptd_bundle_thread *t;
	size_t i;
	int err;

	if (!b || tid <= 0 || (!pt && size))
		return ptd__err(-ptde_invalid, "bundle thread: bad tid %d or no data", tid);
	for (i = 0; i < b->nthreads; i++)
		if (b->threads[i].tid == tid)
			return ptd__err(-ptde_invalid, "bundle thread: duplicate tid %d", tid);
	err = grow((void **)&b->threads, b->nthreads, sizeof(*b->threads));
	if (err < 0)
		return err;
	t = &b->threads[b->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tail_pc = tail_pc;
	t->size = size;
	if (size) {
		t->pt = malloc(size);
		if (!t->pt)
			return ptd__err(-ptde_nomem, "out of memory copying %zu bytes of PT", size);
		memcpy(t->pt, pt, size);
	}
	b->nthreads++;
	return 0;
}

/* ---- writer ------------------------------------------------------------- */

/* Writes @size bytes to @path; messages name @shown (the file it becomes). */
static int write_file(const char *path, const char *shown, const void *data, size_t size)
{
	const uint8_t *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return ptd__err(-ptde_sys, "cannot create '%s': %s", shown, strerror(errno));
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : ENOSPC;

			close(fd);
			return ptd__err(-ptde_sys, "cannot write '%s': %s", shown, strerror(e));
		}
		p += n;
		size -= (size_t)n;
	}
	if (close(fd) < 0)
		return ptd__err(-ptde_sys, "cannot write '%s': %s", shown, strerror(errno));
	return 0;
}

/* A file name of a bundle's own (pt-TID.bin, mem-ADDR.bin, manifest). */
#define NAME_MAX_LEN 48

/*
 * Every file is written under a temporary name first (NAME.tmp) and the
 * old bundle's manifest is removed only once all of them are there, so a
 * save that fails (a full disk, ulimit -f) leaves a bundle that was in
 * @dir as it was, and takes back what it wrote.  The renames then replace
 * the files (a loaded bundle's mapped files keep their old contents) and
 * the manifest comes last: a half-renamed bundle has none.
 */
int ptd_bundle_save(const struct ptd_bundle *b, const char *dir)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	char (*names)[NAME_MAX_LEN] = NULL;
	char *text = NULL;
	size_t tlen = 0, i, k, nnames = 0, nwritten = 0;
	FILE *f;
	int err = 0, created;

	if (!b || !dir || !*dir)
		return ptd__err(-ptde_invalid, "bundle save: no bundle or directory");
	if (strlen(dir) + NAME_MAX_LEN + 8 >= sizeof(path))
		return ptd__err(-ptde_invalid, "bundle save: directory name too long");
	created = mkdir(dir, 0755) == 0;
	if (!created && errno != EEXIST)
		return ptd__err(-ptde_sys, "cannot create directory '%s': %s", dir, strerror(errno));
	names = calloc(b->nthreads + b->nmems + 1, sizeof(*names));
	if (!names) {
		err = ptd__err(-ptde_nomem, "out of memory saving a bundle");
		goto out;
	}
	for (i = 0; i < b->nthreads; i++)
		snprintf(names[nnames++], NAME_MAX_LEN, "pt-%d.bin", b->threads[i].tid);
	for (i = 0; i < b->nmems; i++)
		snprintf(names[nnames++], NAME_MAX_LEN, "mem-%" PRIx64 ".bin", b->mems[i].vaddr);
	for (i = 0; i < nnames; i++) {
		const void *data;
		size_t size;

		if (i < b->nthreads) {
			data = b->threads[i].pt ? (const void *)b->threads[i].pt : "";
			size = b->threads[i].size;
		} else {
			data = b->mems[i - b->nthreads].bytes;
			size = b->mems[i - b->nthreads].size;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		nwritten = i + 1; /* a failed write may have left a part */
		err = write_file(tmp, path, data, size);
		if (err < 0)
			goto out;
	}
	f = open_memstream(&text, &tlen);
	if (!f) {
		err = ptd__err(-ptde_nomem, "out of memory writing a manifest");
		goto out;
	}
	fprintf(f, "ptdbg-bundle 1\n");
	fprintf(f, "# written by ptdbg; format: docs/bundle.md\n");
	if (b->cpu_vendor[0])
		fprintf(f, "cpu %u %u %u %s\n", b->cpu.family, b->cpu.model, b->cpu.stepping,
			b->cpu_vendor);
	else
		fprintf(f, "cpu %u %u %u\n", b->cpu.family, b->cpu.model, b->cpu.stepping);
	for (i = 0; i < b->nmaps; i++) {
		const struct ptd_bundle_map *m = &b->maps[i];
		const char *p = m->path;
		size_t dl = strlen(dir);

		/* Paths inside the bundle directory are written relative. */
		if (!strncmp(p, dir, dl) && p[dl] == '/')
			p += dl + 1;
		fprintf(f, "map 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", m->offset, m->size,
			m->vaddr, p);
		/* One identity line per file, after its first map line. */
		for (k = 0; k < i; k++)
			if (!strcmp(b->maps[k].path, m->path))
				break;
		if (k < i)
			continue;
		if (m->build_id_size) {
			fprintf(f, "build-id ");
			for (k = 0; k < m->build_id_size; k++)
				fprintf(f, "%02x", m->build_id[k]);
			fprintf(f, " %s\n", p);
		} else if (m->has_checksum) {
			fprintf(f, "checksum 0x%016" PRIx64 " %s\n", m->checksum, p);
		}
	}
	for (i = 0; i < b->nthreads; i++)
		fprintf(f, "thread %d pt-%d.bin 0x%" PRIx64 "\n", b->threads[i].tid,
			b->threads[i].tid, b->threads[i].tail_pc);
	if (fclose(f) != 0) {
		err = ptd__err(-ptde_nomem, "out of memory writing a manifest");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/manifest", dir);
	snprintf(tmp, sizeof(tmp), "%s/manifest.tmp", dir);
	err = write_file(tmp, path, text, tlen);
	if (err < 0)
		goto out;
	/* Everything is written: the old bundle, if any, goes now. */
	if (unlink(path) < 0 && errno != ENOENT) {
		err = ptd__err(-ptde_sys, "cannot replace '%s': %s", path, strerror(errno));
		goto out;
	}
	for (i = 0; i < nnames; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		if (rename(tmp, path) < 0) {
			err = ptd__err(-ptde_sys, "cannot rename '%s' to '%s': %s", tmp, path,
				       strerror(errno));
			goto out;
		}
	}
	snprintf(path, sizeof(path), "%s/manifest", dir);
	snprintf(tmp, sizeof(tmp), "%s/manifest.tmp", dir);
	if (rename(tmp, path) < 0)
		err = ptd__err(-ptde_sys, "cannot rename '%s' to '%s': %s", tmp, path,
			       strerror(errno));
out:
	if (err < 0) {
		/* take back what this save wrote (what is renamed already
		 * is no bundle without its manifest) */
		for (i = 0; i < nwritten; i++) {
			snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, names[i]);
			unlink(tmp);
		}
		snprintf(tmp, sizeof(tmp), "%s/manifest.tmp", dir);
		unlink(tmp);
		if (created)
			rmdir(dir);
	}
	free(text);
	free(names);
	return err;
}

/* ---- reader ------------------------------------------------------------- */

struct parser {
	const char *dir;
	const char *name; /* for messages: DIR/manifest */
	int line;
};

#define PERR(ps, fmt, ...) \
	ptd__err(-ptde_bad_trace, "%s:%d: " fmt, (ps)->name, (ps)->line, ##__VA_ARGS__)

static int parse_hex(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int nd = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (s += 2; *s; s++, nd++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -1;
		if (nd >= 16)
			return -1;
		x = (x << 4) | (uint64_t)d;
	}
	if (!nd)
		return -1;
	*v = x;
	return 0;
}

static int parse_dec(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s || strlen(s) > 19)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x > max)
		return -1;
	*v = x;
	return 0;
}

/* Splits @line at single blanks into at most @max tokens; the last token
 * takes the rest of the line when @rest is set.  Returns the count. */
static int split(char *line, char **tok, int max, int rest)
{
	int n = 0;
	char *p = line;

	while (*p && n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		tok[n++] = p;
		if (rest && n == max)
			break;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	return *p && !(rest && n == max) ? max + 1 : n;
}

/* A relative path may not climb out of the bundle directory. */
static int path_escapes(const char *p)
{
	const char *s = p;

	while (*s) {
		size_t len = strcspn(s, "/");

		if (len == 2 && s[0] == '.' && s[1] == '.')
			return 1;
		s += len;
		while (*s == '/')
			s++;
	}
	return 0;
}

static int resolve(struct parser *ps, const char *p, char *out, size_t n)
{
	int w;

	if (p[0] == '/')
		w = snprintf(out, n, "%s", p);
	else if (path_escapes(p))
		return PERR(ps, "path '%s' leaves the bundle directory", p);
	else
		w = snprintf(out, n, "%s/%s", ps->dir, p);
	if (w < 0 || (size_t)w >= n)
		return PERR(ps, "path too long");
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* build-id HEX PATH / checksum 0xHEX PATH: the identity of the file the
 * earlier map lines with that PATH name. */
static int parse_id(struct parser *ps, char **tok, int n, struct ptd_bundle *b)
{
	uint8_t id[PTD_BUILD_ID_MAX];
	size_t len, i, hits = 0;
	uint64_t sum = 0;
	char path[PATH_MAX];
	int is_sum = tok[0][0] == 'c', err;

	if (n != 3)
		return PERR(ps, "%s wants %s PATH", tok[0], is_sum ? "0xHEX" : "HEX");
	if (is_sum) {
		if (parse_hex(tok[1], &sum))
			return PERR(ps, "bad checksum '%.40s' (write 0x...)", tok[1]);
		len = 0;
	} else {
		len = strlen(tok[1]);
		if (!len || len % 2 || len / 2 > PTD_BUILD_ID_MAX)
			return PERR(ps, "bad build-id '%.60s' (2 to 40 hex digits)", tok[1]);
		for (i = 0; i < len / 2; i++) {
			int hi = hexval(tok[1][2 * i]), lo = hexval(tok[1][2 * i + 1]);

			if (hi < 0 || lo < 0)
				return PERR(ps, "bad build-id '%.60s' (2 to 40 hex digits)", tok[1]);
			id[i] = (uint8_t)(hi << 4 | lo);
		}
		len /= 2;
	}
	err = resolve(ps, tok[2], path, sizeof(path));
	if (err < 0)
		return err;
	for (i = 0; i < b->nmaps; i++) {
		struct ptd_bundle_map *m = &b->maps[i];

		if (strcmp(m->path, path))
			continue;
		hits++;
		m->build_id_size = (uint8_t)len;
		memcpy(m->build_id, id, len);
		m->has_checksum = (uint8_t)is_sum;
		m->checksum = sum;
	}
	if (!hits)
		return PERR(ps, "%s for '%.200s', which no earlier map line names", tok[0], tok[2]);
	return 0;
}

static int parse_line(struct parser *ps, char *line, struct ptd_bundle *b, int *have_cpu)
{
	char *tok[6], path[PATH_MAX];
	uint64_t v[3];
	int n, err, i;

	n = split(line, tok, 5, 1);
	if (!n)
		return 0;
	if (!strcmp(tok[0], "build-id") || !strcmp(tok[0], "checksum"))
		return parse_id(ps, tok, n, b);
	if (!strcmp(tok[0], "cpu")) {
		if (n != 4 && n != 5)
			return PERR(ps, "cpu wants FAMILY MODEL STEPPING [VENDOR]");
		if (n == 5) {
			size_t vl = strlen(tok[4]);

			/* cpuid vendor strings are 12 characters */
			if (vl != 12)
				return PERR(ps, "bad cpu vendor '%.40s' (the 12-character cpuid vendor string)",
					    tok[4]);
			memcpy(b->cpu_vendor, tok[4], vl + 1);
		}
		if (*have_cpu)
			return PERR(ps, "second cpu line");
		if (parse_dec(tok[1], 0xffff, &v[0]) || parse_dec(tok[2], 0xff, &v[1]) ||
		    parse_dec(tok[3], 0xff, &v[2]))
			return PERR(ps, "bad cpu '%s %s %s' (decimal family <= 65535, model and stepping <= 255)",
				    tok[1], tok[2], tok[3]);
		b->cpu.family = (uint16_t)v[0];
		b->cpu.model = (uint8_t)v[1];
		b->cpu.stepping = (uint8_t)v[2];
		*have_cpu = 1;
		return 0;
	}
	if (!strcmp(tok[0], "map")) {
		if (n != 5)
			return PERR(ps, "map wants OFFSET SIZE VADDR PATH");
		for (i = 0; i < 3; i++)
			if (parse_hex(tok[i + 1], &v[i]))
				return PERR(ps, "bad hex number '%s' (write 0x...)", tok[i + 1]);
		if (!v[1])
			return PERR(ps, "map of zero size");
		if (v[2] + v[1] < v[2] || v[0] + v[1] < v[0])
			return PERR(ps, "map range wraps around");
		err = resolve(ps, tok[4], path, sizeof(path));
		if (err < 0)
			return err;
		if (b->nmaps >= MAX_RECORDS)
			return PERR(ps, "too many map lines");
		err = add_map_raw(b, path, v[0], v[1], v[2]);
		if (err < 0) {
			char msg[256]; /* the message buffer is reused by PERR */

			snprintf(msg, sizeof(msg), "%s", ptd_last_error(err));
			return PERR(ps, "%s", msg);
		}
		return 0;
	}
	if (!strcmp(tok[0], "thread")) {
		struct ptd_bundle_thread *t;
		size_t k;

		if (n != 4)
			return PERR(ps, "thread wants TID FILE TAIL_PC");
		if (parse_dec(tok[1], INT_MAX, &v[0]) || !v[0])
			return PERR(ps, "bad thread id '%s'", tok[1]);
		if (parse_hex(tok[3], &v[1]))
			return PERR(ps, "bad tail pc '%s' (write 0x...)", tok[3]);
		if (tok[2][0] == '/')
			return PERR(ps, "thread file '%s' must be inside the bundle", tok[2]);
		err = resolve(ps, tok[2], path, sizeof(path));
		if (err < 0)
			return err;
		for (k = 0; k < b->nthreads; k++)
			if (b->threads[k].tid == (int)v[0])
				return PERR(ps, "duplicate thread %d", (int)v[0]);
		if (b->nthreads >= MAX_RECORDS)
			return PERR(ps, "too many thread lines");
		err = grow((void **)&b->threads, b->nthreads, sizeof(*b->threads));
		if (err < 0)
			return err;
		t = &b->threads[b->nthreads++];
		memset(t, 0, sizeof(*t));
		t->tid = (int)v[0];
		t->tail_pc = v[1];
		/* The file name is kept in pt until the file is read. */
		t->pt = (uint8_t *)strdup(path);
		if (!t->pt)
			return ptd__err(-ptde_nomem, "out of memory reading a manifest");
		return 0;
	}
	return PERR(ps, "unknown record '%.40s'", tok[0]);
}

static int parse_text(const char *text, size_t len, const char *dir, struct ptd_bundle **out)
{
	struct parser ps;
	struct ptd_bundle *b;
	char name[PATH_MAX], line[MAX_LINE];
	size_t pos = 0;
	int have_header = 0, have_cpu = 0, err = 0;

	*out = NULL;
	snprintf(name, sizeof(name), "%s/manifest", dir);
	ps.dir = dir;
	ps.name = name;
	ps.line = 0;
	b = ptd_bundle_new(NULL);
	if (!b)
		return -ptde_nomem;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;

		ps.line++;
		if (ll >= sizeof(line)) {
			err = PERR(&ps, "line longer than %d bytes", MAX_LINE - 1);
			goto fail;
		}
		memcpy(line, text + pos, ll);
		line[ll] = 0;
		pos += ll + (nl ? 1 : 0);
		if (ll && line[ll - 1] == '\r')
			line[--ll] = 0;
		while (ll && (line[ll - 1] == ' ' || line[ll - 1] == '\t'))
			line[--ll] = 0;
		if (strlen(line) != ll) {
			err = PERR(&ps, "NUL byte in the manifest");
			goto fail;
		}
		{
			char *p = line;

			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p || *p == '#')
				continue;
			if (!have_header) {
				if (strncmp(p, "ptdbg-bundle ", 13)) {
					err = PERR(&ps, "not a ptdbg bundle (first line must be 'ptdbg-bundle 1')");
					goto fail;
				}
				if (strcmp(p + 13, "1")) {
					err = PERR(&ps, "unsupported bundle version '%.20s' (this ptdbg reads 1)",
						   p + 13);
					goto fail;
				}
				have_header = 1;
				continue;
			}
			err = parse_line(&ps, p, b, &have_cpu);
			if (err < 0)
				goto fail;
		}
	}
	if (!have_header) {
		err = ptd__err(-ptde_bad_trace, "%s: empty manifest", name);
		goto fail;
	}
	if (!have_cpu) {
		err = ptd__err(-ptde_bad_trace, "%s: no cpu line", name);
		goto fail;
	}
	if (!b->nthreads) {
		err = ptd__err(-ptde_bad_trace, "%s: no thread line", name);
		goto fail;
	}
	*out = b;
	return 0;
fail:
	for (size_t i = 0; i < b->nthreads; i++) {
		free(b->threads[i].pt);
		b->threads[i].pt = NULL;
	}
	ptd_bundle_free(b);
	return err;
}

int ptd_bundle_parse(const char *text, size_t len, const char *dir, struct ptd_bundle **out)
{
	struct ptd_bundle *b;
	size_t i;
	int err;

	if (!out)
		return ptd__err(-ptde_invalid, "bundle parse: no output");
	*out = NULL;
	if (!text || !dir)
		return ptd__err(-ptde_invalid, "bundle parse: no text or directory");
	err = parse_text(text, len, dir, &b);
	if (err < 0)
		return err;
	for (i = 0; i < b->nthreads; i++) {
		free(b->threads[i].pt);
		b->threads[i].pt = NULL;
	}
	*out = b;
	return 0;
}

static int read_file(const char *path, uint64_t max, uint8_t **data, size_t *size)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd;

	*data = NULL;
	*size = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ptd__err(-ptde_sys, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ptd__err(-ptde_sys, "'%s' is not a regular file", path);
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return ptd__err(-ptde_bad_trace, "'%s' is too large (%lld bytes)", path,
				(long long)st.st_size);
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return ptd__err(-ptde_nomem, "out of memory reading '%s'", path);
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*data = buf;
	*size = got;
	return 0;
}

/* Maps a PT file read-only: pages come in as the decoder touches them, so
 * opening a large trace costs nothing until a segment is decoded.  Falls
 * back to reading it.  *mapped tells how to free it. */
static int map_file(const char *path, uint64_t max, uint8_t **data, size_t *size, int *mapped,
		    struct ptd_bundle_guard **guard)
{
	struct stat st;
	void *p;
	int fd;

	*mapped = 0;
	*guard = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ptd__err(-ptde_sys, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    (uint64_t)st.st_size > max) {
		close(fd);
		return read_file(path, max, data, size);
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return read_file(path, max, data, size);
	*guard = guard_add(p, (size_t)st.st_size, path);
	if (!*guard) {
		munmap(p, (size_t)st.st_size);
		return -ptde_nomem;
	}
	*data = p;
	*size = (size_t)st.st_size;
	*mapped = 1;
	return 0;
}

int ptd_bundle_load(const char *dir, struct ptd_bundle **out)
{
	char path[PATH_MAX];
	uint8_t *text;
	size_t len, i;
	struct ptd_bundle *b;
	int err;

	if (!out)
		return ptd__err(-ptde_invalid, "bundle load: no output");
	*out = NULL;
	if (!dir || !*dir)
		return ptd__err(-ptde_invalid, "bundle load: no directory");
	snprintf(path, sizeof(path), "%s/manifest", dir);
	err = read_file(path, 64 << 20, &text, &len);
	if (err < 0)
		return err;
	err = parse_text((const char *)text, len, dir, &b);
	free(text);
	if (err < 0)
		return err;
	for (i = 0; i < b->nthreads; i++) {
		char *name = (char *)b->threads[i].pt;
		uint8_t *data;
		size_t size;

		int mapped = 0;
		struct ptd_bundle_guard *guard = NULL;

		err = map_file(name, MAX_PT_FILE, &data, &size, &mapped, &guard);
		free(name);
		b->threads[i].pt = NULL;
		if (err < 0) {
			for (i++; i < b->nthreads; i++) {
				free(b->threads[i].pt);
				b->threads[i].pt = NULL;
			}
			ptd_bundle_free(b);
			return err;
		}
		b->threads[i].pt = data;
		b->threads[i].size = size;
		b->threads[i].mapped = mapped;
		b->threads[i].guard = guard;
	}
	*out = b;
	return 0;
}

struct ptd_image *ptd_bundle_image(const struct ptd_bundle *b, ptd_read_fn read, void *ctx)
{
	struct ptd_image *img;
	size_t i;

	if (!b) {
		ptd__err(-ptde_invalid, "bundle image: no bundle");
		return NULL;
	}
	if (ptd_bundle_check_files(b) < 0)
		return NULL;
	img = ptd_image_alloc(read, ctx);
	if (!img)
		return NULL;
	for (i = 0; i < b->nmaps; i++) {
		const struct ptd_bundle_map *m = &b->maps[i];

		if (ptd_image_add_file(img, m->path, m->offset, m->size, m->vaddr) < 0) {
			ptd_image_free(img);
			return NULL;
		}
	}
	/* Errata are Intel's; an unknown cpu only loses their workarounds,
	 * which is not an error. */
	if (b->cpu.family && (!b->cpu_vendor[0] || !strcmp(b->cpu_vendor, "GenuineIntel"))) {
		if (ptd_image_set_cpu(img, &b->cpu) < 0)
			ptd_clear_error();
	}
	return img;
}

/* ---- identities: cpu, build-ids, checksums --------------------------------- */

void ptd_bundle_host_cpu(struct ptd_cpu *cpu, char vendor[16])
{
	unsigned int a = 0, bx = 0, c = 0, d = 0, fam, model;

	memset(cpu, 0, sizeof(*cpu));
	memset(vendor, 0, 16);
	if (!__get_cpuid(0, &a, &bx, &c, &d))
		return;
	memcpy(vendor, &bx, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	/* one word in a manifest ("  Shanghai  " has blanks) */
	for (int i = 0; i < 12; i++)
		if (vendor[i] == ' ' || vendor[i] == '\t' || !vendor[i])
			vendor[i] = '_';
	if (!__get_cpuid(1, &a, &bx, &c, &d))
		return;
	/* The display family and model, as /proc/cpuinfo and perf show them. */
	fam = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (fam == 0xf)
		fam += (a >> 20) & 0xff;
	if (fam == 0x6 || fam >= 0xf)
		model += ((a >> 16) & 0xf) << 4;
	cpu->family = (uint16_t)fam;
	cpu->model = (uint8_t)model;
	cpu->stepping = (uint8_t)(a & 0xf);
}

/* Reads exactly @n bytes at @off of a file (@ctx: the fd); 0 or -1. */
static int pread_all(const void *ctx, void *buf, size_t n, uint64_t off)
{
	int fd = *(const int *)ctx;
	uint8_t *p = buf;

	while (n) {
		ssize_t k = pread(fd, p, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* The NT_GNU_BUILD_ID note of a little-endian ELF file (32 or 64 bit),
 * from its PT_NOTE segments.  The file is untrusted: every size is
 * bounded.  Returns the id's size, 0 if there is none. */
struct membuf {
	const uint8_t *p;
	size_t n;
};

/* The same from memory (@ctx: a struct membuf). */
static int mem_read(const void *ctx, void *buf, size_t n, uint64_t off)
{
	const struct membuf *m = ctx;

	if (off > m->n || n > m->n - off)
		return -1;
	memcpy(buf, m->p + off, n);
	return 0;
}

static size_t elf_build_id(int (*rd)(const void *, void *, size_t, uint64_t), const void *fd,
			   uint8_t id[PTD_BUILD_ID_MAX])
{
	uint8_t eh[64], ph[56], notes[65536];
	uint64_t phoff;
	unsigned phentsize, phnum, i;
	int is64;

	if (rd(fd, eh, sizeof(eh), 0) < 0 || memcmp(eh, "\177ELF", 4) || eh[5] != 1)
		return 0;
	is64 = eh[4] == 2;
	if (!is64 && eh[4] != 1)
		return 0;
	if (is64) {
		memcpy(&phoff, eh + 32, 8);
		phentsize = (unsigned)(eh[54] | eh[55] << 8);
		phnum = (unsigned)(eh[56] | eh[57] << 8);
	} else {
		uint32_t o;

		memcpy(&o, eh + 28, 4);
		phoff = o;
		phentsize = (unsigned)(eh[42] | eh[43] << 8);
		phnum = (unsigned)(eh[44] | eh[45] << 8);
	}
	if (phentsize < (is64 ? 56u : 32u) || phnum > 4096)
		return 0;
	for (i = 0; i < phnum; i++) {
		uint32_t type;
		uint64_t off, size, align, pos;

		if (rd(fd, ph, is64 ? 56 : 32, phoff + (uint64_t)i * phentsize) < 0)
			return 0;
		memcpy(&type, ph, 4);
		if (type != 4 /* PT_NOTE */)
			continue;
		if (is64) {
			memcpy(&off, ph + 8, 8);
			memcpy(&size, ph + 32, 8);
			memcpy(&align, ph + 48, 8);
		} else {
			uint32_t o, sz, al;

			memcpy(&o, ph + 4, 4);
			memcpy(&sz, ph + 16, 4);
			memcpy(&al, ph + 28, 4);
			off = o;
			size = sz;
			align = al;
		}
		align = align == 8 ? 8 : 4;
		if (size > sizeof(notes))
			size = sizeof(notes);
		if (rd(fd, notes, (size_t)size, off) < 0)
			continue;
		for (pos = 0; pos + 12 <= size;) {
			uint32_t namesz, descsz, ntype;
			uint64_t name, desc, next;

			memcpy(&namesz, notes + pos, 4);
			memcpy(&descsz, notes + pos + 4, 4);
			memcpy(&ntype, notes + pos + 8, 4);
			name = pos + 12;
			desc = name + ((namesz + align - 1) & ~(align - 1));
			next = desc + ((descsz + align - 1) & ~(align - 1));
			if (desc > size || next > size || next <= pos)
				break;
			if (ntype == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(notes + name, "GNU", 4) &&
			    descsz && descsz <= PTD_BUILD_ID_MAX) {
				memcpy(id, notes + desc, descsz);
				return descsz;
			}
			pos = next;
		}
	}
	return 0;
}

int ptd_bundle_file_id(const char *path, uint8_t id[PTD_BUILD_ID_MAX], uint8_t *id_size,
		       uint64_t *checksum)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint8_t buf[65536];
	int fd;

	*id_size = 0;
	*checksum = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ptd__err(-ptde_sys, "cannot open '%s': %s", path, strerror(errno));
	*id_size = (uint8_t)elf_build_id(pread_all, &fd, id);
	if (*id_size) {
		close(fd);
		return 0;
	}
	/* No build-id: FNV-1a 64 over the whole file. */
	if (lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return ptd__err(-ptde_sys, "cannot read '%s': %s", path, strerror(errno));
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e2 = errno;

			close(fd);
			return ptd__err(-ptde_sys, "cannot read '%s': %s", path, strerror(e2));
		}
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			h ^= buf[i];
			h *= 0x100000001b3ull;
		}
	}
	close(fd);
	*checksum = h;
	return 0;
}

int ptd_bundle_identify(struct ptd_bundle *b)
{
	size_t i, j;

	if (!b)
		return ptd__err(-ptde_invalid, "bundle identify: no bundle");
	for (i = 0; i < b->nmaps; i++) {
		struct ptd_bundle_map *m = &b->maps[i];
		uint64_t sum;
		int err;

		if (m->path[0] != '/' || m->build_id_size || m->has_checksum)
			continue; /* a dump inside the bundle, or known */
		for (j = 0; j < i; j++)
			if (!strcmp(b->maps[j].path, m->path))
				break;
		if (j < i) {
			memcpy(m->build_id, b->maps[j].build_id, sizeof(m->build_id));
			m->build_id_size = b->maps[j].build_id_size;
			m->has_checksum = b->maps[j].has_checksum;
			m->checksum = b->maps[j].checksum;
			continue;
		}
		err = ptd_bundle_file_id(m->path, m->build_id, &m->build_id_size, &sum);
		if (err < 0)
			return err;
		if (!m->build_id_size) {
			m->has_checksum = 1;
			m->checksum = sum;
		}
	}
	return 0;
}

static void hex_id(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

int ptd_bundle_check_files(const struct ptd_bundle *b)
{
	size_t i, j;

	if (!b)
		return ptd__err(-ptde_invalid, "bundle check: no bundle");
	for (i = 0; i < b->nmaps; i++) {
		const struct ptd_bundle_map *m = &b->maps[i];
		uint8_t id[PTD_BUILD_ID_MAX];
		uint8_t n;
		uint64_t sum;
		char want[2 * PTD_BUILD_ID_MAX + 1], got[2 * PTD_BUILD_ID_MAX + 1];

		if (!m->build_id_size && !m->has_checksum)
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(b->maps[j].path, m->path))
				break;
		if (j < i)
			continue; /* checked with its first map */
		if (ptd_bundle_file_id(m->path, id, &n, &sum) < 0)
			return ptd__err(-ptde_notfound, "%s (the trace runs code from it)",
					ptd_last_error(-ptde_sys));
		if (m->build_id_size) {
			if (n == m->build_id_size && !memcmp(id, m->build_id, n))
				continue;
			hex_id(want, m->build_id, m->build_id_size);
			if (n)
				hex_id(got, id, n);
			else
				snprintf(got, sizeof(got), "none");
			return ptd__err(-ptde_notfound,
					"'%s' is not the file that was recorded (its build-id is %s, the trace wants %s)",
					m->path, got, want);
		}
		if (n || sum != m->checksum)
			return ptd__err(-ptde_notfound,
					"'%s' is not the file that was recorded (its checksum is 0x%016" PRIx64
					", the trace wants 0x%016" PRIx64 ")",
					m->path, sum, m->checksum);
	}
	return 0;
}

size_t ptd_bundle_nmemory(const struct ptd_bundle *b)
{
	return b ? b->nmems : 0;
}

int ptd_bundle_memory(const struct ptd_bundle *b, size_t i, uint64_t *vaddr, const uint8_t **bytes,
		      size_t *size, int *vdso)
{
	if (!b || i >= b->nmems)
		return ptd__err(-ptde_invalid, "bundle memory: no dump %zu", i);
	*vaddr = b->mems[i].vaddr;
	*bytes = b->mems[i].bytes;
	*size = b->mems[i].size;
	*vdso = b->mems[i].vdso;
	return 0;
}

size_t ptd_bundle_mem_build_id(const uint8_t *bytes, size_t size, uint8_t id[PTD_BUILD_ID_MAX])
{
	struct membuf m = { bytes, size };

	return bytes ? elf_build_id(mem_read, &m, id) : 0;
}

int ptd_bundle_check(const struct ptd_bundle *b)
{
	size_t i;

	if (!b)
		return 0;
	for (i = 0; i < b->nthreads; i++) {
		const struct ptd_bundle_guard *g = b->threads[i].guard;

		if (g && atomic_load(&g->truncated))
			return ptd__err(-ptde_bad_trace,
					"the trace file '%s' was truncated while loaded: "
					"what it held past its new end is lost (read as zeros)",
					g->path);
	}
	return 0;
}
