/*
 * The session's settings of the pt and bts recorders (record_options.h):
 * stored until the next recording, shown back by name, and the pt
 * filters resolved when a recording starts.  Parsing and checking is
 * src/record/recopts.c's, so every front end refuses the same values with
 * the same words.
 */
#include "session/record_options.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/recopts.h"
#include "session/session.h"
#include "symbols/symbols.h"
#include "util/error.h"

void ptd__record_options_init(struct ptd_record_options *o)
{
	ptd_recopts_pt_init(&o->pt);
	ptd_recopts_bts_init(&o->bts);
}

void ptd__record_options_fini(struct ptd_record_options *o)
{
	if (o)
		ptd_recopts_pt_fini(&o->pt);
}

int ptd_session_set_record_option(struct ptd_session *s, enum ptd_method m, const char *name,
				  const char *value)
{
	struct ptd_record_options *o = s ? ptd__session_record_options(s) : NULL;

	if (!o || !name || !value)
		return ptd__err(-ptde_invalid, "record option: NULL argument");
	if (m == PTD_METHOD_PT)
		return ptd_recopts_pt_set(&o->pt, name, value);
	if (m == PTD_METHOD_BTS)
		return ptd_recopts_bts_set(&o->bts, name, value);
	return ptd__err(-ptde_invalid, "the %s recorder has no option \"%s\"", ptd_method_name(m),
			name);
}

int ptd_session_get_record_option(struct ptd_session *s, enum ptd_method m, const char *name,
				  char *buf, size_t n)
{
	struct ptd_record_options *o = s ? ptd__session_record_options(s) : NULL;

	if (!o || !name || !buf)
		return ptd__err(-ptde_invalid, "record option: NULL argument");
	if (m == PTD_METHOD_PT)
		return ptd_recopts_pt_get(&o->pt, name, buf, n);
	if (m == PTD_METHOD_BTS)
		return ptd_recopts_bts_get(&o->bts, name, buf, n);
	return ptd__err(-ptde_invalid, "the %s recorder has no option \"%s\"", ptd_method_name(m),
			name);
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

int ptd__record_filter_resolve(const char *spec, pid_t pid, struct ptd_symbols *sym, char *out,
			       size_t n)
{
	unsigned long long start, size;
	const char *file, *at;
	char func[256], real[PATH_MAX];
	struct stat st;
	uint64_t entry, bp, off = 0;
	struct ptd_symbol ps;
	int rc;

	rc = ptd_recopts_filter_range(spec, &start, &size, &file);
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

int ptd__record_options_pt_config(const struct ptd_record_options *o, pid_t pid,
				  struct ptd_symbols *sym, struct ptd_ptrec_config *out)
{
	char buf[PATH_MAX + 64];
	int rc;

	rc = ptd_recopts_pt_copy(out, &o->pt);
	if (rc < 0)
		return rc;
	for (int i = 0; i < out->nfilters; i++) {
		char *r;

		rc = ptd__record_filter_resolve(o->pt.filters[i], pid, sym, buf, sizeof(buf));
		if (rc < 0)
			goto fail;
		r = strdup(buf);
		if (!r) {
			rc = ptd__err(-ptde_nomem, "out of memory");
			goto fail;
		}
		free(out->filters[i]);
		out->filters[i] = r;
	}
	return 0;
fail:
	ptd_recopts_pt_fini(out);
	return rc;
}
