/*
 * Trace bundles: a directory holding what is needed to decode PT offline
 * (`record save DIR`, `ptdbg --load DIR`).  Format (docs/bundle.md has the
 * full description and an example):
 *
 *   DIR/manifest          text, one record per line, '#' comments:
 *       ptdbg-bundle 1                               first line, the version
 *       cpu FAMILY MODEL STEPPING [VENDOR]           decimal; "cpu 0 0 0" = unknown;
 *                                                    VENDOR: the 12-character cpuid
 *                                                    vendor (absent: GenuineIntel)
 *       map OFFSET SIZE VADDR PATH                   hex (0x...); PATH is the rest
 *                                                    of the line: absolute, or
 *                                                    relative to DIR
 *       build-id HEX PATH                            the ELF build-id of PATH (a
 *                                                    map's path), checked at load
 *       checksum 0xHEX PATH                          FNV-1a 64 of PATH's bytes, for
 *                                                    files without a build-id
 *       thread TID FILE TAIL_PC                      decimal tid; FILE relative to
 *                                                    DIR; hex tail pc (0x0: none)
 *   DIR/pt-TID.bin        the thread's raw PT bytes (as the AUX area held them)
 *   DIR/mem-VADDR.bin     raw memory dumps (anonymous code, vdso) named by map lines
 *
 * A map line says: SIZE bytes of PATH starting at file offset OFFSET are
 * code at VADDR -- ptxed's --raw PATH:OFFSET-(OFFSET+SIZE)@VADDR -- so ELF
 * files and raw dumps are handled alike.
 *
 * A bundle is untrusted input: the reader validates every field and reports
 * the first problem as "DIR/manifest:LINE: what is wrong", never crashes,
 * and refuses relative paths that leave DIR.
 */
#ifndef PTD_DECODE_BUNDLE_H
#define PTD_DECODE_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "decode/image.h"

#define PTD_BUILD_ID_MAX 20

struct ptd_bundle_map {
	char *path; /* as resolved: absolute or DIR/relative */
	uint64_t offset, size, vaddr;
	/* How the file is recognised at load: its ELF build-id, else a
	 * checksum of the whole file; neither: not checked. */
	uint8_t build_id[PTD_BUILD_ID_MAX];
	uint8_t build_id_size;
	uint8_t has_checksum;
	uint64_t checksum;
};

struct ptd_bundle_thread {
	int tid;
	uint64_t tail_pc; /* 0: unknown */
	uint8_t *pt;      /* the PT bytes (owned) */
	size_t size;
	int mapped;       /* pt is a read-only file mapping (bundles loaded) */
	struct ptd_bundle_guard *guard; /* private: catches the file being truncated */
};

struct ptd_bundle {
	struct ptd_cpu cpu;
	char cpu_vendor[16]; /* cpuid vendor; "" = GenuineIntel (older bundles) */
	struct ptd_bundle_map *maps;
	size_t nmaps;
	struct ptd_bundle_thread *threads;
	size_t nthreads;
	/* private: memory dumps added by the writer */
	struct ptd_bundle_mem *mems;
	size_t nmems;
};

/* Returns an empty bundle for @cpu (may be NULL: unknown), or NULL. */
struct ptd_bundle *ptd_bundle_new(const struct ptd_cpu *cpu);
void ptd_bundle_free(struct ptd_bundle *b);

/* Adds a file-backed mapping.  Returns 0, -ptde_invalid (no path, zero
 * size, wrap-around), -ptde_nomem. */
int ptd_bundle_add_map(struct ptd_bundle *b, const char *path, uint64_t offset, uint64_t size,
		       uint64_t vaddr);
/* Adds code bytes without a file (anonymous memory, vdso, JIT): saved as
 * DIR/mem-VADDR.bin plus a map line.  The bytes are copied. */
int ptd_bundle_add_memory(struct ptd_bundle *b, uint64_t vaddr, const uint8_t *bytes, size_t size);
/* The same with the mapping's name from /proc/PID/maps (NULL: none);
 * "[vdso]" is kept so a perf.data can name it. */
