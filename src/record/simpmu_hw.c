/*
 * The simulated perf kernel, its hardware half (see simpmu.h).
 *
 * A real PMU records while the thread runs; the simulated one records by
 * running it: a thread with an enabled event is single-stepped under the
 * step recorder (exact), whatever its caller asked for, and the stops
 * that only serve the simulation are kept from the caller (on_stop
 * returns 1 and resumes the thread).  What the thread executed becomes
 * Intel PT (ptconv/ptsynth: PSB+ when tracing is enabled and every
 * psb_period bytes, return compression as configured, TIP.PGD when the
 * thread enters the kernel and stops there, TIP.PGE when it resumes, FUP
 * + PGD/PGE around a signal delivery) or BTS samples (one per taken
 * branch; branches to or from the kernel are dropped, as with
 * exclude_kernel), written into the rings when the thread stops for its
 * caller, and on the way when much is staged (the kernel writes at
 * interrupts too), so small buffers wrap while the program runs.
 *
 * Code is converted while it is mapped: each completed block at once,
 * and the staged blocks before a syscall that may unmap or exec.
 *
 * Address filters (PERF_EVENT_IOC_SET_FILTER) are applied as FilterEn
 * ranges: TIP.PGD at a branch out of them, TIP.PGE (after a PSB+ when
 * due) at a branch back in, nothing written in between.
 */
#include "record/simpmu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "disasm/disasm.h"
#include "record/ptconv.h"
#include "target/target.h"
#include "util/error.h"

static int read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct sim *s = ctx;
	long r = s->k.t ? ptd_target_read(s->k.t, addr, buf, n) : -1;

	return r < 0 ? -1 : (int)r;
}

static struct sim_event *recording_of(struct sim *s, pid_t tid)
{
	for (struct sim_event *e = s->ev; e; e = e->next)
		if (e->tid == tid && e->recording)
			return e;
	return NULL;
}

static int ensure_sr(struct sim *s)
{
	if (s->sr && s->sr_target == s->k.t)
		return 0;
	for (struct sim_event *e = s->ev; e; e = e->next)
		e->recording = 0;
	ptd_steprec_free(s->sr);
	s->sr = ptd_steprec_alloc(s->k.t);
	s->sr_target = s->k.t;
	return s->sr ? 0 : ptd__err(-ptde_nomem, "simulated PMU: out of memory");
}

static struct ptd_ptsynth *new_synth(const struct sim_event *e)
{
	struct ptd_ptsynth_config c;
	uint64_t cfg = e->attr.config;

	memset(&c, 0, sizeof(c));
	/* RTIT_CTL.PSBFreq n: a PSB every 2K << n bytes; bits from the
	 * format terms the simulated sysfs shows. */
	c.psb_period = 2048u << ((cfg >> 24) & 0xf);
	c.ret_compression = !((cfg >> 11) & 1);
	c.tsc = (cfg >> 10) & 1;
	c.tnt64 = 0;
	c.psb_on_begin = 1; /* TraceEn set again after a context switch: PSB+ */
	c.fup_pge = 1;
	c.family = 6;
	c.model = 0x5e;
	c.stepping = 3;
	return ptd_ptsynth_alloc(&c);
}

/* Is @tid stopped inside execve (the exec event stop of a launch)?  Its
 * first single-step then only completes the syscall and traps at the
 * entry point without executing it. */
static int in_execve(pid_t tid)
{
	char path[64], buf[32] = "";
	FILE *f;
	long nr = -1;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		nr = strtol(buf, NULL, 10);
	fclose(f);
	return nr == SYS_execve || nr == SYS_execveat;
}

