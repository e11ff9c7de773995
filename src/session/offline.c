/*
 * Recordings without a process: trace bundles and perf.data saved from a
 * recording and loaded again (decoded lazily from their end), and the
 * recording of a program that was killed, kept as if it had been loaded.
 */
#include "session/session_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "decode/bundle.h"
#include "decode/image.h"
#include "decode/perfdata.h"
#include "decode/pt.h"
#include "decode/ptcut.h"
#include "record/ptconv.h"
#include "record/ptsynth.h"
#include "target/target.h"
#include "util/error.h"

/* The loaded trace behind @th's history: only once the history is gone
 * or cleared (a lazy history decodes from it). */
void ptd__ses_drop_lazy(struct sthread *th)
{
	ptd_pt_trace_free(th->lazy);
	th->lazy = NULL;
	ptd_pt_trace_free(th->lazy_done);
	th->lazy_done = NULL;
}

/* ---- lazily decoded loaded traces ---- */

/* Puts @older in front of @th's history; positions move with it. */
static int lazy_prepend(struct sthread *th, struct ptd_history *older)
{
	uint64_t before = ptd_history_count(th->h);
	int rc = ptd_history_prepend(th->h, older);

	if (rc < 0)
		return rc;
	if (th->pos)
		th->pos += ptd_history_count(th->h) - before;
	ptd__ses_drop_calls(th);
	return 0;
}

/* Decodes every segment of @th's trace not in its history yet. */
int ptd__ses_lazy_all(struct ptd_session *s, struct sthread *th)
{
	struct ptd_history *older;
	size_t nseg;
	int rc;

	if (!th->lazy)
		return 0;
	nseg = ptd_pt_trace_nsegs(th->lazy);
	older = ptd_history_alloc(ptd__ses_read_code, s);
	if (!older)
		return -ptde_nomem;
	/* The call log is built while decoding: info record and the call
	 * history then decode nothing again only to find calls. */
	ptd_history_set_func(older, ptd__ses_env_func_of, s);
	/* Counted in two threads, each segment decoded again when an
	 * instruction in it is needed (a few kept at a time). */
	ptd_pt_trace_set_lazy_history(th->lazy, 0);
	rc = ptd_pt_trace_history_range(th->lazy, older, 0,
					nseg > th->lazy_m ? nseg - th->lazy_m : 0, 2, NULL);
	/* what the oldest decoded segment learnt about the block before it */
	if (rc == 0 && th->lazy_m)
		ptd_history_flag_last(older, ptd_pt_trace_newest_head(th->lazy, th->lazy_m - 1));
	if (rc == 0)
		rc = lazy_prepend(th, older);
	ptd_history_free(older);
	if (rc == 0) {
		th->lazy_done = th->lazy;
		th->lazy = NULL;
	}
	return rc;
}

/*
 * Puts up to @more older segments in front of @th's history, found from
 * the end of the trace without indexing all of it.  Returns 1 when the
 * history grew, 0 when it already held everything, or an error.
 */
int ptd__ses_lazy_more(struct ptd_session *s, struct sthread *th, size_t more)
{
	struct ptd_history *older;
	size_t j, want;
	int rc = 0, grew = 0;

	if (!th->lazy)
		return 0;
	want = th->lazy_m + more;
	/* How far back segments exist (the index grows backwards). */
	if (!ptd_pt_trace_has_newest(th->lazy, want - 1)) {
		/* The start of the trace is near: the rest at once, with the
		 * lost-data gap if any. */
		rc = ptd__ses_lazy_all(s, th);
		return rc < 0 ? rc : 1;
	}
	older = ptd_history_alloc(ptd__ses_read_code, s);
	if (!older)
		return -ptde_nomem;
	for (j = want; j-- > th->lazy_m && rc == 0;) {
		const struct ptd_history *seg = ptd_pt_trace_newest(th->lazy, j);

		if (!seg) {
			rc = -ptde_nomem;
		} else {
			/* flags a segment learnt about the block before it */
			ptd_history_flag_last(older, ptd_pt_trace_newest_head(th->lazy, j));
			rc = ptd_history_append_history(older, seg);
		}
		grew = 1;
	}
	if (rc == 0 && th->lazy_m)
		ptd_history_flag_last(older, ptd_pt_trace_newest_head(th->lazy, th->lazy_m - 1));
	if (rc == 0)
		rc = lazy_prepend(th, older);
	ptd_history_free(older);
	if (rc < 0)
		return rc;
	th->lazy_m = want;
	return grew;
}

