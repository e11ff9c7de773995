/*
 * Recording: the recorder behind struct ptd_recorder (record/recorder.h)
 * is made here (--method, the auto ladder pt -> bts -> soft -> step) and
 * lent the session's callbacks; the session never knows which recorder
 * runs, only its capability flags.  With the trace format pt and a
 * recorder that writes blocks, the blocks become PT (ptsynth) stretch by
 * stretch and the history is decoded from that PT.  Each recording that
 * stops per branch is kept within its buffer-size.
 */
#include "session/session_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/syscall.h>
#include <unistd.h>

#include "decode/image.h"
#include "decode/pt.h"
#include "record/btsrec.h"
#include "record/perf.h"
#include "record/ptconv.h"
#include "record/ptrec.h"
#include "record/ptsynth.h"
#include "record/soft.h"
#include "record/step.h"
#include "session/ptfilter.h"
#include "unwind/unwind.h"
#include "target/target.h"
#include "util/error.h"

static size_t rec_bytes(struct ptd_session *s, struct sthread *th);

int ptd_session_set_buffer_size(struct ptd_session *s, enum ptd_method m, uint64_t bytes)
{
	if (!s)
		return -ptde_invalid;
	if (bytes && bytes < PTD_RECORD_BUFFER_MIN)
		return ptd__err(-ptde_invalid, "buffer-size %llu is too small (at least %u bytes)",
				(unsigned long long)bytes, PTD_RECORD_BUFFER_MIN);
	if (m == PTD_METHOD_SOFT)
		s->buf_soft = bytes;
	else if (m == PTD_METHOD_STEP)
		s->buf_step = bytes;
	else
		return ptd__err(-ptde_invalid, "method '%s' has no buffer-size", ptd_method_name(m));
	/* the recording running now too */
	if (s->rec && s->rec_method == m && (s->rec->caps & PTD_REC_STOPS_PER_BRANCH))
		s->rec_limit = bytes;
	return 0;
}

uint64_t ptd_session_buffer_size(const struct ptd_session *s, enum ptd_method m)
{
	if (!s)
		return 0;
	return m == PTD_METHOD_SOFT ? s->buf_soft : m == PTD_METHOD_STEP ? s->buf_step : 0;
}

/* ---- recording ------------------------------------------------------------------------------ */

/* Each recorded stretch starts with a PSB+, so it decodes on its own. */
static struct ptd_ptsynth *new_synth(void)
{
	struct ptd_ptsynth_config cfg = { 0 };

	cfg.ret_compression = 1;
	cfg.psb_on_begin = 1;
	return ptd_ptsynth_alloc(&cfg);
}

/* Keeps the live stack's callers as the recording starts (see
 * sthread.outer); a stack that cannot be unwound keeps none. */
static void keep_outer_frames(struct sthread *th)
{
	struct ptd_frame *fr = NULL;
	int n = ptd_unwind_backtrace_all(th->tid, &fr);

	ptd_clear_error();
	free(th->outer);
	th->outer = NULL;
	th->nouter = 0;
	if (n > 1 && (th->outer = malloc((size_t)(n - 1) * sizeof(*th->outer))))
		for (int i = 1; i < n; i++)
			th->outer[th->nouter++] = fr[i].pc;
	free(fr);
}

int ptd__ses_record_start_thread(struct ptd_session *s, struct sthread *th)
{
	uint64_t pc;
	int rc = ptd_target_get_pc(s->t, th->tid, &pc);

	if (rc < 0)
		return rc;
	if (s->rec_synth) {
		ptd__ses_drop_pt(th);
		th->stage = ptd_history_alloc(ptd__ses_read_code, s);
		th->synth = new_synth();
		if (!th->stage || !th->synth) {
			ptd__ses_drop_pt(th);
			return -ptde_nomem;
		}
		ptd_history_set_tail(th->h, pc);
		return s->rec->ops->add_thread(s->rec, th->tid, th->stage, pc);
	}
	return s->rec->ops->add_thread(s->rec, th->tid, th->h, pc);
}

/* A stretch of PT starts at the end of @th->pt, with the next number of
 * @th->h. */
