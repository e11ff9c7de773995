/*
 * Lazy breakpoint discovery for the soft recorder.
 *
 * From an address the scanner follows direct control flow (fall-through,
 * direct jmp, direct call into the callee) until an instruction whose
 * outcome is not static: a conditional branch, an indirect jump or call, a
 * return, a syscall, or anything else the CPU must decide.  That stretch is
 * a *run*; the recorder arms one int3 at its end and, at the trap, appends
 * the run's blocks to the history and emulates the end instruction.  Runs
 * are cached by start address and dropped when their code is remapped.
 *
 * The scanner reads code through a callback (the target's masked reads),
 * so it never sees its own breakpoints and is unit-testable on plain bytes.
 */
#ifndef PTD_RECORD_SOFT_SCAN_H
#define PTD_RECORD_SOFT_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "record/soft_emul.h"

/* Reads code bytes; returns the count read (short at a mapping end) or <0. */
typedef long (*ptd_soft_read_fn)(void *ctx, uint64_t addr, void *buf, size_t n);

/* A straight-line piece of a run; the last one ends at the run's end. */
struct ptd_soft_blk {
	uint64_t ip;
	uint64_t end_ip;
	uint32_t ninsn;
	uint8_t iclass; /* enum ptd_iclass of end_ip's instruction */
	uint8_t end_len; /* length of end_ip's instruction (0: undecodable) */
};

/* Longest run; a longer straight stretch is cut and its last instruction trapped. */
#define PTD_SOFT_RUN_MAX 4096

struct ptd_soft_run {
	uint64_t start;
	/* The instruction that ends the run (trap here).  Its op is dynamic,
	 * or NONE/JMP/CALL when the run was cut (length limit, a direct jump
	 * back into the run), or NOEMUL when the bytes do not decode. */
	uint64_t end;
	struct ptd_soft_insn insn;
	/* end's bytes could not be read or decoded: the CPU will fault there. */
	int bad;
	uint32_t nblk;
	struct ptd_soft_blk *blk;
	uint32_t ninsn;
	uint64_t *ips; /* every instruction of the run in execution order */
	/* Some of the run is in memory the program may write without a
	 * syscall (ptd_soft_scan_set_volatile): its code bytes as scanned,
	 * block after block, for ptd_soft_scan_verify(). */
	int vol;
	uint8_t *code;
	uint32_t *ncode; /* bytes of each block in code */
};

struct ptd_soft_scan;

struct ptd_soft_scan *ptd_soft_scan_alloc(ptd_soft_read_fn read, void *ctx);
void ptd_soft_scan_free(struct ptd_soft_scan *s);

/*
 * Code the program can rewrite without a syscall (writable or shared
 * executable memory): @vol(@ctx, addr) is nonzero for such addresses.
 * Runs that touch it keep a copy of their bytes for
 * ptd_soft_scan_verify(), and a run is cut (its last instruction
 * trapped) where it would enter such memory by a direct jump or call or
 * by falling through from other memory, so that code stored and then
 * reached is checked at a trap before it runs.  Affects runs scanned
 * later; NULL turns it off.
 */
typedef int (*ptd_soft_volatile_fn)(void *ctx, uint64_t addr);
void ptd_soft_scan_set_volatile(struct ptd_soft_scan *s, ptd_soft_volatile_fn vol, void *ctx);

/*
 * Compares the code of run @r (when it has a copy) with what the read
 * callback gives now.  Returns 0 when unchanged (or not kept), 1 when
 * changed, with the changed bytes within [*@lo, *@hi), or <0 (nomem).
 */
int ptd_soft_scan_verify(struct ptd_soft_scan *s, const struct ptd_soft_run *r, uint64_t *lo,
			 uint64_t *hi);

/*
 * Returns in *@out the run starting at @ip, scanning it the first time.
 * The run stays valid until invalidated or the scanner is cleared/freed.
 * Returns 0, -ptde_nomem, or -ptde_invalid.
 */
int ptd_soft_scan_run(struct ptd_soft_scan *s, uint64_t ip, const struct ptd_soft_run **out);

/* Marks @addr armed; returns 1 the first time, 0 when it already was. */
int ptd_soft_scan_arm(struct ptd_soft_scan *s, uint64_t addr);
int ptd_soft_scan_armed(const struct ptd_soft_scan *s, uint64_t addr);

/*
 * Forgets runs that touch [@lo, @hi) and armed addresses inside it; each
 * such armed address is passed to @cb (may be NULL) so the caller can
 * remove its breakpoint.  Returns the number of armed addresses dropped.
 */
int ptd_soft_scan_invalidate(struct ptd_soft_scan *s, uint64_t lo, uint64_t hi,
			     void (*cb)(void *ctx, uint64_t addr), void *ctx);
/* Forgets everything (exec). */
void ptd_soft_scan_clear(struct ptd_soft_scan *s);
/* Every armed address, for removal; fills at most @max, returns the total. */
size_t ptd_soft_scan_armed_list(const struct ptd_soft_scan *s, uint64_t *out, size_t max);

/*
 * Blocks of @r executed before the instruction at @ip (which must be one
 * of its instructions): writes at most @max blocks into @out and returns
 * their count, 0 when @ip is the run's start, -ptde_notfound when @ip is
 * not in the run.  Used when a signal interrupts a run.
 */
int ptd_soft_run_prefix(const struct ptd_soft_run *r, uint64_t ip, struct ptd_soft_blk *out,
			int max);

/* Internal u64 -> pointer map shared by the soft recorder files. */
struct ptd__soft_map {
	uint64_t *keys;
	void **vals;
	size_t cap, n;
};
void *ptd__soft_map_get(const struct ptd__soft_map *m, uint64_t key);
int ptd__soft_map_put(struct ptd__soft_map *m, uint64_t key, void *val);
void *ptd__soft_map_del(struct ptd__soft_map *m, uint64_t key);
void ptd__soft_map_fini(struct ptd__soft_map *m);

#endif
