/*
 * Process image for the PT decoder (see image.h): a libipt image-section
 * cache for file-backed code, a callback for everything else, the mapping
 * list for bundles, and the recorded cpu's errata.  Sections are added in
 * order; a later mapping at an overlapping address replaces the earlier one
 * in libipt's image, and ptd_image_read searches newest first to agree.
 */
#include "decode/image.h"

#include <errno.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

struct map {
	struct ptd_image_map pub;
	int isid;
};

struct ptd_image {
	struct pt_image_section_cache *iscache;
	struct pt_image *image;
	ptd_read_fn read;
	void *ctx;
	struct map *maps;
	size_t nmaps, cap;
	struct ptd_cpu cpu;
	struct pt_errata errata;
	uint64_t gen; /* bumped by every mapping added (see ptd_image_generation) */
};

static int read_cb(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip, void *context)
{
	struct ptd_image *img = context;
	int n;

	(void)asid;
	if (!img->read)
		return -pte_nomap;
	n = img->read(img->ctx, ip, buffer, size);
	if (n <= 0)
		return -pte_nomap;
	return n;
}

struct ptd_image *ptd_image_alloc(ptd_read_fn read, void *ctx)
{
	struct ptd_image *img = calloc(1, sizeof(*img));

	if (!img)
		goto nomem;
	img->read = read;
	img->ctx = ctx;
	img->iscache = pt_iscache_alloc("ptdbg");
	img->image = pt_image_alloc("ptdbg");
	if (!img->iscache || !img->image)
		goto nomem;
	if (pt_image_set_callback(img->image, read_cb, img) < 0)
		goto nomem;
	return img;
nomem:
	ptd_image_free(img);
	ptd__err(-ptde_nomem, "out of memory allocating a process image");
	return NULL;
}

void ptd_image_free(struct ptd_image *img)
{
	size_t i;

	if (!img)
		return;
	pt_image_free(img->image);
	pt_iscache_free(img->iscache);
	for (i = 0; i < img->nmaps; i++)
		free((char *)img->maps[i].pub.path);
	free(img->maps);
	free(img);
}

int ptd_image_add_file(struct ptd_image *img, const char *path, uint64_t offset, uint64_t size,
		       uint64_t vaddr)
{
	struct map *m;
	int isid, err;
	char *copy;

	if (!img || !path || !*path || !size)
		return ptd__err(-ptde_invalid, "cannot add a mapping: %s",
				!size ? "zero size" : "no file name");
	if (vaddr + size < vaddr || offset + size < offset)
		return ptd__err(-ptde_invalid, "cannot add '%s' at 0x%" PRIx64 ": size 0x%" PRIx64 " wraps around",
				path, vaddr, size);
	if (access(path, R_OK) != 0)
		return ptd__err(-ptde_sys, "cannot read '%s': %s", path, strerror(errno));
	isid = pt_iscache_add_file(img->iscache, path, offset, size, vaddr);
	if (isid < 0)
		return ptd__err(-ptde_sys, "cannot add '%s' (offset 0x%" PRIx64 ") at 0x%" PRIx64 ": %s",
				path, offset, vaddr, pt_errstr(pt_errcode(isid)));
	err = pt_image_add_cached(img->image, img->iscache, isid, NULL);
	if (err < 0)
		return ptd__err(-ptde_sys, "cannot map '%s' at 0x%" PRIx64 ": %s", path, vaddr,
				pt_errstr(pt_errcode(err)));
	if (img->nmaps == img->cap) {
		size_t cap = img->cap ? img->cap * 2 : 16;
		struct map *p = realloc(img->maps, cap * sizeof(*p));

		if (!p)
			return ptd__err(-ptde_nomem, "out of memory adding a mapping");
		img->maps = p;
		img->cap = cap;
	}
	copy = strdup(path);
	if (!copy)
		return ptd__err(-ptde_nomem, "out of memory adding a mapping");
	m = &img->maps[img->nmaps++];
	img->gen++;
	m->pub.path = copy;
	m->pub.offset = offset;
	m->pub.size = size;
	m->pub.vaddr = vaddr;
	m->isid = isid;
	return 0;
}

/* Parses one /proc/PID/maps line; returns 1 for an executable file mapping,
 * 0 for a line to skip, <0 when malformed. */