static int pt_mark(struct sthread *th)
{
	uint64_t next = ptd_history_count(th->h) - (ptd_history_tail(th->h) ? 1 : 0) + 1;

	if (th->nmarks == th->cap_marks) {
		size_t cap = th->cap_marks ? 2 * th->cap_marks : 16;
		struct pt_mark *m = realloc(th->marks, cap * sizeof(*m));
		if (!m)
			return -ptde_nomem;
		th->marks = m;
		th->cap_marks = cap;
	}
	th->marks[th->nmarks++] = (struct pt_mark){ th->pt_size, next };
	return 0;
}

int ptd__ses_append_pt(struct sthread *th, const uint8_t *buf, size_t n)
{
	if (th->pt_size + n > th->pt_cap) {
		size_t cap = th->pt_cap ? th->pt_cap : 65536;
		while (cap < th->pt_size + n)
			cap *= 2;
		uint8_t *p = realloc(th->pt, cap);
		if (!p)
			return -ptde_nomem;
		th->pt = p;
		th->pt_cap = cap;
	}
	memcpy(th->pt + th->pt_size, buf, n);
	th->pt_size += n;
	return 0;
}

/*
 * Trace format pt: the blocks recorded since the last flush become PT
 * packets for the stretch that ends at @end_ip (the thread's pc at a stop,
 * or where it goes on after an address-space change), and that stretch's
 * PT is decoded right away — with the mappings of the moment, before an
 * munmap or exec can take the code away — and appended to the history.
 * What the user browses went through the real decoder.
 */
int ptd__ses_pt_flush_thread(struct ptd_session *s, struct sthread *th, uint64_t end_ip)
{
	struct ptd_history *chunk_h;
	struct ptd_image *img = NULL;
	uint8_t *bytes;
	size_t n = 0;
	int rc;

	if (!th->stage || !th->synth)
		return 0;
	if (ptd_history_nitems(th->stage) == 0 && !ptd_ptsynth_enabled(th->synth))
		return 0;
	rc = ptd_ptconv_history(th->synth, th->stage, end_ip, ptd__ses_read_code, s);
	if (rc < 0)
		return rc;
	ptd_history_clear(th->stage);
	ptd_history_set_tail(th->stage, end_ip);
	bytes = ptd_ptsynth_take(th->synth, &n);
	if (!bytes)
		return 0;
	if (s->exec_img && th->exec_flush) {
		/* The stretch ending with the execve: the old program's code. */
		img = s->exec_img;
		s->exec_img = NULL;
	} else {
		img = ptd_image_alloc(ptd__ses_read_code, s);
		if (!img)
			rc = -ptde_nomem;
		else if (ptd_session_alive(s))
			ptd_image_add_maps(img, ptd_target_pid(s->t));
	}
	if (rc == 0) {
		/* Decode into a scratch history; only when that worked do the
		 * PT bytes and the items go in, both or neither, so the kept
		 * PT (record save) and the history stay in step. */
		chunk_h = ptd_history_alloc(ptd__ses_read_code, s);
		if (!chunk_h) {
			rc = -ptde_nomem;
		} else {
			/* its call log goes after th->h's in the splice */
			ptd_history_share_func(chunk_h, th->h);
			rc = ptd_pt_decode_history(bytes, n, img, chunk_h, NULL);
			/* the mark: where this stretch's PT starts, and the
			 * number of its first item (bounded histories) */
			if (rc == 0)
				rc = pt_mark(th);
			if (rc == 0) {
				rc = ptd__ses_append_pt(th, bytes, n);
				if (rc < 0)
					th->nmarks--;
			}
			if (rc == 0) {
				rc = ptd_history_splice(th->h, chunk_h);
				if (rc < 0) {
					th->pt_size -= n; /* take the bytes back out */
					th->nmarks--;
				}
			}
			ptd_history_free(chunk_h);
		}
	}
	if (rc < 0) {
		/* The stretch is lost: the history says so with a gap, and
		 * the kept PT is marked so that a saved bundle is not taken
		 * for complete. */
		char why[200];
		snprintf(why, sizeof(why), "cannot decode the trace recorded up to 0x%llx: %s",
			 (unsigned long long)end_ip, ptd_last_error(rc));
		ptd_history_append_gap(th->h, PTD_GAP_LOST, 0, why);
		th->pt_lost++;
	}
	free(bytes);
	ptd_image_free(img);
	ptd__ses_drop_calls(th);
	ptd_history_set_tail(th->h, th->gone ? 0 : end_ip);
	return rc;
}