int ptd_bundle_add_memory_named(struct ptd_bundle *b, uint64_t vaddr, const uint8_t *bytes,
				size_t size, const char *name);
/* The memory dumps: their count, and dump @i (-ptde_invalid if none). */
size_t ptd_bundle_nmemory(const struct ptd_bundle *b);
int ptd_bundle_memory(const struct ptd_bundle *b, size_t i, uint64_t *vaddr, const uint8_t **bytes,
		      size_t *size, int *vdso);
/* The ELF build-id of an image in memory (the vdso), or 0. */
size_t ptd_bundle_mem_build_id(const uint8_t *bytes, size_t size, uint8_t id[PTD_BUILD_ID_MAX]);
/* Adds a thread's PT bytes (copied) and its pc at the end of the trace.
 * Returns 0, -ptde_invalid (tid <= 0, duplicate tid), -ptde_nomem. */
int ptd_bundle_add_thread(struct ptd_bundle *b, int tid, const uint8_t *pt, size_t size,
			  uint64_t tail_pc);

/* Writes @b into @dir (created if missing; existing bundle files are
 * replaced).  A save that fails leaves @dir as it was (a bundle there is
 * kept, the files written are removed, a directory it created too).
 * Returns 0 or -ptde_sys with the failing path in the message,
 * -ptde_invalid for a @dir name too long, -ptde_nomem. */
int ptd_bundle_save(const struct ptd_bundle *b, const char *dir);

/*
 * Reads the bundle in @dir.  Returns 0 and a new bundle in *@out, or
 * -ptde_bad_trace (malformed manifest: "DIR/manifest:LINE: ..."),
 * -ptde_sys (a file cannot be read), -ptde_nomem.  The files named by map
 * lines are checked to exist when the image is built, not here.
 */
int ptd_bundle_load(const char *dir, struct ptd_bundle **out);

/*
 * A loaded bundle's PT files are mapped, not read.  If another process
 * truncates one while it is loaded, touching the lost pages would raise
 * SIGBUS; a handler installed while such mappings exist turns them into
 * zeros instead.  Returns 0, or -ptde_bad_trace naming the file when that
 * happened (the history decoded from it from then on is incomplete).
 */
int ptd_bundle_check(const struct ptd_bundle *b);

/* The cpu this process runs on (cpuid family, model, stepping, vendor). */
void ptd_bundle_host_cpu(struct ptd_cpu *cpu, char vendor[16]);

/* Computes the identity of @path: its ELF build-id (*@id_size > 0), else
 * the FNV-1a 64 checksum of its bytes in *@checksum (*@id_size = 0).
 * Returns 0, -ptde_sys (cannot read it; the message names it). */
int ptd_bundle_file_id(const char *path, uint8_t id[PTD_BUILD_ID_MAX], uint8_t *id_size,
		       uint64_t *checksum);

/* Records the identity of every map's file (files inside the bundle, the
 * memory dumps, are skipped).  Returns 0 or -ptde_sys. */
int ptd_bundle_identify(struct ptd_bundle *b);

/* Checks every map's file against its recorded identity.  Returns 0,
 * -ptde_notfound ("'PATH' is not the file that was recorded: ..." or a
 * missing file). */
int ptd_bundle_check_files(const struct ptd_bundle *b);

/* Builds a decoder image from the bundle's maps and cpu (errata only for
 * an Intel cpu).  @read/@ctx serve addresses no map covers (NULL: none).
 * Returns NULL with the message set (a map's file is missing, unreadable,
 * or not the file that was recorded). */
struct ptd_image *ptd_bundle_image(const struct ptd_bundle *b, ptd_read_fn read, void *ctx);

/* Parses a manifest text (for tests and the fuzzer): @dir resolves
 * relative paths; thread files are not read (pt stays NULL). */
int ptd_bundle_parse(const char *text, size_t len, const char *dir, struct ptd_bundle **out);

#endif