/*
 * The program was killed (SIGKILL, or a fatal signal passed on to it)
 * while recording: nothing of it is left to ask, but what was recorded is
 * the user's evidence of how it got there.  The session goes on as if the
 * recording had been loaded from a bundle: the histories stay, code comes
 * from the snapshot of the last stop (and what was unmapped before), until
 * the next run.  Returns 0, or <0 when there is nothing to keep.
 */
int ptd__ses_keep_killed_recording(struct ptd_session *s)
{
	if (!s->recording || !s->snap_img || s->nth == 0)
		return -ptde_notfound;
	ptd_image_free(s->offimg);
	s->offimg = s->snap_img;
	s->snap_img = NULL;
	s->offline = 1;
	s->kept = 1;
	if (s->rec_synth)
		ptd__ses_rec_warn(s, ptd__ses_pt_sync(s), "cannot decode the recorded trace");
	if (s->rec && (s->rec->caps & PTD_REC_WRITES_PT)) {
		/* The recorder's PT goes with it: keep a copy for record save. */
		for (int i = 0; i < s->nth; i++) {
			size_t n = 0;
			const uint8_t *p = ptd__ses_thread_pt(s, &s->th[i], &n);
			if (p && n && !s->th[i].pt_size && ptd__ses_append_pt(&s->th[i], p, n) < 0)
				s->th[i].pt_lost++;
		}
	}
	ptd_recorder_free(s->rec);
	s->rec = NULL;
	ptd_target_free(s->t);
	s->t = NULL;
	/* Every thread with a history is shown, as in a loaded bundle: the
	 * kill ended them all, and those that ended before are evidence too. */
	for (int i = 0; i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		ptd__ses_drop_calls(th);
		th->pos = 0;
		if (ptd_history_count(th->h) > 1)
			th->gone = 0;
	}
	if (s->cur >= s->nth || s->th[s->cur].gone) {
		/* the thread shown first: the main thread, if it lived on */
		s->cur = 0;
		for (int i = 0; i < s->nth; i++)
			if (!s->th[i].gone) {
				s->cur = i;
				break;
			}
	}
	return 0;
}

/* ---- trace bundles ------------------------------------------------------------------ */

const char *ptd_session_offline_exe(struct ptd_session *s)
{
	if (!s || !s->offline)
		return NULL;
	ptd__ses_symbols(s);
	return s->offline_exe;
}

int ptd_session_offline(const struct ptd_session *s)
{
	return s && s->offline;
}

int ptd_session_check_trace(const struct ptd_session *s)
{
	return s && s->offline ? ptd_bundle_check(s->bundle) : 0;
}

/* Symbols of a loaded bundle: one module per ELF file of its maps, loaded
 * at (lowest vaddr - its offset), which is where an ELF's first segment
 * sits; raw dumps (not ELF) are skipped. */
void ptd__ses_offline_symbols(struct ptd_session *s)
{
	const struct ptd_bundle *b = s->bundle;

	if (!b)
		return;
	for (size_t i = 0; i < b->nmaps; i++) {
		const struct ptd_bundle_map *m = &b->maps[i];
		uint64_t lo = m->vaddr - m->offset, hi = m->vaddr + m->size;
		int seen = 0;
		unsigned char magic[4];
		FILE *f;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(b->maps[j].path, m->path))
				seen = 1;
		if (seen)
			continue;
		for (size_t j = i + 1; j < b->nmaps; j++)
			if (!strcmp(b->maps[j].path, m->path)) {
				if (b->maps[j].vaddr - b->maps[j].offset < lo)
					lo = b->maps[j].vaddr - b->maps[j].offset;
				if (b->maps[j].vaddr + b->maps[j].size > hi)
					hi = b->maps[j].vaddr + b->maps[j].size;
			}
		f = fopen(m->path, "rb");
		if (!f)
			continue;
		int elf = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);
		fclose(f);
		if (!elf)
			continue;
		if (!s->sym) {
			if (ptd_symbols_alloc_file(&s->sym, m->path, lo) < 0) {
				s->sym = NULL;
				continue;
			}
			free(s->offline_exe);
			s->offline_exe = realpath(m->path, NULL);
		} else {
			ptd_symbols_add_file(s->sym, m->path, lo, hi);
		}
	}
}

