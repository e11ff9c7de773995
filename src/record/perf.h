/*
 * The kernel-facing perf layer.  Every call ptdbg makes to the perf
 * subsystem (perf_event_open, mmap/munmap of the rings, ioctl, fcntl,
 * the sysfs files of the PMUs, cpuid) goes through one ops table, so that
 * a simulated kernel can stand in for the real one: with
 * PTDBG_SIMULATE_PMU=pt (or bts) the pt and bts recorders run end to end
 * on machines without a PMU, through the same event setup, ring reading
 * and decoding a user's machine runs.
 *
 * The simulated kernel follows the perf ABI to the letter
 * (include/uapi/linux/perf_event.h): the first page of the data mapping is
 * a struct perf_event_mmap_page, data_head/aux_head advance and wrap at
 * the configured sizes, records are written as the kernel writes them
 * (PERF_RECORD_AUX with its flags, ITRACE_START, LOST, MMAP2, SAMPLE).
 * The "hardware" under it is a branch source it runs under the program
 * (the step recorder, exact), written out as Intel PT (ptsynth) or as BTS
 * samples.  That is why the layer also resumes threads and sees their
 * stops: the real kernel's PMU records while the thread runs, the
 * simulated one records by running it.
 *
 * Ring readers (ptd_perf_ring_*) are pure functions over a mapping and
 * are unit-tested on synthetic rings.
 */
#ifndef PTD_RECORD_PERF_H
#define PTD_RECORD_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct ptd_target;
struct ptd_stop;
struct ptd_perf_kernel;

struct ptd_perf_kernel_ops {
	/* Reads the file @rel below /sys/bus/event_source/devices/
	 * ("intel_pt/type", "intel_pt/caps/psb_cyc", "intel_pt/format/pt")
	 * into @buf, NUL-terminated, trailing newline removed.  Returns its
	 * length or -errno (-ENOENT: no such PMU or file). */
	long (*read_sysfs)(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n);
	/* Reads a file below /proc/sys/ ("kernel/perf_event_paranoid",
	 * "kernel/yama/ptrace_scope"), as read_sysfs. */
	long (*read_procsys)(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n);
	/* perf_event_open(2): returns an fd or -errno. */
	int (*open)(struct ptd_perf_kernel *k, struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags);
	int (*close)(struct ptd_perf_kernel *k, int fd);
	/* mmap(2) of an event fd (data ring at offset 0, AUX area at the
	 * user page's aux_offset).  Returns the address, or NULL with -errno
	 * in *@err. */
	void *(*mmap)(struct ptd_perf_kernel *k, int fd, size_t len, int prot, off_t offset,
		      int *err);
	int (*munmap)(struct ptd_perf_kernel *k, void *addr, size_t len);
	/* ioctl(2) on an event fd (PERF_EVENT_IOC_ENABLE, _DISABLE,
	 * _SET_FILTER with a string @arg, ...): 0 or -errno. */
	int (*ioctl)(struct ptd_perf_kernel *k, int fd, unsigned long req, unsigned long arg);
	/* fcntl(2) on an event fd (F_SETOWN, F_SETSIG, F_SETFL O_ASYNC for
	 * watermark wake-ups): the result or -errno. */
	int (*fcntl)(struct ptd_perf_kernel *k, int fd, int cmd, long arg);
	/* cpuid(@leaf, @subleaf) into @r (eax, ebx, ecx, edx). */
	void (*cpuid)(struct ptd_perf_kernel *k, unsigned leaf, unsigned subleaf, unsigned r[4]);
	/* Resumes stopped thread @tid of the target (single-step when @step,
	 * delivering @signo).  The real kernel: ptd_target_resume. */
	int (*resume)(struct ptd_perf_kernel *k, pid_t tid, int step, int signo);
	/* Every stop of the target: 1 when it was the kernel's own (the
	 * simulation stepping the program; it resumed the thread), 0 when
	 * the caller's.  The real kernel: always 0.  Before returning 0 for
	 * a stop of a thread with an event, the simulated kernel has written
	 * everything the thread executed into its rings, as the real PMU has
	 * when the thread entered the kernel. */
	int (*on_stop)(struct ptd_perf_kernel *k, const struct ptd_stop *st);
	void (*free)(struct ptd_perf_kernel *k);
	/* Added by h2.  Lists the entries of directory @rel below
	 * /sys/bus/event_source/devices/ ("intel_pt/format") into @buf as
	 * NUL-terminated names one after the other, sorted.  Returns the
	 * number of names or -errno.  May be NULL (ptd_perf_pmu_read then
	 * probes the terms and caps it knows by name). */
	int (*list_sysfs)(struct ptd_perf_kernel *k, const char *rel, char *buf, size_t n);
	/* Added by h2.  The caller is about to read the rings of @tid (0:
	 * every thread) while the thread is stopped, also at stops that never
	 * went through on_stop (the interrupts of ptd_target_stop_all).  The
	 * real kernel needs nothing (a stopped thread is off the CPU, its
	 * trace is in the rings); the simulated one writes what it staged.
	 * Returns 0 or a negative ptd_error.  May be NULL. */
	int (*sync)(struct ptd_perf_kernel *k, pid_t tid);
};