static int parse_maps_line(const char *line, uint64_t *start, uint64_t *end, uint64_t *off,
			   char *perms, char *path, size_t pathsz)
{
	unsigned long long s, e, o;
	unsigned long inode;
	int n = 0;
	const char *p;
	size_t len;

	if (sscanf(line, "%llx-%llx %4s %llx %*x:%*x %lu %n", &s, &e, perms, &o, &inode, &n) < 5 || !n)
		return -1;
	if (e <= s)
		return -1;
	*start = s;
	*end = e;
	*off = o;
	p = line + n;
	while (*p == ' ')
		p++;
	len = strcspn(p, "\n");
	if (len >= pathsz)
		return 0;
	memcpy(path, p, len);
	path[len] = 0;
	if (perms[2] != 'x' || !inode || path[0] != '/')
		return 0;
	if (len > 10 && !strcmp(path + len - 10, " (deleted)"))
		return 0;
	return 1;
}

/*
 * Calls @fn for every line of the /proc/PID/maps text @maps with its
 * parsed fields; @file is parse_maps_line()'s verdict (1: an executable
 * file mapping).  Stops at a negative return of @fn.  Returns 0, or
 * -ptde_bad_trace for a malformed or overlong line (the message quotes it).
 */
static int foreach_maps_line(const char *maps,
			     int (*fn)(void *ctx, uint64_t s, uint64_t e, uint64_t o,
				       const char *perms, const char *path, int file),
			     void *ctx)
{
	const char *line = maps;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[4608], perms[8], path[4096];
		uint64_t s, e, o;
		int r;

		if (len == 0) {
			line += 1;
			continue;
		}
		if (len >= sizeof(buf))
			return ptd__err(-ptde_bad_trace, "maps line too long: '%.60s...'", line);
		memcpy(buf, line, len);
		buf[len] = 0;
		path[0] = 0;
		r = parse_maps_line(buf, &s, &e, &o, perms, path, sizeof(path));
		if (r < 0)
			return ptd__err(-ptde_bad_trace, "malformed maps line: '%s'", buf);
		r = fn(ctx, s, e, o, perms, path, r);
		if (r < 0)
			return r;
		line += len + (nl ? 1 : 0);
	}
	return 0;
}

struct add_ctx {
	struct ptd_image *img;
	int added;
};

static int add_file_line(void *ctx, uint64_t s, uint64_t e, uint64_t o, const char *perms,
			 const char *path, int file)
{
	struct add_ctx *a = ctx;

	if (file > 0 && ptd_image_add_file(a->img, path, o, e - s, s) == 0)
		a->added++;
	return 0;
}

int ptd_image_add_maps_text(struct ptd_image *img, const char *maps)
{
	struct add_ctx a = { img, 0 };
	int rc;

	if (!img || !maps)
		return ptd__err(-ptde_invalid, "no image or maps text");
	rc = foreach_maps_line(maps, add_file_line, &a);
	if (rc < 0)
		return rc;
	ptd_clear_error();
	return a.added;
}

struct anon_ctx {
	int (*fn)(void *ctx, uint64_t start, uint64_t end, const char *name);
	void *ctx;
	int calls;
};

static int anon_line(void *ctx, uint64_t s, uint64_t e, uint64_t o, const char *perms,
		     const char *path, int file)
{
	struct anon_ctx *a = ctx;
	int r;

	if (file != 0 || perms[2] != 'x')
		return 0;
	r = a->fn(a->ctx, s, e, path);
	if (r < 0)
		return r;
	a->calls++;
	return 0;
}

int ptd_image_foreach_anon(const char *maps,
			   int (*fn)(void *ctx, uint64_t start, uint64_t end, const char *name),
			   void *ctx)
{
	struct anon_ctx a = { fn, ctx, 0 };
	int rc;

	if (!maps || !fn)
		return ptd__err(-ptde_invalid, "no maps text or callback");
	rc = foreach_maps_line(maps, anon_line, &a);
	return rc < 0 ? rc : a.calls;
}

int ptd_image_add_maps(struct ptd_image *img, pid_t pid)
{
	char name[64], *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int r;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return ptd__err(-ptde_sys, "cannot open %s: %s", name, strerror(errno));
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > cap) {
			char *p;

			cap = cap ? cap * 2 : 16384;
			p = realloc(text, cap);
			if (!p) {
				free(text);
				fclose(f);
				return ptd__err(-ptde_nomem, "out of memory reading %s", name);
			}
			text = p;
		}
		n = fread(text + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	fclose(f);
	text[len] = 0;
	r = ptd_image_add_maps_text(img, text);
	free(text);
	return r;
}

