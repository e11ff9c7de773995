/*
 * Internals shared by the parts of the simulated perf kernel: simpmu.c
 * (the kernel: sysfs, cpuid, perf_event_open's checks, the rings, ioctl,
 * fcntl), simpmu_rec.c (the records written into the rings) and
 * simpmu_hw.c (the "hardware": the
 * step recorder run under the program, its branches written as Intel PT
 * or BTS samples).
 */
#ifndef PTD_RECORD_SIMPMU_H
#define PTD_RECORD_SIMPMU_H

#include <stdint.h>
#include <sys/types.h>

#include "history/history.h"
#include "record/perf.h"
#include "record/ptsynth.h"
#include "record/step.h"

enum sim_kind { SIM_PT = 1, SIM_BTS = 2 };

#define SIM_PT_TYPE 8
#define SIM_MAX_FILTERS 2

struct sim_filter {
	uint64_t lo, hi;    /* [lo, hi) in the thread's address space; empty
			     * while the file is not mapped */
	uint64_t off, size; /* the range in the file */
	char *file;
};

struct sim_event {
	struct sim_event *next;
	int fd;
	int closed;
	pid_t tid;
	pid_t pid; /* its process */
	int is_pt; /* else BTS */
	struct perf_event_attr attr;
	uint64_t id;
	int enabled;
	int itrace_started;
	int exec_pending; /* enable_on_exec */

	/* data ring: the caller's mapping and ours (the same pages) */
	void *user_map, *sim_map;
	size_t map_len;
	int ring_writable;
	uint64_t data_size;
	uint64_t lost;	    /* records dropped since the last LOST record */
	uint64_t wake_data; /* data_head at the last wakeup */
	uint64_t wake_samples;
	/* AUX area */
	void *user_aux, *sim_aux;
	size_t aux_len;
	int aux_linear;
	uint64_t wake_aux;

	/* fcntl */
	pid_t owner;
	int sig;
	int async;

	/* filters (PERF_EVENT_IOC_SET_FILTER) */
	struct sim_filter filt[SIM_MAX_FILTERS];
	int nfilt;

	/* the hardware's per-thread state */
	int recording; /* the thread is in the step recorder */
	struct ptd_history *stage;
	struct ptd_ptsynth *synth;
	uint8_t *bts; /* staged BTS samples: (from, to) pairs */
	size_t nbts, capbts;
	int caller_step;
	/* filtered conversion: the held block, and whether tracing starts
	 * after a stop (PSB+ first) */
	struct ptd_block prev;
	int have_prev;
	int fresh;
	uint64_t start_pc;
	uint64_t last_pc; /* where the step recorder has the thread */
	int in_execve;
	/* The thread stopped in its exit (PTD_STOP_EXITING): it never runs
	 * user code again; resuming it lets it exit. */
	int exiting;
	int sys_nr; /* syscall the pending step executes, -1: none */
	uint64_t sys_args[3];
};

struct sim {
	struct ptd_perf_kernel k;
	enum sim_kind kind;
	int paranoid;
	char fail_op[16];
	int fail_err;
	struct sim_event *ev;
	uint64_t next_id;
	struct ptd_steprec *sr;
	struct ptd_target *sr_target;
	struct ptd_perf_sim_stats st;
	struct ptd_history *keep; /* tests: the exact history of keep_tid */
	pid_t keep_tid;
	long page;
};

static inline volatile struct perf_event_mmap_page *ptd__sim_upage(struct sim_event *e)
{
	return e->sim_map;
}

/* simpmu_rec.c: records into an event's data ring (dropped, and counted for
 * PERF_RECORD_LOST, when a writable ring is full). */
int ptd__sim_output(struct sim *s, struct sim_event *e, const void *rec, size_t size);
void ptd__sim_aux_output(struct sim *s, struct sim_event *e, const uint8_t *buf, size_t n);
void ptd__sim_mmap_records(struct sim *s, struct sim_event *e, uint64_t addr, int all);
void ptd__sim_itrace_start(struct sim *s, struct sim_event *e);
int ptd__sim_sample_size(const struct sim_event *e);
/* The sample_id trailer of sample_id_all into @out (up to 6 words);
 * returns its size in bytes (0 without sample_id_all). */
size_t ptd__sim_sample_id(const struct sim_event *e, uint64_t *out);
void ptd__sim_wakeup_check(struct sim *s, struct sim_event *e);
/* Maps the filters' file ranges to addresses again (after mmap, exec),
 * as perf_event_addr_filters_apply does. */
void ptd__sim_filters_apply(struct sim *s, struct sim_event *e);

/* simpmu_hw.c */
int ptd__sim_resume(struct sim *s, pid_t tid, int step, int signo);
int ptd__sim_on_stop(struct sim *s, const struct ptd_stop *st);
/* Writes what @e's thread executed into its rings and ends tracing
 * there (the thread stopped). */
int ptd__sim_finish(struct sim *s, struct sim_event *e);
/* The thread stops being recorded (disable, close, exit). */
int ptd__sim_stop_recording(struct sim *s, struct sim_event *e);
struct sim_event *ptd__sim_event_of(struct sim *s, pid_t tid);

#endif