static int start_recording(struct sim *s, struct sim_event *e)
{
	uint64_t pc;
	int rc = ensure_sr(s);

	if (rc < 0)
		return rc;
	rc = ptd_target_get_pc(s->k.t, e->tid, &pc);
	if (rc < 0)
		return rc;
	if (!e->stage)
		e->stage = ptd_history_alloc(read_code, s);
	if (e->is_pt && !e->synth)
		e->synth = new_synth(e);
	if (!e->stage || (e->is_pt && !e->synth))
		return ptd__err(-ptde_nomem, "simulated PMU: out of memory");
	rc = ptd_steprec_add_thread(s->sr, e->tid, e->stage, pc);
	if (rc < 0)
		return rc;
	e->recording = 1;
	e->fresh = 1;
	e->have_prev = 0;
	e->start_pc = pc;
	e->last_pc = pc;
	e->in_execve = in_execve(e->tid);
	e->exiting = 0;
	e->sys_nr = -1;
	if (e->is_pt)
		ptd__sim_itrace_start(s, e);
	return 0;
}

/* BTS: a (from, to) pair per taken branch of the staged blocks. */
static int bts_push(struct sim_event *e, uint64_t from, uint64_t to)
{
	if ((e->nbts + 1) * 16 > e->capbts) {
		size_t cap = e->capbts ? 2 * e->capbts : 4096;
		uint8_t *p = realloc(e->bts, cap);
		if (!p)
			return -ptde_nomem;
		e->bts = p;
		e->capbts = cap;
	}
	memcpy(e->bts + e->nbts * 16, &from, 8);
	memcpy(e->bts + e->nbts * 16 + 8, &to, 8);
	e->nbts++;
	return 0;
}

static int bts_convert(struct sim *s, struct sim_event *e, uint64_t next_ip)
{
	uint64_t n = ptd_history_nitems(e->stage);
	struct ptd_item it, nx;
	int rc = 0;

	for (uint64_t i = 0; i < n && rc == 0; i++) {
		uint64_t succ = next_ip;
		if (!ptd_history_item(e->stage, i, &it))
			return -ptde_internal;
		if (it.kind != PTD_ITEM_BLOCK)
			continue;
		switch (it.block.iclass) {
		case PTD_IC_CALL:
		case PTD_IC_RET:
		case PTD_IC_JUMP:
		case PTD_IC_COND_JUMP:
			break;
		default:
			continue; /* no branch, or one into the kernel: no record */
		}
		if (i + 1 < n && ptd_history_item(e->stage, i + 1, &nx))
			succ = nx.block.ip;
		if (!succ)
			continue;
		if (it.block.iclass == PTD_IC_COND_JUMP) {
			uint8_t buf[16];
			struct ptd_insn_info info;
			int got = read_code(s, it.block.end_ip, buf, sizeof(buf));
			if (got <= 0 ||
			    ptd_disasm_decode(buf, (size_t)got, it.block.end_ip, &info) < 0)
				return ptd__err(-ptde_bad_insn,
						"simulated PMU: cannot decode the branch at 0x%llx",
						(unsigned long long)it.block.end_ip);
			if (succ == it.block.end_ip + info.len)
				continue; /* not taken */
		}
		rc = bts_push(e, it.block.end_ip, succ);
	}
	return rc;
}

/* ---- IP filtering (RTIT_ADDRn_A/B as FilterEn ranges) -----------------------------------------
 */

static int filtered(const struct sim_event *e)
{
	for (int i = 0; i < e->nfilt; i++)
		if (e->filt[i].hi > e->filt[i].lo)
			return 1;
	return 0;
}

static int in_range(const struct sim_event *e, uint64_t ip)
{
	for (int i = 0; i < e->nfilt; i++)
		if (ip >= e->filt[i].lo && ip < e->filt[i].hi)
			return 1;
	return 0;
}

/*
 * How held block @b ended, execution going on at @next: inside the
 * ranges the outcome packet, out of them TIP.PGD(@next) for a near branch
 * or a PGD without IP for a far transfer (FilterEn is evaluated at
 * branches; a block running linearly out of a range is left there too,
 * since the simulation only knows blocks).
 */