int ptd_cpu_errata(const struct ptd_cpu *cpu, struct pt_errata *errata)
{
	struct pt_errata scratch;
	struct pt_cpu pc;

	memset(&pc, 0, sizeof(pc));
	pc.vendor = pcv_intel;
	pc.family = cpu->family;
	pc.model = cpu->model;
	pc.stepping = cpu->stepping;
	return pt_cpu_errata(errata ? errata : &scratch, &pc);
}

int ptd_image_set_cpu(struct ptd_image *img, const struct ptd_cpu *cpu)
{
	int err;

	if (!img || !cpu)
		return ptd__err(-ptde_invalid, "no image or cpu");
	img->cpu = *cpu;
	memset(&img->errata, 0, sizeof(img->errata));
	if (!cpu->family)
		return 0;
	err = ptd_cpu_errata(cpu, &img->errata);
	if (err < 0) {
		memset(&img->errata, 0, sizeof(img->errata));
		return ptd__err(-ptde_unsupported, "libipt does not know cpu %u/0x%x/%u: %s",
				cpu->family, cpu->model, cpu->stepping, pt_errstr(pt_errcode(err)));
	}
	return 0;
}

void ptd_image_get_cpu(const struct ptd_image *img, struct ptd_cpu *cpu)
{
	if (img)
		*cpu = img->cpu;
	else
		memset(cpu, 0, sizeof(*cpu));
}

void ptd_image_errata(const struct ptd_image *img, struct pt_errata *errata)
{
	if (img)
		*errata = img->errata;
	else
		memset(errata, 0, sizeof(*errata));
}

/* Bytes at @addr from the one map (or the callback) that serves it. */
static int read_one(struct ptd_image *img, uint64_t addr, uint8_t *buf, size_t n)
{
	size_t i;

	for (i = img->nmaps; i-- > 0;) {
		const struct map *m = &img->maps[i];
		int r;

		if (addr < m->pub.vaddr || addr - m->pub.vaddr >= m->pub.size)
			continue;
		if (n > m->pub.size - (addr - m->pub.vaddr))
			n = m->pub.size - (addr - m->pub.vaddr);
		r = pt_iscache_read(img->iscache, buf, n, m->isid, addr);
		if (r > 0)
			return r;
		break;
	}
	if (img->read) {
		int r = img->read(img->ctx, addr, buf, n);

		if (r > 0)
			return r;
	}
	return -ptde_nomap;
}

int ptd_image_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct ptd_image *img = ctx;
	size_t done = 0;

	if (!img || !buf)
		return -ptde_invalid;
	/* An instruction may straddle two mappings (its bytes in two map
	 * records): go on in the next one, as libipt's decoder does, so
	 * every reader sees the same instruction. */
	while (done < n && addr + done >= addr) {
		int r = read_one(img, addr + done, buf + done, n - done);

		if (r <= 0)
			break;
		done += (size_t)r;
	}
	return done ? (int)done : -ptde_nomap;
}

uint64_t ptd_image_generation(const struct ptd_image *img)
{
	return img ? img->gen : 0;
}

struct pt_image *ptd_image_pt(struct ptd_image *img)
{
	return img ? img->image : NULL;
}

struct pt_image *ptd_image_pt_copy(struct ptd_image *img)
{
	struct pt_image *copy;
	size_t i;

	if (!img)
		return NULL;
	copy = pt_image_alloc("ptdbg-worker");
	if (!copy)
		return NULL;
	/* Fresh sections rather than the shared cached ones: libipt keeps
	 * its block cache in the section, and two threads writing the same
	 * cache lines run slower than one. */
	for (i = 0; i < img->nmaps; i++) {
		const struct map *m = &img->maps[i];

		if (pt_image_add_file(copy, m->pub.path, m->pub.offset, m->pub.size, NULL,
				      m->pub.vaddr) < 0) {
			pt_image_free(copy);
			return NULL;
		}
	}
	if (pt_image_set_callback(copy, read_cb, img) < 0) {
		pt_image_free(copy);
		return NULL;
	}
	return copy;
}

size_t ptd_image_nmaps(const struct ptd_image *img)
{
	return img ? img->nmaps : 0;
}

const struct ptd_image_map *ptd_image_map(const struct ptd_image *img, size_t i)
{
	if (!img || i >= img->nmaps)
		return NULL;
	return &img->maps[i].pub;
}