/* An execve is about to run: remember the image it will replace.  The
 * syscall instruction itself is only known as executed once the exec
 * stop came, and then its code must come from the old image (the new
 * program may map other code at the same addresses, or none). */
static void pt_note_exec(struct ptd_session *s)
{
	ptd_image_free(s->exec_img);
	s->exec_img = ptd_image_alloc(ptd__ses_read_code, s);
	if (s->exec_img && ptd_image_add_maps(s->exec_img, ptd_target_pid(s->t)) < 0) {
		ptd_image_free(s->exec_img);
		s->exec_img = NULL;
	}
}

/* At a stop: flush every recorded thread up to its pc. */
int ptd__ses_pt_sync(struct ptd_session *s)
{
	int rc = 0;

	/* Every thread, even after one failed: the first error is returned. */
	for (int i = 0; i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		/* A gone thread ends where its recorder left it (an exiting
		 * thread: before its exit syscall), so its PT ends with FUP and
		 * TIP.PGD there instead of trailing off after the last branch,
		 * where libipt and perf's decoder would stop at different
		 * instructions.  A tail of 0 (unknown) only flushes. */
		int r = th->stage ? ptd__ses_pt_flush_thread(s, th, ptd_history_tail(th->stage)) : 0;
		if (r < 0 && rc == 0)
			rc = r;
	}
	return rc;
}

/* Before a syscall that may unmap code: flush every thread's stretch. */
static int pt_sync_before_unmap(struct ptd_session *s)
{
	int rc = 0;

	if (!s->rec || !s->rec->ops->next_ip)
		return 0;
	for (int i = 0; i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		int r = th->stage && !th->gone
				? ptd__ses_pt_flush_thread(s, th, s->rec->ops->next_ip(s->rec, th->tid))
				: 0;
		if (r < 0 && rc == 0)
			rc = r;
	}
	return rc;
}

/*
 * The recorder for method @m; auto walks the ladder pt -> bts -> soft ->
 * step through the probes and notes why each was refused.  The pt and
 * bts recorders run on the perf kernel of the moment (the running one,
 * or the simulated PMU with PTDBG_SIMULATE_PMU, which is never silent:
 * an unknown value is an error).  Returns NULL with the message set
 * (ptd_last_error).
 */
static struct ptd_recorder *make_recorder(struct ptd_session *s, enum ptd_method *m,
					  struct ptd_recorder_env *env)
{
	char why_pt[300] = "", why_bts[300] = "";
	struct ptd_perf_kernel *k = NULL;
	struct ptd_recorder *r;