static int fresolve(struct sim *s, struct sim_event *e, const struct ptd_block *b, uint64_t next)
{
	struct ptd_insn_info info;
	uint8_t buf[16];
	uint64_t fall;
	int got;

	if (!in_range(e, next)) {
		if (b->iclass == PTD_IC_FAR_CALL || b->iclass == PTD_IC_FAR_RET ||
		    b->iclass == PTD_IC_FAR_JUMP)
			return ptd_ptsynth_syscall(e->synth, 0);
		return ptd_ptsynth_leave(e->synth, next);
	}
	if (b->iclass == PTD_IC_OTHER)
		return 0;
	got = read_code(s, b->end_ip, buf, sizeof(buf));
	if (got <= 0 || ptd_disasm_decode(buf, (size_t)got, b->end_ip, &info) < 0)
		return ptd__err(-ptde_bad_insn, "simulated PMU: cannot decode the branch at 0x%llx",
				(unsigned long long)b->end_ip);
	fall = b->end_ip + info.len;
	switch (b->iclass) {
	case PTD_IC_COND_JUMP:
		return ptd_ptsynth_cond(e->synth, next != fall, next);
	case PTD_IC_JUMP:
		return (info.flags & PTD_INSN_INDIRECT) ? ptd_ptsynth_indirect(e->synth, next) : 0;
	case PTD_IC_CALL:
		return (info.flags & PTD_INSN_INDIRECT) ? ptd_ptsynth_icall(e->synth, fall, next)
							: ptd_ptsynth_call(e->synth, fall);
	case PTD_IC_RET:
		return ptd_ptsynth_ret(e->synth, next);
	default:
		return ptd_ptsynth_syscall(e->synth, next);
	}
}

/* (Re)enables tracing at @ip when it is in a range. */
static int fenter(struct sim_event *e, uint64_t ip)
{
	int rc;

	if (ptd_ptsynth_enabled(e->synth) || !ip || !in_range(e, ip))
		return 0;
	rc = e->fresh ? ptd_ptsynth_begin(e->synth, ip) : ptd_ptsynth_enter(e->synth, ip);
	e->fresh = 0;
	return rc;
}

/* The staged blocks as PT with the filters applied; @end: the thread
 * stopped at @next. */
static int fconvert(struct sim *s, struct sim_event *e, uint64_t next, int end)
{
	uint64_t n = ptd_history_nitems(e->stage);
	struct ptd_item it, nx;
	int rc = 0;

	for (uint64_t i = 0; i < n && rc == 0; i++) {
		if (!ptd_history_item(e->stage, i, &it))
			return -ptde_internal;
		if (it.kind == PTD_ITEM_BLOCK) {
			if (e->have_prev && ptd_ptsynth_enabled(e->synth))
				rc = fresolve(s, e, &e->prev, it.block.ip);
			e->have_prev = 0;
			if (rc == 0)
				rc = fenter(e, it.block.ip);
			if (ptd_ptsynth_enabled(e->synth)) {
				e->prev = it.block;
				e->have_prev = 1;
			}
		} else if (it.kind == PTD_ITEM_EVENT && it.reason == PTD_EV_SIGNAL) {
			uint64_t target = next;
			for (uint64_t j = i + 1; j < n && ptd_history_item(e->stage, j, &nx); j++)
				if (nx.kind == PTD_ITEM_BLOCK) {
					target = nx.block.ip;
					break;
				}
			if (ptd_ptsynth_enabled(e->synth)) {
				if (e->have_prev)
					rc = fresolve(s, e, &e->prev, it.block.ip);
				e->have_prev = 0;
				if (rc == 0 && ptd_ptsynth_enabled(e->synth)) {
					if (target && in_range(e, target))
						rc = ptd_ptsynth_async(e->synth, it.block.ip,
								       target);
					else
						rc = ptd_ptsynth_end(e->synth, it.block.ip);
				}
			}
		} else if (it.kind == PTD_ITEM_EVENT && it.reason == PTD_EV_EXEC) {
			e->have_prev = 0;
			if (ptd_ptsynth_enabled(e->synth))
				rc = ptd_ptsynth_syscall(e->synth, 0);
			e->fresh = 1;
		}
	}
	if (rc == 0 && e->have_prev && ptd_ptsynth_enabled(e->synth) && next) {
		/* the held block's successor is where execution goes on */
		if (!end || !in_range(e, next) || e->prev.iclass != PTD_IC_OTHER)
			rc = fresolve(s, e, &e->prev, next);
		e->have_prev = 0;
	}
	if (rc == 0 && end) {
		if (ptd_ptsynth_enabled(e->synth))
			rc = ptd_ptsynth_end(e->synth, next);
		else
			rc = ptd_ptsynth_flush(e->synth);
		e->have_prev = 0;
		e->fresh = 1;
	}
	return rc;
}

