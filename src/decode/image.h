/*
 * The process image a PT decoder walks: which code bytes live at which
 * address, and which cpu the trace came from.
 *
 * File-backed mappings (from /proc/PID/maps, or from a trace bundle's
 * mapping list: file, file offset, size, load address) are added to a
 * libipt image-section cache and from there to the pt_image, so libipt
 * maps them once and its block cache works.  Everything else (anonymous
 * executable memory, JIT code, the vdso, deleted files) is read through a
 * caller-provided ptd_read_fn; for a live process that callback reads the
 * tracee's memory with ptdbg's breakpoint bytes masked out.  The image
 * never calls ptrace itself.
 *
 * ptd_image_read() reads code bytes the same way the decoder sees them and
 * has the ptd_read_fn signature, so histories built from the trace can
 * enumerate instructions through the image (needed for offline bundles).
 */
#ifndef PTD_DECODE_IMAGE_H
#define PTD_DECODE_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "history/history.h"

struct pt_image;
struct pt_errata;

struct ptd_cpu {
	uint16_t family; /* 0: unknown (no errata applied) */
	uint8_t model;
	uint8_t stepping;
};

struct ptd_image;

/* Returns a new empty image; @read/@ctx serve addresses no file covers
 * (may be NULL: such addresses are then unmapped).  NULL on no memory. */
struct ptd_image *ptd_image_alloc(ptd_read_fn read, void *ctx);
void ptd_image_free(struct ptd_image *img);

/*
 * Adds @size bytes of @path starting at file offset @offset, loaded at
 * @vaddr.  Returns 0, -ptde_invalid (empty path, zero size, address
 * overflow), -ptde_sys (the file cannot be read; the message names it),
 * -ptde_nomem.
 */
int ptd_image_add_file(struct ptd_image *img, const char *path, uint64_t offset, uint64_t size,
		       uint64_t vaddr);

/*
 * Adds the executable file-backed mappings listed in @maps (the text of
 * /proc/PID/maps).  The vdso, anonymous and deleted-file mappings are
 * left to the read callback.  Returns the number of mappings added, or
 * -ptde_bad_trace for a malformed line (the message quotes it).  Files
 * that cannot be opened are skipped (then read through the callback).
 */
int ptd_image_add_maps_text(struct ptd_image *img, const char *maps);
/* Same, reading /proc/@pid/maps.  -ptde_sys when it cannot be read. */
int ptd_image_add_maps(struct ptd_image *img, pid_t pid);

/*
 * Calls @fn for each executable mapping in @maps (the text of
 * /proc/PID/maps) that ptd_image_add_maps_text leaves to the read
 * callback: anonymous memory, [vdso] and other [special] regions, deleted
 * files.  @name is the maps path column ("" for anonymous).  For
 * `record save`, which dumps these into the bundle.  Returns the number
 * of calls, a negative return of @fn, or -ptde_bad_trace for a malformed
 * line.
 */
int ptd_image_foreach_anon(const char *maps,
			   int (*fn)(void *ctx, uint64_t start, uint64_t end, const char *name),
			   void *ctx);

/* Sets the cpu the trace was recorded on (errata come from pt_cpu_errata).
 * Returns 0, or -ptde_unsupported when libipt does not know the cpu (the
 * image then decodes without errata workarounds). */
int ptd_image_set_cpu(struct ptd_image *img, const struct ptd_cpu *cpu);
/* libipt's errata for Intel cpu @cpu into @errata (NULL: only asked);
 * libipt's error code (< 0) when it does not know the cpu, as for one
 * newer than it. */
int ptd_cpu_errata(const struct ptd_cpu *cpu, struct pt_errata *errata);
void ptd_image_get_cpu(const struct ptd_image *img, struct ptd_cpu *cpu);
/* Fills @errata for the configured cpu (all zero when unknown). */
void ptd_image_errata(const struct ptd_image *img, struct pt_errata *errata);

/* Reads code bytes at @addr as the decoder sees them (ptd_read_fn:
 * @ctx is the struct ptd_image).  Returns bytes read or -ptde_nomap. */
int ptd_image_read(void *ctx, uint64_t addr, uint8_t *buf, size_t n);

/* A number that changes whenever a mapping is added, so caches of
 * decoded code (src/decode/fastpt.c) know when to forget. */
uint64_t ptd_image_generation(const struct ptd_image *img);

/* The libipt image (owned by @img). */
struct pt_image *ptd_image_pt(struct ptd_image *img);
/* Returns a new libipt image with the same sections and callback, for a
 * decoder running in another thread (free with pt_image_free).  The read
 * callback must then be thread safe. */
struct pt_image *ptd_image_pt_copy(struct ptd_image *img);

/* Mapping list, e.g. for writing a bundle. */
struct ptd_image_map {
	const char *path;
	uint64_t offset, size, vaddr;
};
size_t ptd_image_nmaps(const struct ptd_image *img);
const struct ptd_image_map *ptd_image_map(const struct ptd_image *img, size_t i);

#endif
