/*
 * perf.data in and out, for Intel PT recorded per thread (and in, for
 * intel_bts recorded per thread).
 *
 * ptd_perfdata_load() turns what `perf record -e intel_pt//u --per-thread
 * -- prog` writes into a struct ptd_bundle (one PT stream per thread, the
 * executable mappings, the cpu), so a perf.data is browsed exactly as a
 * loaded bundle is.  ptd_perfdata_save() writes a bundle as a perf.data
 * that perf's own Intel PT decoder (`perf script --itrace=...`) reads.
 *
 * Format facts (little-endian; the file as perf 6.1 writes and reads it):
 *
 *   file header (104 bytes)   "PERFILE2", header size, attr size, then the
 *                             attrs, data and (unused) event_types sections
 *                             as {offset, size}, then a 256-bit feature
 *                             bitmap
 *   attrs                     perf_event_attr (attr.size bytes) + {offset,
 *                             size} of that attr's u64 sample ids
 *   data                      records: struct perf_event_header {u32 type,
 *                             u16 misc, u16 size}; PERF_RECORD_AUXTRACE
 *                             (71) is followed by its `size` bytes of
 *                             trace, which header.size does not count
 *   feature sections          after the data: one {offset, size} per bit
 *                             set in the bitmap, in bit order
 *
 * Records used: AUXTRACE_INFO (70; type 1 = Intel PT, priv[] as perf's
 * intel-pt.h enumerates it; type 2 = intel_bts, whose AUX data is 24-byte
 * branch records {from, to, flags}), AUXTRACE (71: size, offset, reference, idx,
 * tid, cpu), MMAP (1), MMAP2 (10), COMM (3), ITRACE_START (12), AUX (11:
 * offset, size, flags).  Features used: HEADER_BUILD_ID (2), HEADER_CPUID
 * (9); the writer also writes HEADER_ARCH (6) and HEADER_NRCPUS (7).
 * Records other than these are skipped by size.
 *
 * A perf.data is untrusted input: every size and offset is checked against
 * the file, and every problem is an error naming the file and the byte
 * offset, never a crash.
 */
#ifndef PTD_DECODE_PERFDATA_H
#define PTD_DECODE_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "decode/bundle.h"

/* The perf_event_attr.type the writer uses for intel_pt when
 * /sys/bus/event_source/devices/intel_pt/type does not exist (no PT
 * hardware): any dynamic PMU type works, perf only needs the attr and
 * AUXTRACE_INFO to agree. */
#define PTD_PERFDATA_FALLBACK_PT_TYPE 8

/* What a perf.data has that a bundle does not. */
struct ptd_perfdata_proc {
	int pid;	  /* the process the threads belong to */
	const char *comm; /* its command name (NULL: "ptdbg-trace") */
};

/* Returns 1 when @path is a regular file starting with perf.data's magic
 * (either version or byte order), 0 otherwise. */
int ptd_perfdata_is(const char *path);

/*
 * Writes @b as a perf.data at @path (replaced through a rename, so a
 * half-written file is never left under that name).  Memory dumps in @b
 * (code without a file) cannot be described in a perf.data and are left
 * out.  Returns 0, -ptde_invalid (no bundle, no path, pid <= 0),
 * -ptde_sys (with the path in the message), -ptde_nomem.
 */
int ptd_perfdata_save(const struct ptd_bundle *b, const struct ptd_perfdata_proc *proc,
		      const char *path);

/*
 * Reads the perf.data at @path into a new bundle in *@out: one thread per
 * AUX stream (its AUXTRACE chunks concatenated; lost data, from AUX flags
 * or a hole between chunks, becomes an OVF packet followed by the next
 * PSB, so it decodes as an overflow gap), the executable MMAP/MMAP2
 * records as maps (files found at their path, else by build-id under
 * $PERF_BUILDID_DIR or ~/.debug), the cpu from HEADER_CPUID.  An
 * intel_bts stream is turned into blocks between branch records through
 * the mapped code and written as PT (docs/bundle.md), with the last
 * branch target as the tail pc.  Returns 0,
 * -ptde_bad_trace (malformed file, per-cpu recording, neither Intel PT
 * nor intel_bts, no BTS record in user code),
 * -ptde_notfound (a mapped file is missing or changed; the message names
 * it), -ptde_sys, -ptde_nomem.
 */
int ptd_perfdata_load(const char *path, struct ptd_bundle **out);

/* The same from bytes in memory (for tests and fuzzing); @name is used
 * in messages.  Mapped files are resolved and checked as by load unless
 * @check_files is 0. */
int ptd_perfdata_parse(const uint8_t *data, size_t size, const char *name, int check_files,
		       struct ptd_bundle **out);

#endif