	if (*m == PTD_METHOD_AUTO || *m == PTD_METHOD_PT || *m == PTD_METHOD_BTS) {
		k = ptd_perf_kernel_default();
		if (!k) {
			char msg[400];
			snprintf(msg, sizeof(msg), "%s", ptd_last_error(-ptde_invalid));
			ptd__err(-ptde_invalid, "cannot record with method '%s': %s",
				 ptd_method_name(*m), msg);
			return NULL;
		}
	}
	if (*m == PTD_METHOD_AUTO) {
		if (ptd_ptrec_probe(k, why_pt, sizeof(why_pt)) == 0)
			*m = PTD_METHOD_PT;
		else if (ptd_btsrec_probe(k, why_bts, sizeof(why_bts)) == 0)
			*m = PTD_METHOD_BTS;
		else
			*m = PTD_METHOD_SOFT;
		if (*m == PTD_METHOD_SOFT)
			snprintf(s->method_note, sizeof(s->method_note),
				 "auto chose soft: pt refused: %s; bts refused: %s", why_pt, why_bts);
		else if (*m == PTD_METHOD_BTS)
			snprintf(s->method_note, sizeof(s->method_note),
				 "auto chose bts%s: pt refused: %s",
				 k->simulated ? " (simulated PMU)" : "", why_pt);
		else
			snprintf(s->method_note, sizeof(s->method_note), "auto chose pt%s",
				 k->simulated ? " (simulated PMU)" : "");
	} else if (*m == PTD_METHOD_PT || *m == PTD_METHOD_BTS) {
		int rc = *m == PTD_METHOD_PT ? ptd_ptrec_probe(k, why_pt, sizeof(why_pt))
					     : ptd_btsrec_probe(k, why_bts, sizeof(why_bts));
		if (rc < 0) {
			ptd_perf_kernel_free(k);
			ptd__err(-ptde_unsupported, "cannot record with method '%s': %s",
				 ptd_method_name(*m), *m == PTD_METHOD_PT ? why_pt : why_bts);
			return NULL;
		}
	}
	env->buffer_size = *m == PTD_METHOD_PT	    ? s->ptcfg.buffer_size
			   : *m == PTD_METHOD_BTS ? s->btscfg.buffer_size
						  : ptd_session_buffer_size(s, *m);
	switch (*m) {
	case PTD_METHOD_PT: {
		struct ptd_ptrec_config cfg;

		/* The filters as the kernel takes them (START/SIZE@FILE), for the
		 * process as it is mapped now (session/ptfilter.c). */
		if (ptd__pt_config_resolve(&s->ptcfg, ptd_target_pid(s->t), ptd__ses_symbols(s),
					   &cfg) < 0) {
			char msg[400];

			snprintf(msg, sizeof(msg), "%s", ptd_last_error(-ptde_invalid));
			ptd_perf_kernel_free(k);
			ptd__err(-ptde_invalid, "cannot record with method 'pt': %s", msg);
			return NULL;
		}
		/* (the recorder owns the kernel from here on, also on failure;
		 * it copies the filters) */
		r = ptd_ptrec_recorder(k, env, &cfg);
		ptd__pt_config_fini(&cfg);
		return r;
	}
	case PTD_METHOD_BTS:
		return ptd_btsrec_recorder(k, env, &s->btscfg);
	case PTD_METHOD_SOFT:
		ptd_perf_kernel_free(k);
		r = ptd_softrec_recorder(env);
		if (r || s->method_note[0] == 0)
			return r;
		/* auto: the last rung */
		{
			char msg[300];
			snprintf(msg, sizeof(msg), "%s", ptd_last_error(-ptde_nomem));
			snprintf(s->method_note + strlen(s->method_note),
				 sizeof(s->method_note) - strlen(s->method_note),
				 "; soft refused: %s; auto chose step", msg);
		}
		*m = PTD_METHOD_STEP;
		return ptd_steprec_recorder(env);
	default:
		ptd_perf_kernel_free(k);
		return ptd_steprec_recorder(env);
	}
}

const char *ptd_session_method_note(const struct ptd_session *s)
{
	return s && s->method_note[0] ? s->method_note : NULL;
}

static int want_stop_cb(void *ctx, pid_t tid, uint64_t pc)
{
	struct ptd_session *s = ctx;

	(void)tid;
	/* also our own: the dynamic linker's report, until/advance's places */
	return ptd__ses_bp_at(s, pc) != NULL || (s->solib_addr && pc == s->solib_addr) ||
	       (s->adv_active && (ptd__ses_adv_at(s, pc) || pc == s->adv_ret));
}

/*
 * A recorded thread is about to run a syscall (a recorder that stops per
 * branch sees them; a free-running one notes image changes itself).  One
 * that may change the address space: decode PT while the code is still
 * mapped, keep the code an munmap takes, remember the image an execve
 * replaces.
 */
static void before_syscall_cb(void *ctx, pid_t tid, const struct user_regs_struct *r,
			      uint64_t next_ip)
{
	struct ptd_session *s = ctx;
	struct sthread *th;
	int unmaps = r->rax == SYS_munmap || r->rax == SYS_mremap || r->rax == SYS_execve ||
		     r->rax == SYS_execveat;

	if (!unmaps && r->rax != SYS_mmap)
		return;
	if (s->rec_synth && s->rec && (s->rec->caps & PTD_REC_SINGLE_STEPS)) {
		/* Every thread's blocks end where it is now (each is
		 * between two single-steps): all of them go. */
		ptd__ses_rec_warn(s, pt_sync_before_unmap(s), "cannot decode the trace before a syscall");
	} else if (s->rec_synth && (th = ptd__ses_thread_by_tid(s, tid)) != NULL) {
		ptd__ses_rec_warn(s, ptd__ses_pt_flush_thread(s, th, next_ip), "cannot decode the trace before a syscall");
	}
	if (r->rax == SYS_execve || r->rax == SYS_execveat) {
		/* the program that may be replaced, for its history */
		free(s->exec_maps);
		s->exec_maps = ptd__ses_read_maps(ptd_target_pid(s->t));
		if (s->rec_synth)
			pt_note_exec(s);
	}
	if (r->rax == SYS_munmap)
		ptd__ses_dead_save(s, r->rdi, r->rsi);
	if (unmaps && s->rec && s->rec->ops->before_unmap)
		ptd__ses_rec_warn(s, s->rec->ops->before_unmap(s->rec, tid),
			 "cannot read the trace before a syscall");
}