/* Converts the staged blocks; @end: the thread stopped (tracing ends). */
static int convert(struct sim *s, struct sim_event *e, int end)
{
	uint64_t next;
	int rc;

	if (end)
		ptd_steprec_flush(s->sr, e->tid);
	next = ptd_steprec_next_ip(s->sr, e->tid);
	if (e->is_pt && filtered(e)) {
		rc = fconvert(s, e, next, end);
	} else if (e->is_pt) {
		if (end)
			rc = ptd_ptconv_history(e->synth, e->stage, next, read_code, s);
		else if (ptd_history_nitems(e->stage) == 0)
			return 0;
		else
			rc = ptd_ptconv_partial(e->synth, e->stage, next, read_code, s);
	} else {
		rc = bts_convert(s, e, next);
	}
	if (s->keep && e->tid == s->keep_tid && rc == 0)
		rc = ptd_history_append_history(s->keep, e->stage);
	ptd_history_clear(e->stage);
	ptd_history_set_tail(e->stage, next);
	return rc;
}

static void write_bts(struct sim *s, struct sim_event *e)
{
	size_t one = (size_t)ptd__sim_sample_size(e), n = e->nbts;
	uint64_t t = e->attr.sample_type;
	uint8_t *buf;

	if (n == 0)
		return;
	buf = malloc(one * n);
	if (!buf) {
		e->lost++;
		e->nbts = 0;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t *p = (uint64_t *)(buf + i * one), from, to;
		struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
					      (uint16_t)one};
		int k = 1;
		memcpy(&from, e->bts + i * 16, 8);
		memcpy(&to, e->bts + i * 16 + 8, 8);
		memcpy(p, &h, sizeof(h));
		/* perf_output_sample's order */
		if (t & PERF_SAMPLE_IDENTIFIER)
			p[k++] = e->id;
		if (t & PERF_SAMPLE_IP)
			p[k++] = from;
		if (t & PERF_SAMPLE_TID)
			p[k++] = (uint64_t)(uint32_t)e->tid << 32 | (uint32_t)e->pid;
		if (t & PERF_SAMPLE_TIME)
			p[k++] = 0;
		if (t & PERF_SAMPLE_ADDR)
			p[k++] = to;
		if (t & PERF_SAMPLE_ID)
			p[k++] = e->id;
		if (t & PERF_SAMPLE_STREAM_ID)
			p[k++] = e->id;
		if (t & PERF_SAMPLE_CPU)
			p[k++] = 0;
		if (t & PERF_SAMPLE_PERIOD)
			p[k++] = 1;
	}
	/* One perf_output_begin for the whole drained BTS buffer, as
	 * intel_pmu_drain_bts_buffer does: all of it fits or it is lost. */
	if (ptd__sim_output(s, e, buf, one * n) == 0) {
		s->st.samples += n;
		e->wake_samples += n;
		ptd__sim_wakeup_check(s, e);
	}
	free(buf);
	e->nbts = 0;
}

/* Moves what is staged into the rings (nothing while disabled). */
static void write_out(struct sim *s, struct sim_event *e)
{
	if (e->is_pt) {
		size_t n = 0;
		uint8_t *b = ptd_ptsynth_take(e->synth, &n);
		if (b && e->enabled)
			ptd__sim_aux_output(s, e, b, n);
		free(b);
	} else if (e->enabled) {
		write_bts(s, e);
	} else {
		e->nbts = 0;
	}
}

