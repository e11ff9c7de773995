/*
 * The pt recorder's address filters resolved for the kernel (ptfilter.h):
 * a function to its offset and size in the file it is mapped from (the
 * kernel applies a file filter to every mapping of that file), a file to
 * all of it, START/SIZE@FILE as given.  Done when recording starts, so a
 * filter set before `run` follows where the program is loaded.
 */
#include "session/ptfilter.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbols/symbols.h"
#include "util/error.h"

static int parse_num(const char *s, unsigned long long *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	return (int)(end - s);
}

int ptd__pt_filter_range(const char *spec, unsigned long long *start,
			     unsigned long long *size, const char **file)
{
	const char *p = spec, *slash, *at;
	int k;

	slash = strchr(spec, '/');
	at = strchr(spec, '@');
	/* START/SIZE@FILE starts with a number and has both separators in
	 * that order; a path or a function name does not start with a digit. */
	if (!isdigit((unsigned char)*spec) || !slash || !at || at < slash)
		return 0;
	k = parse_num(p, start);
	if (k < 0 || p + k != slash)
		goto bad;
	p = slash + 1;
	k = parse_num(p, size);
	if (k < 0 || p + k != at || !*size)
		goto bad;
	if (!at[1])
		goto bad;
	if (*start + *size < *start)
		goto bad;
	*file = at + 1;
	return 1;
bad:
	return ptd__err(-ptde_invalid,
			"invalid pt filter \"%s\": START/SIZE@FILE wants two numbers (SIZE not 0) "
			"and a file, as in 0x1000/0x200@/usr/bin/prog",
			spec);
}

/* The mapping of @path (its real path) that holds @addr, from
 * /proc/@pid/maps: *@off gets @addr's offset in the file. */
static int file_offset(pid_t pid, uint64_t addr, const char *path, uint64_t *off)
{
	char name[64], line[PATH_MAX + 128];
	FILE *f;
	int found = 0;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return ptd__err(-ptde_nosrch, "cannot read %s: %s", name, strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, pgoff;
		char perms[8];
		int pos = 0;
		const char *p;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perms, &pgoff, &pos) < 4 ||
		    !pos)
			continue;
		p = line + pos;
		while (*p == ' ')
			p++;
		if (addr < lo || addr >= hi)
			continue;
		if (strncmp(p, path, strlen(path)) || (p[strlen(path)] != '\n' && p[strlen(path)]))
			continue;
		*off = addr - lo + pgoff;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -ptde_notfound;
}

int ptd__pt_filter_resolve(const char *spec, pid_t pid, struct ptd_symbols *sym, char *out,
			       size_t n)
{
	unsigned long long start, size;
	const char *file, *at;
	char func[256], real[PATH_MAX];
	struct stat st;
	uint64_t entry, bp, off = 0;
	struct ptd_symbol ps;
	int rc;

	rc = ptd__pt_filter_range(spec, &start, &size, &file);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		if (!realpath(file, real))
			return ptd__err(-ptde_notfound, "cannot use the pt filter \"%s\": %s: %s", spec,
					file, strerror(errno));
		snprintf(out, n, "filter 0x%llx/0x%llx@%s", start, size, real);
		return 0;
	}
	/* A file: the whole of it (FUNC@FILE has no '/' before its '@'). */
	at = strchr(spec, '@');
	if ((!at || memchr(spec, '/', (size_t)(at - spec))) &&
	    (strchr(spec, '/') || (stat(spec, &st) == 0 && S_ISREG(st.st_mode)))) {
		if (stat(spec, &st) < 0 || !S_ISREG(st.st_mode) || !realpath(spec, real))
			return ptd__err(-ptde_notfound, "cannot use the pt filter \"%s\": no such file",
					spec);
		if (!st.st_size)
			return ptd__err(-ptde_invalid, "cannot use the pt filter \"%s\": the file is "
						       "empty", spec);
		snprintf(out, n, "filter 0x0/0x%llx@%s", (unsigned long long)st.st_size, real);
		return 0;
	}
	/* FUNC or FUNC@FILE: its code as the process maps it now. */
	snprintf(func, sizeof(func), "%.*s", at ? (int)(at - spec) : (int)strlen(spec), spec);
	if (!sym || pid <= 0)
		return ptd__err(-ptde_not_running, "cannot resolve the pt filter \"%s\": the program "
						   "is not running", spec);
	if (ptd_symbols_function(sym, func, &entry, &bp) < 0 ||
	    ptd_symbols_lookup(sym, entry, &ps) < 0 || !ps.module)
		return ptd__err(-ptde_notfound, "cannot use the pt filter \"%s\": no function \"%s\"",
				spec, func);
	if (!realpath(ps.module, real))
		snprintf(real, sizeof(real), "%s", ps.module);
	if (at) {
		char want[PATH_MAX];
		const char *base = strrchr(real, '/');

		/* FILE may be the module's path or its base name */
		if (strcmp(at + 1, base ? base + 1 : real) &&
		    (!realpath(at + 1, want) || strcmp(want, real)))
			return ptd__err(-ptde_notfound, "cannot use the pt filter \"%s\": \"%s\" is in "
							"%s", spec, func, real);
	}
	if (file_offset(pid, entry, real, &off) < 0)
		return ptd__err(-ptde_notfound, "cannot use the pt filter \"%s\": %s is not mapped "
						"from %s", spec, func, real);
	snprintf(out, n, "filter 0x%" PRIx64 "/0x%" PRIx64 "@%s", off, ps.size ? ps.size : 1,
		 real);
	return 0;
}

void ptd__pt_config_fini(struct ptd_ptrec_config *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nfilters; i++)
		free(c->filters[i]);
	memset(c->filters, 0, sizeof(c->filters));
	c->nfilters = 0;
}

int ptd__pt_config_resolve(const struct ptd_ptrec_config *in, pid_t pid, struct ptd_symbols *sym,
			   struct ptd_ptrec_config *out)
{
	char buf[PATH_MAX + 64];
	int rc;

	*out = *in;
	memset(out->filters, 0, sizeof(out->filters));
	out->nfilters = 0;
	for (int i = 0; i < in->nfilters && i < PTD_PT_FILTERS_MAX; i++) {
		rc = ptd__pt_filter_resolve(in->filters[i], pid, sym, buf, sizeof(buf));
		if (rc < 0)
			goto fail;
		out->filters[i] = strdup(buf);
		if (!out->filters[i]) {
			rc = ptd__err(-ptde_nomem, "out of memory");
			goto fail;
		}
		out->nfilters++;
	}
	return 0;
fail:
	ptd__pt_config_fini(out);
	return rc;
}
