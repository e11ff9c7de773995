/*
 * The soft recorder's registers at every trap, stored compactly.
 *
 * One snapshot per trap (tens of thousands a second) made the registers
 * the biggest part of a recording: 216 bytes raw, about 60 as a delta
 * against the previous trap.  Here each snapshot is written to a byte
 * stream as varints (number delta, a mask of the registers that changed,
 * each change as a zigzag difference), and the stream is cut into blocks
 * of SOFT_REGS_BLOCK bytes that are deflated (zlib) when full: consecutive
 * traps of a loop repeat the same patterns, so a trap costs about 3 bytes
 * (0.4 byte per recorded instruction on bench/work.c).  Each block starts
 * from all-zero registers, so it decodes on its own; a lookup inflates one
 * block (the last one is kept) and walks it.
 */
#ifndef PTD_RECORD_SOFT_REGS_H
#define PTD_RECORD_SOFT_REGS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#define PTD_SOFT_NREGS (sizeof(struct user_regs_struct) / 8)

struct ptd__soft_regs_blk {
	uint64_t first, last; /* numbers of its first and last snapshot */
	uint8_t *z;	      /* deflated stream */
	uint32_t zlen, rawlen;
};

struct ptd__soft_regs {
	struct ptd__soft_regs_blk *blk;
	size_t nblk, capblk;
	/* The open block, not deflated yet. */
	uint8_t *raw;
	size_t nraw, capraw;
	uint64_t raw_first, raw_last;
	uint64_t last[PTD_SOFT_NREGS];
	uint64_t last_num;
	size_t zbytes;
	/* The last block inflated for a lookup (index + 1; 0: none). */
	size_t cached;
	uint8_t *cache;
	size_t cache_cap;
};

void ptd__soft_regs_init(struct ptd__soft_regs *s);
void ptd__soft_regs_fini(struct ptd__soft_regs *s);
/* Stores the registers before instruction @number executes; numbers do
 * not decrease.  Returns 0 or -ptde_nomem (then that snapshot is not
 * kept, and a lookup of @number finds an older one or none). */
int ptd__soft_regs_push(struct ptd__soft_regs *s, uint64_t number,
			const struct user_regs_struct *regs);
/* The last snapshot at or before @number: its registers in @out and its
 * number in @at.  Returns 0, -ptde_notfound (none kept) or -ptde_nomem. */
int ptd__soft_regs_near(const struct ptd__soft_regs *s, uint64_t number,
			struct user_regs_struct *out, uint64_t *at);
/* Forgets the snapshots of whole blocks that end before @number. */
void ptd__soft_regs_drop_before(struct ptd__soft_regs *s, uint64_t number);
/* Heap bytes held. */
size_t ptd__soft_regs_bytes(const struct ptd__soft_regs *s);

#endif