struct ptd_perf_kernel {
	const struct ptd_perf_kernel_ops *ops;
	const char *name;    /* "linux", "simulated pt", "simulated bts" */
	int simulated;
	struct ptd_target *t; /* set with ptd_perf_kernel_set_target */
	void *priv;
};

/* The running kernel. */
struct ptd_perf_kernel *ptd_perf_kernel_linux(void);
/* The running kernel with sysfs and /proc/sys files read below other
 * roots (tests give it a fake tree): @sysfs_root stands for
 * /sys/bus/event_source/devices, @procsys_root for /proc/sys; NULL keeps
 * the real one.  (Added by h2.) */
struct ptd_perf_kernel *ptd_perf_kernel_linux_root(const char *sysfs_root, const char *procsys_root);
/* A simulated kernel with an Intel PT PMU (@what "pt") or a BTS-capable
 * CPU (@what "bts"); NULL with the message set for anything else. */
struct ptd_perf_kernel *ptd_perf_kernel_sim(const char *what);
/* The simulated kernel when PTDBG_SIMULATE_PMU is set (an unknown value
 * is an error, never ignored), the running kernel otherwise.  NULL with
 * the message set on error. */
struct ptd_perf_kernel *ptd_perf_kernel_default(void);
/*
 * Simulated kernel only (added by h2; no-ops on another kernel):
 * ptd_perf_sim_fail makes the next call of @op ("open", "mmap", "ioctl",
 * "fcntl") fail with -@err (ENOENT, EACCES, EINVAL, ENOMEM, EOPNOTSUPP...).
 * ptd_perf_sim_set_paranoid sets kernel/perf_event_paranoid as the
 * simulation shows it and enforces it (3: every open fails with EACCES,
 * 2: kernel tracing is refused); the default is -1 (permissive).  The
 * environment variable PTDBG_SIM_PARANOID sets the initial value.
 * ptd_perf_sim_stats gives what the simulation did, for tests.
 */
void ptd_perf_sim_fail(struct ptd_perf_kernel *k, const char *op, int err);
void ptd_perf_sim_set_paranoid(struct ptd_perf_kernel *k, int level);
struct ptd_perf_sim_stats {
	uint64_t steps;       /* single-steps the simulation took */
	uint64_t own_stops;   /* stops it kept to itself */
	uint64_t aux_bytes;   /* AUX bytes written (before overwrite/truncation) */
	uint64_t aux_records; /* PERF_RECORD_AUX written */
	uint64_t samples;     /* PERF_RECORD_SAMPLE written */
	uint64_t lost;        /* records lost (PERF_RECORD_LOST counts) */
	uint64_t signals;     /* watermark signals sent */
};
void ptd_perf_sim_stats(const struct ptd_perf_kernel *k, struct ptd_perf_sim_stats *st);
/* Tests: every block the simulation's step recorder records for @tid is
 * also appended to @h (not owned), the exact history the trace written
 * into the rings must decode to. */
struct ptd_history;
void ptd_perf_sim_keep_history(struct ptd_perf_kernel *k, pid_t tid, struct ptd_history *h);
/* The target whose threads events are opened for (pid = tid). */
void ptd_perf_kernel_set_target(struct ptd_perf_kernel *k, struct ptd_target *t);
static inline void ptd_perf_kernel_free(struct ptd_perf_kernel *k)
{
	if (k)
		k->ops->free(k);
}

/*
 * A PMU's description from sysfs: its type, the config bit position of
 * each format term ("config:0" -> field 0, bit 0; "config:14-17" -> bits
 * 14..17; config1/config2 too), and caps/ * values.  Parsed, never
 * hard-coded.
 */
struct ptd_perf_format {
	char name[32];
	int field; /* 0: config, 1: config1, 2: config2 */
	int lo, hi;
};
struct ptd_perf_pmu {
	char name[32]; /* "intel_pt" */
	uint32_t type;
	struct ptd_perf_format fmt[48];
	int nfmt;
	struct {
		char name[40];
		uint64_t value;
	} caps[48];
	int ncaps;
};
/* Reads PMU @name through @k.  A format term whose bits come in several
 * ranges ("config:0-3,8-11") and a cap that is not a number
 * ("tsc_art_ratio" is "2:216") are left out.  Returns 0, -ptde_notfound
 * (no such PMU, the message names the path), -ptde_bad_trace (unparsable
 * type or format file). */