static struct ptd_history *new_history_cb(void *ctx, pid_t tid)
{
	struct ptd_session *s = ctx;
	struct sthread *th = ptd__ses_add_sthread(s, tid);

	if (!th)
		return NULL;
	if (s->rec_synth) {
		if (!th->stage)
			th->stage = ptd_history_alloc(ptd__ses_read_code, s);
		if (!th->synth)
			th->synth = new_synth();
		return th->stage;
	}
	return th->h;
}

/* Recorders' informational messages go to the front end. */
static void notify_cb(void *ctx, const char *msg)
{
	struct ptd_session *s = ctx;

	if (s->notify)
		s->notify(s->notify_ctx, msg);
}

int ptd_session_record_start(struct ptd_session *s, enum ptd_method m)
{
	struct ptd_recorder_env env = { 0 };
	int rc;

	if (!s)
		return -ptde_invalid;
	if (!ptd_session_alive(s))
		return ptd__err(-ptde_not_running, "The program is not being run.");
	if (s->recording)
		return ptd__err(-ptde_busy, "The process is already being recorded.  Use \"record "
					    "stop\" to stop recording first.");
	s->method_note[0] = 0;
	if (m == PTD_METHOD_AUTO)
		m = s->method;
	env.t = s->t;
	env.read_code = ptd__ses_read_code;
	env.want_stop = want_stop_cb;
	env.new_history = new_history_cb;
	env.before_syscall = before_syscall_cb;
	env.notify = notify_cb;
	env.ctx = s;
	env.pin_cpu = s->pin_cpu;
	ptd_clear_error();
	s->rec = make_recorder(s, &m, &env);
	if (!s->rec) {
		/* the constructors and probes said why */
		const char *why = ptd_last_error(-ptde_unsupported);
		char msg[600];

		if (!strncmp(why, "cannot ", 7))
			return -ptde_unsupported;
		snprintf(msg, sizeof(msg), "%s", why);
		return ptd__err(-ptde_unsupported, "cannot record with method '%s': %s",
				ptd_method_name(m), msg);
	}
	s->rec_pt = s->want_pt || (s->rec->caps & PTD_REC_WRITES_PT);
	s->rec_synth = s->want_pt && !(s->rec->caps & PTD_REC_WRITES_PT);
	s->rec_limit = s->rec->caps & PTD_REC_STOPS_PER_BRANCH ? ptd_session_buffer_size(s, m) : 0;
	ptd__ses_dead_free(s);
	ptd__ses_snap_free(s);
	ptd__ses_snap_refresh(s);
	for (int i = 0; i < s->nth; i++) {
		struct sthread *th = &s->th[i];
		if (th->gone)
			continue;
		ptd_history_clear(th->h);
		ptd__ses_drop_calls(th);
		th->pos = 0;
		/* (a thread created later starts its own stack) */
		keep_outer_frames(th);
		rc = ptd__ses_record_start_thread(s, th);
		if (rc < 0) {
			ptd__ses_rec_free(s);
			return rc;
		}
	}
	rc = s->rec->ops->start(s->rec);
	if (rc < 0) {
		ptd__ses_rec_free(s);
		return rc;
	}
	s->rec_method = m;
	s->recording = 1;
	/* A free-running recorder does not see a thread's exit coming:
	 * each thread stops on its way out instead (run.c exit_next). */
	if (!(s->rec->caps & PTD_REC_STOPS_PER_BRANCH))
		ptd__ses_rec_warn(s, ptd_target_set_exit_stops(s->t, 1),
				  "cannot stop the program before it exits");
	return 0;
}

int ptd_session_record_stop(struct ptd_session *s)
{
	if (!s || !s->recording)
		return ptd__err(-ptde_not_running, "No record target is currently active.");
	ptd__ses_rec_free(s);
	for (int i = 0; i < s->nth; i++) {
		ptd_history_clear(s->th[i].h);
		ptd__ses_drop_calls(&s->th[i]);
		ptd__ses_drop_pt(&s->th[i]);
		ptd__ses_drop_lazy(&s->th[i]);
		s->th[i].pos = 0;
	}
	return 0;
}