static size_t staged(const struct sim_event *e)
{
	size_t n = 0;

	if (e->is_pt)
		ptd_ptsynth_data(e->synth, &n);
	else
		n = e->nbts * (size_t)ptd__sim_sample_size(e);
	return n;
}

static size_t staged_limit(const struct sim_event *e)
{
	size_t lim = e->is_pt ? e->aux_len / 8 : e->data_size / 8;

	return lim < 256 ? 256 : lim;
}

int ptd__sim_finish(struct sim *s, struct sim_event *e)
{
	int rc;

	if (!e->recording)
		return 0;
	rc = convert(s, e, 1);
	write_out(s, e);
	return rc;
}

int ptd__sim_stop_recording(struct sim *s, struct sim_event *e)
{
	int rc = ptd__sim_finish(s, e);

	if (e->recording)
		ptd_steprec_remove_thread(s->sr, e->tid);
	e->recording = 0;
	return rc;
}

static int sim_step(struct sim *s, struct sim_event *e, int signo)
{
	struct user_regs_struct regs;
	int rc;

	if (signo < 0)
		signo = ptd_target_pending_signal(s->k.t, e->tid);
	rc = ptd_steprec_before_step(s->sr, e->tid, signo);
	e->sys_nr = -1;
	if (rc == 1) {
		/* The syscall may unmap code or exec: convert while mapped. */
		rc = convert(s, e, 0);
		if (rc < 0)
			return rc;
		if (ptd_target_get_regs(s->k.t, e->tid, &regs) == 0 &&
		    (regs.rax == SYS_mmap || regs.rax == SYS_mprotect)) {
			e->sys_nr = (int)regs.rax;
			e->sys_args[0] = regs.rdi;
			e->sys_args[1] = regs.rsi;
			e->sys_args[2] = regs.rdx;
		}
	}
	s->st.steps++;
	return ptd_target_resume(s->k.t, e->tid, 1, signo);
}

/* At a syscall's event stop (clone, fork, exec) the pc is already past
 * the syscall instruction the step recorder has not seen complete. */
static int in_syscall_at(struct sim *s, uint64_t at, uint64_t pc)
{
	uint8_t b[2];

	if (pc != at + 2 || read_code(s, at, b, 2) != 2)
		return 0;
	return (b[0] == 0x0f && (b[1] == 0x05 || b[1] == 0x34)) || (b[0] == 0xcd && b[1] == 0x80);
}

/*
 * @e's thread stopped in its exit (PTRACE_EVENT_EXIT) at @pc, past the
 * syscall it was in (exit, exit_group, or one it was blocked in when
 * another thread's exit_group killed it).  The step over that syscall
 * never completes, but the CPU executed it: the hardware traced it and
 * the thread's entry into the kernel, where user-only tracing stays off
 * (PT: the syscall's outcome, TIP.PGD; BTS: no record, the branch goes
 * into the kernel).  The trace ends there, written out now, as the
 * kernel has it in the rings when the thread stopped.
 */
static int exit_stop(struct sim *s, struct sim_event *e, uint64_t pc)
{
	struct user_regs_struct regs;
	int rc = 0;

	e->exiting = 1;
	if (!in_syscall_at(s, e->last_pc, pc) || ptd_target_get_regs(s->k.t, e->tid, &regs) < 0 ||
	    (int64_t)regs.orig_rax < 0)
		return ptd__sim_finish(s, e); /* not in a syscall: it stops where it was */
	e->last_pc = pc;
	/* What the step recorder has, without the syscall that never
	 * completed, is the exact history (tests compare with it). */
	rc = ptd_steprec_flush(s->sr, e->tid);
	if (s->keep && e->tid == s->keep_tid && rc == 0)
		rc = ptd_history_append_history(s->keep, e->stage);
	if (rc == 0)
		rc = ptd_steprec_stepped(s->sr, e->tid, pc);
	if (rc == 0)
		rc = ptd_steprec_flush(s->sr, e->tid);
	if (rc < 0)
		return rc;
	if (e->is_pt && !filtered(e))
		rc = ptd_ptconv_exit(e->synth, e->stage, read_code, s);
	else if (e->is_pt)
		rc = fconvert(s, e, pc, 1);
	else
		rc = bts_convert(s, e, pc);
	ptd_history_clear(e->stage);
	ptd_history_set_tail(e->stage, 0);
	if (e->is_pt && rc == 0)
		rc = ptd_ptsynth_flush(e->synth);
	e->fresh = 1;
	write_out(s, e);
	return rc;
}

