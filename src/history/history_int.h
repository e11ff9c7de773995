/*
 * Internals shared by the history files (storage, call segments) and
 * src/replay: instruction lengths through the history's reader.
 */
#ifndef PTD_HISTORY_INT_H
#define PTD_HISTORY_INT_H

#include "history/history.h"

/* Decodes the instruction at @ip through @h's reader; returns its length
 * (>0) and fills @out (may be NULL), or <0 (-ptde_nomap, -ptde_bad_insn). */
int ptd__history_insn_len(const struct ptd_history *h, uint64_t ip, struct ptd_insn_info *out);
/* The same in execution mode @mode (enum ptd_exec_mode). */
int ptd__history_insn_len_mode(const struct ptd_history *h, uint64_t ip, unsigned mode,
			       struct ptd_insn_info *out);
/* Reads up to @n code bytes at @addr through @h's reader (retrying short
 * reads); returns the count read (0 when nothing is readable). */
int ptd__history_read(const struct ptd_history *h, uint64_t addr, uint8_t *buf, size_t n);
/* Number of the last executed position (gaps included, tail excluded). */
uint64_t ptd__history_executed_count(const struct ptd_history *h);

/*
 * Sequential reading without a lookup per item: points @items at the
 * decoded items from index @index to the end of its chunk (*@n of them,
 * >= 1), valid until the next item, cursor or ptd__history_items_at call on @h
 * (instruction lengths may be read meanwhile).  Returns 1, 0 when
 * @index is past the end, or a negative error (a lazy part that could not
 * be decoded again; the message is set).
 */
int ptd__history_items_at(const struct ptd_history *h, uint64_t index, const struct ptd_item **items,
			  uint32_t *n);

#endif