int ptd_session_set_trace_format(struct ptd_session *s, const char *fmt)
{
	if (!s || !fmt)
		return -ptde_invalid;
	if (!strcmp(fmt, "pt"))
		s->want_pt = 1;
	else if (!strcmp(fmt, "blocks") || !strcmp(fmt, "insn"))
		s->want_pt = 0;
	else
		return ptd__err(-ptde_invalid, "unknown trace format '%s' (valid: blocks, pt)", fmt);
	return 0;
}

const char *ptd_session_trace_format(const struct ptd_session *s)
{
	if (!s)
		return NULL;
	return (s->recording ? s->rec_pt : s->want_pt) ? "pt" : "blocks";
}

/* The PT kept for @th: the recorder's own (PTD_REC_WRITES_PT) or what
 * the session synthesized from its blocks. */
const uint8_t *ptd__ses_thread_pt(struct ptd_session *s, struct sthread *th, size_t *size)
{
	if (s->rec && (s->rec->caps & PTD_REC_WRITES_PT) && s->rec->ops->trace) {
		const uint8_t *p = s->rec->ops->trace(s->rec, th->tid, size);
		if (!p)
			*size = 0;
		return p;
	}
	*size = th->pt_size;
	return th->pt;
}

const uint8_t *ptd_session_pt_data(struct ptd_session *s, size_t *size)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;
	size_t n = 0;
	const uint8_t *p = th ? ptd__ses_thread_pt(s, th, &n) : NULL;

	if (size)
		*size = p ? n : 0;
	return p;
}

size_t ptd_session_pt_bytes(struct ptd_session *s)
{
	struct sthread *th = s ? ptd__ses_cur_thread(s) : NULL;
	size_t n = 0;

	if (th)
		ptd__ses_thread_pt(s, th, &n);
	return n;
}

int ptd_session_recording(const struct ptd_session *s)
{
	return s && s->recording;
}

int ptd_session_record_info(struct ptd_session *s, struct ptd_record_info *out)
{
	struct sthread *th;
	const struct ptd_calls *c;

	if (!s || !out)
		return -ptde_invalid;
	if (!s->recording)
		return ptd__err(-ptde_not_running, "No record target is currently active.");
	th = ptd__ses_cur_thread(s);
	if (th) {
		int rc = ptd__ses_lazy_all(s, th);
		if (rc < 0)
			return rc;
	}
	memset(out, 0, sizeof(*out));
	out->method = s->rec_method;
	out->format = s->rec_pt ? "pt" : "blocks";
	if (!th)
		return 0;
	out->ninsn = ptd_history_ninsn(th->h);
	out->count = ptd_history_count(th->h);
	/* the tail takes a number only when there is one (a bundle may have none) */
	{
		uint64_t other = out->ninsn + (ptd_history_tail(th->h) ? 1 : 0);

		out->ngaps = out->count > other ? out->count - other : 0;
	}
	if (s->rec_pt)
		ptd__ses_thread_pt(s, th, &out->bytes);
	else
		out->bytes = ptd_history_bytes(th->h);
	/* Only the count: built segments when they exist, else counted
	 * without storing them (88 bytes each). */
	if (th->calls && th->calls_count == ptd_history_count(th->h)) {
		c = th->calls;
		out->ncalls = ptd_calls_count(c);
	} else {
		ptd__ses_calls_fresh(s, th);
		if (ptd_calls_count_only(th->h, ptd__ses_env_func_of, s, &out->ncalls) < 0)
			out->ncalls = 0;
	}
	out->replaying = th->pos != 0;
	out->position = th->pos;
	out->buffer_size = ptd_session_buffer_size(s, s->rec_method);
	if (s->rec) {
		struct ptd_recorder_stats st;

		s->rec->ops->stats(s->rec, &st);
		out->stops = st.stops;
		out->trace_bytes = st.trace_bytes;
		out->lost_bytes = st.lost_bytes;
		out->wraps = st.wraps;
		if (st.buffer_size)
			out->buffer_size = st.buffer_size;
		snprintf(out->pmu, sizeof(out->pmu), "%s", st.pmu);
		out->simulated = !!(s->rec->caps & PTD_REC_SIMULATED);
	}
	out->dropped = ptd_history_dropped(th->h);
	out->mem_bytes = rec_bytes(s, th);
	return 0;
}