int ptd__sim_resume(struct sim *s, pid_t tid, int step, int signo)
{
	struct sim_event *e;
	int rc;

	if (!s->k.t)
		return ptd__err(-ptde_not_running, "simulated PMU: no target");
	if (ptd_target_thread_state(s->k.t, tid) != PTD_THREAD_STOPPED)
		return ptd_target_resume(s->k.t, tid, step, signo);
	e = recording_of(s, tid);
	if (!e) {
		e = ptd__sim_event_of(s, tid);
		if (e && (!e->is_pt || e->user_aux) && e->user_map) {
			rc = start_recording(s, e);
			if (rc < 0)
				return rc;
		} else {
			e = NULL;
		}
	}
	if (!e || e->exiting)
		/* (an exiting thread only goes on to exit) */
		return ptd_target_resume(s->k.t, tid, step, signo);
	{
		/* The caller moved the pc (jump, a return forced), or ran
		 * the thread around the simulation: tracing ends where it
		 * was and starts again here, as the hardware's PGD/PGE
		 * around a stop would show it. */
		uint64_t pc;
		if (ptd_target_get_pc(s->k.t, tid, &pc) == 0 && pc != e->last_pc &&
		    !in_syscall_at(s, e->last_pc, pc)) {
			ptd__sim_stop_recording(s, e);
			rc = start_recording(s, e);
			if (rc < 0)
				return rc;
		}
	}
	e->caller_step = step;
	return sim_step(s, e, signo);
}

/* The syscall the step just completed mapped code: MMAP2 after the trace
 * up to it, so the ring's order is the execution's. */
static void after_syscall(struct sim *s, struct sim_event *e)
{
	struct user_regs_struct regs;
	long ret;

	if (e->sys_nr < 0)
		return;
	if (ptd_target_get_regs(s->k.t, e->tid, &regs) == 0) {
		ret = (long)regs.rax;
		if (ret < 0 && ret > -4096) {
			/* failed: nothing mapped */
		} else if (e->sys_nr == SYS_mmap && (e->sys_args[2] & PROT_EXEC)) {
			convert(s, e, 0);
			write_out(s, e);
			ptd__sim_mmap_records(s, e, (uint64_t)ret, 0);
			ptd__sim_filters_apply(s, e);
		} else if (e->sys_nr == SYS_mprotect && (e->sys_args[2] & PROT_EXEC)) {
			convert(s, e, 0);
			write_out(s, e);
			ptd__sim_mmap_records(s, e, e->sys_args[0], 0);
			ptd__sim_filters_apply(s, e);
		}
	}
	e->sys_nr = -1;
}

static void comm_record(struct sim *s, struct sim_event *e)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[64];
	} r;
	char path[64];
	long n = 0;
	FILE *f;

	if (!e->attr.comm || !e->user_map)
		return;
	memset(&r, 0, sizeof(r));
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)e->tid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(r.comm, 16, f))
			n = (long)strcspn(r.comm, "\n");
		fclose(f);
	}
	r.comm[n] = 0;
	/* perf_event_comm(): misc is COMM_EXEC alone, and the record ends
	 * with the sample_id trailer like every other sideband record. */
	r.h.type = PERF_RECORD_COMM;
	r.h.misc = PERF_RECORD_MISC_COMM_EXEC;
	r.pid = (uint32_t)e->pid;
	r.tid = (uint32_t)e->tid;
	{
		size_t at = 16 + (size_t)((n + 1 + 7) & ~7L);
		uint64_t sid[6];
		size_t ns = ptd__sim_sample_id(e, sid);

		memcpy((char *)&r + at, sid, ns);
		r.h.size = (uint16_t)(at + ns);
	}
	ptd__sim_output(s, e, &r, r.h.size);
}