static int save_anon(void *ctx, uint64_t start, uint64_t end, const char *name)
{
	struct ptd_session *s = ctx;
	size_t n = (size_t)(end - start);
	uint8_t *buf;
	long got;
	int rc;

	if (n > (64u << 20))
		return 0;
	buf = malloc(n);
	if (!buf)
		return -ptde_nomem;
	got = ptd_target_read(s->t, start, buf, n); /* our int3s masked */
	rc = got == (long)n ? ptd_bundle_add_memory_named(s->bundle, start, buf, n, name) : 0;
	free(buf);
	return rc;
}

/* The file-backed executable mappings of @maps (/proc/PID/maps text). */
static int save_maps(struct ptd_bundle *b, const char *maps)
{
	const char *p = maps;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);
		unsigned long long lo, hi, off;
		char perms[8];
		int pos = 0, rc = 0;

		if (!line)
			return -ptde_nomem;
		p += n + (p[n] == '\n');
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &pos) >= 4 &&
		    perms[2] == 'x' && pos && line[pos] == '/' && !strstr(line + pos, " (deleted)"))
			rc = ptd_bundle_add_map(b, line + pos, off, hi - lo, lo);
		free(line);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The recording as a bundle in memory (maps, code without a file, each
 * thread's PT); *@out is the caller's. */
/*
 * The PT of a thread whose recording keeps blocks (trace format "blocks"):
 * its history fed through ptconv to a synthesizer, as the pt trace format
 * does while recording, so the bundle decodes to the same items.  Returns
 * the bytes (caller frees; NULL with *@n = 0 for an empty history) or
 * NULL with an error.
 */
static uint8_t *blocks_to_pt(struct ptd_session *s, struct sthread *th, size_t *n, int *err)
{
	struct ptd_ptsynth_config cfg = { 0 };
	struct ptd_ptsynth *ps;
	uint8_t *pt = NULL;
	int rc;

	*n = 0;
	*err = 0;
	if (!ptd_history_nitems(th->h))
		return NULL;
	cfg.ret_compression = 1;
	cfg.psb_on_begin = 1;
	ps = ptd_ptsynth_alloc(&cfg);
	if (!ps) {
		*err = -ptde_nomem;
		return NULL;
	}
	rc = ptd_ptconv_history(ps, th->h, th->gone ? 0 : ptd_history_tail(th->h),
				ptd__ses_read_code, s);
	if (rc == 0)
		rc = ptd_ptsynth_flush(ps);
	if (rc == 0) {
		pt = ptd_ptsynth_take(ps, n);
		if (!pt && *n)
			rc = -ptde_nomem;
	}
	ptd_ptsynth_free(ps);
	if (rc < 0) {
		char msg[512]; /* the message buffer is reused by ptd__err */

		snprintf(msg, sizeof(msg), "%s", ptd_last_error(rc));
		*err = ptd__err(rc, "cannot turn the recorded blocks of thread %d into PT: %s",
				(int)th->tid, msg);
		free(pt);
		return NULL;
	}
	return pt;
}

/*
 * The size of @th's PT (@n bytes at @pt) to save.  A thread stopped in its
 * exit syscall (the stop before exit_group, a thread an exit_group
 * killed) has a history that ends before that syscall, which is its tail
 * pc, while its PT shows the syscall executed: the saved PT stops before
 * the TIP.PGD of that kernel entry, so that the loaded history ends where
 * the live one does (its decode is cut at the tail pc).  A syscall the
 * history has executed (one restarted after a signal, where the pc went
 * back to it) keeps it.
 */
static size_t exit_cut(struct ptd_session *s, struct sthread *th, const uint8_t *pt, size_t n)
{
	uint64_t tail = ptd_history_tail(th->h), count = ptd_history_count(th->h);
	struct ptd_hcursor c;
	uint8_t b[2];

	/* (the last number is the tail's; the instruction before it is the
	 * last one executed) */
	if (!pt || !n || !tail || count < 2 || th->gone ||
	    ptd_session_read(s, tail, b, sizeof(b)) != (long)sizeof(b) ||
	    !((b[0] == 0x0f && (b[1] == 0x05 || b[1] == 0x34)) || (b[0] == 0xcd && b[1] == 0x80)))
		return n;
	if (ptd_hcursor_goto(&c, th->h, count - 1) < 0 || c.is_gap || c.ip == tail) {
		ptd_clear_error();
		return n;
	}
	return ptd__pt_exit_cut(pt, n);
}

static int session_bundle(struct ptd_session *s, struct ptd_bundle **out)
{
	struct ptd_cpu cpu;
	char vendor[16];
	struct ptd_bundle *b;
	char *maps = NULL;
	int rc = 0;

	*out = NULL;
	/* a live recording, or one kept after the program was killed */
	if (!s->recording || (!ptd_session_alive(s) && !s->kept))
		return ptd__err(-ptde_not_running, "No recording is currently active.");
	/* The cpu that recorded: libipt applies its errata when it is Intel's. */
	ptd_bundle_host_cpu(&cpu, vendor);
	b = ptd_bundle_new(&cpu);
	if (!b)
		return -ptde_nomem;
	memcpy(b->cpu_vendor, vendor, sizeof(b->cpu_vendor));
	s->bundle = b;
	if (s->kept)
		maps = s->snap_maps ? strdup(s->snap_maps) : NULL;
	else
		maps = ptd__ses_read_maps(ptd_target_pid(s->t));
	if (!maps)
		rc = ptd__err(-ptde_sys, "cannot read the mappings of process %d",
			      (int)ptd_target_pid(s->t));
	if (rc == 0)
		rc = save_maps(b, maps);
	/* anonymous and vdso code, read now with our breakpoints masked,
	 * or as copied at the last stop before the program was killed */
	if (rc == 0 && s->kept) {
		for (int i = 0; rc == 0 && i < s->nsnap_anon; i++)
			rc = ptd_bundle_add_memory(b, s->snap_anon[i].start, s->snap_anon[i].bytes,
						   s->snap_anon[i].size);
	} else if (rc == 0) {
		rc = ptd_image_foreach_anon(maps, save_anon, s);
		if (rc > 0)
			rc = 0;
	}
	/* code unmapped during the recording (dlclose) */
	for (int i = 0; rc == 0 && i < s->ndead; i++)
		rc = ptd_bundle_add_memory(b, s->dead[i].start, s->dead[i].bytes, s->dead[i].size);
	for (int i = 0; rc == 0 && i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		size_t n = 0;
		if (th->pt_lost && s->notify) {
			char msg[160];
			snprintf(msg, sizeof(msg),
				 "warning: thread %d lost %d stretches of its trace while recording "
				 "(its history has a gap for each, the saved trace has none)",
				 (int)th->tid, th->pt_lost);
			s->notify(s->notify_ctx, msg);
		}
		/* the recorder's own PT (pt), what the session made of blocks
		 * while recording (trace format pt), or made of them now */
		uint8_t *own = NULL;
		const uint8_t *pt;
		if (s->rec_pt) {
			pt = ptd__ses_thread_pt(s, th, &n);
			n = exit_cut(s, th, pt, n);
		} else
			pt = own = blocks_to_pt(s, th, &n, &rc);
		if (rc < 0)
			break;
		if (pt && n)
			rc = ptd_bundle_add_thread(b, (int)th->tid, pt, n,
						   th->gone ? 0 : ptd_history_tail(th->h));
		free(own);
	}
	/* Each file's build-id or checksum: a changed binary is refused at load. */
	if (rc == 0)
		rc = ptd_bundle_identify(b);
	free(maps);
	s->bundle = NULL;
	if (rc < 0) {
		ptd_bundle_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

int ptd_session_save(struct ptd_session *s, const char *dir)
{
	struct ptd_bundle *b;
	int rc;

	if (!s || !dir || !*dir)
		return ptd__err(-ptde_invalid, "usage: record save DIRECTORY");
	rc = session_bundle(s, &b);
	if (rc < 0)
		return rc;
	rc = ptd_bundle_save(b, dir);
	ptd_bundle_free(b);
	return rc;
}

int ptd_session_save_perf_data(struct ptd_session *s, const char *file)
{
	struct ptd_perfdata_proc proc;
	struct ptd_bundle *b;
	char path[64], comm[32] = "";
	FILE *f;
	int rc;

	if (!s || !file || !*file)
		return ptd__err(-ptde_invalid, "usage: record save --perf-data FILE");
	rc = session_bundle(s, &b);
	if (rc < 0)
		return rc;
	proc.pid = (int)ptd_target_pid(s->t);
	snprintf(path, sizeof(path), "/proc/%d/comm", proc.pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
	}
	comm[strcspn(comm, "\n")] = 0;
	proc.comm = comm[0] ? comm : NULL;
	rc = ptd_perfdata_save(b, &proc, file);
	ptd_bundle_free(b);
	return rc;
}

int ptd_session_load(struct ptd_session *s, const char *dir)
{
	struct ptd_bundle *b = NULL;
	int rc;

	if (!s || !dir || !*dir)
		return ptd__err(-ptde_invalid, "no bundle directory given");
	if (ptd_session_alive(s))
		return ptd__err(-ptde_busy, "A program is being debugged already.");
	/* A bundle is a directory; a file is read as a perf.data (whose
	 * reader explains a wrong magic). */
	{
		struct stat st;

		if (stat(dir, &st) == 0 && S_ISREG(st.st_mode))
			rc = ptd_perfdata_load(dir, &b);
		else
			rc = ptd_bundle_load(dir, &b);
	}
	if (rc < 0)
		return rc;
	ptd__ses_drop_process(s);
	s->bundle = b;
	s->offline = 1;
	s->offimg = ptd_bundle_image(b, NULL, NULL);
	if (!s->offimg) {
		/* the image's message names the file it could not read; it
		 * is copied out first (dropping the process may set another,
		 * and formatting it into a new one would read the buffer
		 * being written) */
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", ptd_last_error(-ptde_bad_trace));
		ptd__ses_drop_process(s);
		return ptd__err(-ptde_bad_trace, "%s", msg);
	}
	for (size_t i = 0; i < b->nthreads; i++) {
		const struct ptd_bundle_thread *bt = &b->threads[i];
		struct sthread *th = ptd__ses_add_sthread(s, (pid_t)bt->tid);
		struct ptd_pt_trace *tr;
		if (!th) {
			ptd__ses_drop_process(s);
			return -ptde_nomem;
		}
		tr = ptd_pt_trace_alloc(bt->pt, bt->size, s->offimg, ptd__ses_read_code, s, 0);
		if (!tr) {
			char msg[1024]; /* the message buffer is reused by ptd__err */

			snprintf(msg, sizeof(msg), "%s", ptd_last_error(-ptde_bad_trace));
			rc = ptd__err(-ptde_bad_trace, "%s: thread %d: %s", dir, bt->tid, msg);
			ptd__ses_drop_process(s);
			return rc;
		}
		if (bt->tail_pc)
			ptd_pt_trace_set_tail(tr, bt->tail_pc);
		/* A loaded trace is numbered as gdb numbers it (a gap where
		 * tracing resumed elsewhere: signals, exec). */
		ptd_pt_trace_set_disabled_gaps(tr, 1);
		/* Only the newest segment now: the first reverse step costs
		 * the same for any trace size. */
		th->lazy = tr;
		th->lazy_m = 0;
		/* The newest segments may hold no instruction (tracing was
		 * off): take older ones until there is one to step back to. */
		do
			rc = ptd__ses_lazy_more(s, th, 1);
		while (rc == 1 && th->lazy && !ptd_history_count(th->h));
		if (rc < 0) {
			ptd__ses_drop_process(s);
			return rc;
		}
		ptd_history_set_tail(th->h, bt->tail_pc);
	}
	s->cur = 0;
	s->recording = 1;
	s->rec_method = PTD_METHOD_PT;
	s->rec_pt = 1;
	return 0;
}