/* ---- bounded recording ---- */

/* Heap bytes @th's recording holds: its history, the blocks not yet
 * turned into PT, the PT kept, the recorder's registers and buffers. */
static size_t rec_bytes(struct ptd_session *s, struct sthread *th)
{
	size_t n = ptd_history_bytes(th->h) + ptd_history_bytes(th->stage) + th->pt_cap +
		   th->cap_marks * sizeof(struct pt_mark);

	if (s->rec && s->rec->ops->bytes)
		n += s->rec->ops->bytes(s->rec, th->tid);
	return n;
}

/* @th's history lost its oldest numbers: the PT stretches wholly before
 * what is kept go too (the stretch the history now starts in stays, so
 * the saved PT decodes to at least what the history shows). */
static void pt_drop_front(struct sthread *th, uint64_t shift)
{
	size_t j = 0, cut;

	while (j + 1 < th->nmarks && th->marks[j + 1].number <= shift + 2)
		j++;
	cut = th->nmarks ? th->marks[j].off : 0;
	if (cut) {
		memmove(th->pt, th->pt + cut, th->pt_size - cut);
		th->pt_size -= cut;
	}
	memmove(th->marks, th->marks + j, (th->nmarks - j) * sizeof(*th->marks));
	th->nmarks -= j;
	for (size_t i = 0; i < th->nmarks; i++) {
		th->marks[i].off -= cut;
		th->marks[i].number = th->marks[i].number > shift ? th->marks[i].number - shift : 1;
	}
}

/*
 * Keeps @th's recording within the method's buffer-size: beyond it, the
 * oldest part of the history (a quarter of the bound and what is over)
 * is dropped and a gap at number 1 says so.  @fed is the run loop's
 * position in the history the recorder writes (moved with the numbers).
 */
static int rec_bound(struct ptd_session *s, struct sthread *th, uint64_t *fed)
{
	uint64_t limit = s->rec ? s->rec_limit : 0;
	uint64_t count, number, shift = 0, target;
	size_t have;
	char why[200];
	int rc;

	if (!limit || !th->h)
		return 0;
	have = rec_bytes(s, th);
	if (have <= limit)
		return 0;
	target = limit - limit / 4;
	count = ptd_history_count(th->h);
	/* Costs grow with the instructions recorded: drop that share. */
	number = (uint64_t)((double)count * (double)(have - target) / (double)have);
	if (number < 2)
		return 0;
	snprintf(why, sizeof(why),
		 "record %s buffer-size %llu reached",
		 s->rec->ops->name, (unsigned long long)limit);
	rc = ptd_history_drop_oldest(th->h, number, why, &shift);
	if (rc < 0 || !shift)
		return rc;
	if (s->rec->ops->dropped)
		s->rec->ops->dropped(s->rec, th->tid, shift);
	if (th->stage)
		pt_drop_front(th, shift);
	if (th->pos)
		th->pos = th->pos > shift + 1 ? th->pos - shift : 1;
	if (fed && !th->stage && *fed)
		*fed = *fed > shift + 1 ? *fed - shift : 1;
	ptd__ses_drop_calls(th);
	return 0;
}

/*
 * Every so many recorder stops while the program runs (and at every stop
 * shown to the user): the trace format pt turns a thread's blocks into PT
 * once they are many (they would pile up until the program stops), and
 * every recording is kept within its buffer-size.  @sel, when stepped by
 * the run loop, keeps its blocks (the loop reads them) until the stop.
 */
int ptd__ses_rec_maintain(struct ptd_session *s, int force, struct sthread *sel, uint64_t *fed)
{
	int rc = 0;

	if (!s->recording || (!force && ++s->maint_tick < 4096))
		return 0;
	s->maint_tick = 0;
	for (int i = 0; i < s->nth && rc == 0; i++) {
		struct sthread *th = &s->th[i];
		if (th->gone && !force)
			continue;
		if (th->stage && th != sel && ptd_history_nitems(th->stage) > 65536) {
			uint64_t ip = s->rec && s->rec->ops->next_ip
					      ? s->rec->ops->next_ip(s->rec, th->tid)
					      : 0;
			if (ip)
				rc = ptd__ses_pt_flush_thread(s, th, ip);
		}
		if (rc == 0)
			rc = rec_bound(s, th, th == sel ? fed : NULL);
	}
	return rc;
}