int ptd__sim_on_stop(struct sim *s, const struct ptd_stop *st)
{
	struct sim_event *e;
	int rc = 0;

	if (!st || !s->k.t)
		return 0;
	switch (st->kind) {
	case PTD_STOP_STEP:
		e = recording_of(s, st->tid);
		if (!e)
			return 0;
		e->last_pc = st->pc;
		if (e->in_execve && st->pc == e->start_pc) {
			e->in_execve = 0; /* the execve completed; nothing ran */
		} else {
			e->in_execve = 0;
			rc = ptd_steprec_stepped(s->sr, st->tid, st->pc);
			if (rc < 0)
				return rc;
		}
		after_syscall(s, e);
		rc = convert(s, e, 0);
		if (rc < 0)
			return rc;
		if (e->caller_step) {
			ptd__sim_finish(s, e);
			return 0;
		}
		if (ptd_target_stopping_all(s->k.t)) {
			/* The caller is stopping every thread: this one stays
			 * stopped, as if interrupted here. */
			ptd__sim_finish(s, e);
			return 0;
		}
		if (ptd_target_bp_at(s->k.t, st->pc)) {
			/* The program reached a debugger breakpoint: the
			 * hardware would run into its int3 and trap there, so
			 * the stop is the caller's (stepping on would step
			 * over the int3 and the breakpoint would never hit). */
			ptd__sim_finish(s, e);
			return 0;
		}
		if (staged(e) >= staged_limit(e))
			write_out(s, e);
		s->st.own_stops++;
		if (!e->enabled) {
			/* A full linear AUX area disabled the event: the thread
			 * runs on untraced until the reader enables it again. */
			ptd__sim_stop_recording(s, e);
			rc = ptd_target_resume(s->k.t, st->tid, 0, 0);
		} else {
			rc = sim_step(s, e, 0);
		}
		if (rc == -ptde_nosrch) {
			ptd_clear_error(); /* it vanished; its exit comes through the wait */
			return 1;
		}
		return rc < 0 ? rc : 1;
	case PTD_STOP_EXEC:
		for (e = s->ev; e; e = e->next)
			if (e->recording && e->tid != st->tid) {
				/* Every other thread is gone with the old program. */
				ptd__sim_finish(s, e);
				e->recording = 0;
			}
		e = recording_of(s, st->tid);
		if (e) {
			e->last_pc = st->pc;
			ptd_steprec_exec(s->sr, st->tid, st->pc);
			rc = ptd__sim_finish(s, e);
		}
		for (e = s->ev; e; e = e->next) {
			if (e->tid != st->tid || e->closed)
				continue;
			if (e->exec_pending) {
				e->exec_pending = 0;
				e->enabled = 1;
			}
			ptd__sim_filters_apply(s, e);
			if (e->enabled) {
				comm_record(s, e);
				ptd__sim_mmap_records(s, e, 0, 1);
			}
		}
		return rc < 0 ? rc : 0;
	case PTD_STOP_EXITING:
		e = recording_of(s, st->tid);
		if (!e || e->exiting)
			return 0;
		rc = exit_stop(s, e, st->pc);
		return rc < 0 ? rc : 0;
	case PTD_STOP_THREAD_EXIT:
		e = recording_of(s, st->tid);
		if (e)
			rc = ptd__sim_stop_recording(s, e);
		return rc < 0 ? rc : 0;
	case PTD_STOP_EXITED:
	case PTD_STOP_KILLED:
		for (e = s->ev; e; e = e->next)
			if (e->recording) {
				/* Nothing needs the code any more: the open blocks
				 * end without a branch. */
				ptd__sim_finish(s, e);
				e->recording = 0;
			}
		ptd_steprec_free(s->sr);
		s->sr = NULL;
		s->sr_target = NULL;
		return 0;
	default:
		e = recording_of(s, st->tid);
		if (e)
			rc = ptd__sim_finish(s, e);
		return rc < 0 ? rc : 0;
	}
}