int ptd_perf_pmu_read(struct ptd_perf_kernel *k, const char *name, struct ptd_perf_pmu *pmu);
/* A cap's value, or @def when absent. */
uint64_t ptd_perf_pmu_cap(const struct ptd_perf_pmu *pmu, const char *cap, uint64_t def);
/* Sets term @term to @value in @attr (config/config1/config2).  Returns 0
 * or -ptde_unsupported when the PMU has no such term, -ptde_invalid when
 * @value does not fit. */
int ptd_perf_pmu_set(const struct ptd_perf_pmu *pmu, struct perf_event_attr *attr,
		     const char *term, uint64_t value);

/* ---- ring readers -------------------------------------------------------------------------------- */

/*
 * The data ring: @base is the mapping (user page + 2^n data pages).
 * Records between the last read position and data_head are copied out
 * in order (a record split across the ring end is joined); head is read
 * with acquire semantics, data_tail written with release semantics after
 * the records were consumed (when @writable).
 */
struct ptd_perf_ring {
	volatile struct perf_event_mmap_page *pg;
	uint8_t *data;
	uint64_t size;  /* data_size */
	uint64_t tail;  /* what was consumed */
	int writable;   /* PROT_WRITE mapping: data_tail is ours to advance */
};
int ptd_perf_ring_init(struct ptd_perf_ring *r, void *base, size_t map_len, int writable);
/* Calls @fn for each record (a contiguous copy; a record split across the
 * ring end is joined) written since the last call.  A writable ring is
 * never overwritten by the kernel (it drops records and says so with
 * PERF_RECORD_LOST, which @fn gets).  A read-only ring is: when head moved
 * more than the ring's size past the last read, the records in between
 * cannot be delimited any more; none of them is given, *@lost gets the
 * bytes skipped and reading goes on from head.  A record whose size is
 * below its header or runs past head is corruption: -ptde_bad_trace.
 * Returns the number of records given or <0 (@fn's negative return). */
int ptd_perf_ring_read(struct ptd_perf_ring *r,
		       int (*fn)(void *ctx, const struct perf_event_header *h, const void *rec),
		       void *ctx, uint64_t *lost);

/*
 * The same for a read-only ring whose records all have @rec_size bytes
 * (BTS samples of one sample_type): when the kernel overwrote records
 * since the last read, the newest ones still in the ring (those ending at
 * data_head, whole) are given, as gdb reads its BTS buffer, and *@lost
 * gets the bytes before them that are gone.  A record of another size is
 * -ptde_bad_trace.  (Added by h2.)
 */
int ptd_perf_ring_read_fixed(struct ptd_perf_ring *r, size_t rec_size,
			     int (*fn)(void *ctx, const struct perf_event_header *h, const void *rec),
			     void *ctx, uint64_t *lost);

/*
 * The AUX area.  Circular (read-only mapping, the kernel overwrites the
 * oldest data; the newest survives, gdb's default) or linear (read-write,
 * the kernel stops at aux_tail and reports TRUNCATED).
 */
struct ptd_perf_aux {
	volatile struct perf_event_mmap_page *pg;
	uint8_t *data;
	uint64_t size;   /* aux_size */
	uint64_t tail;   /* consumed up to (linear), or last head seen (circular) */
	int linear;
};
int ptd_perf_aux_init(struct ptd_perf_aux *a, volatile struct perf_event_mmap_page *pg, void *aux,
		      uint64_t size, int linear);
/*
 * Copies the bytes written since the last call into @out (appended,
 * grown with realloc).  Circular: when head moved more than the size,
 * only the newest @size bytes exist and *@wrapped is set (bytes before
 * them are lost; the copy starts at head - size and the decoder must
 * resync at a PSB).  A circular head that went back (the Intel PT
 * driver's snapshot mode reports a position inside the buffer) gives the
 * whole buffer, oldest byte at head, with *@wrapped set.  Linear:
 * aux_tail is advanced (release, after a full barrier) after copying; a
 * head more than the size past it is -ptde_bad_trace.  Returns the bytes
 * copied or <0.
 */
long ptd_perf_aux_read(struct ptd_perf_aux *a, uint8_t **out, size_t *out_size, size_t *out_cap,
		       int *wrapped);

/* perf time from a TSC value with the user page's time_* fields (0 when
 * cap_user_time_zero is not set). */
uint64_t ptd_perf_tsc_to_time(const volatile struct perf_event_mmap_page *pg, uint64_t tsc);

#endif
