/*
 * The stub's documents: qXfer (features, auxv, exec-file, threads,
 * libraries-svr4, siginfo, btrace, btrace-conf), gdb's branch-trace packets
 * (Qbtrace:*, Qbtrace-conf:*), and lldb's qHostInfo, qProcessInfo and qShlibInfoAddr.
 */
#include "gdb/stub_int.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/image.h"

/* gdb's features/i386/64bit-{core,sse,linux,segments}.xml in one
 * document: gdb checks the feature names and register names. */
static const char target_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
	"<target version=\"1.0\">\n"
	"<architecture>i386:x86-64</architecture>\n"
	"<osabi>GNU/Linux</osabi>\n"
	"<feature name=\"org.gnu.gdb.i386.core\">\n"
	"<flags id=\"i386_eflags\" size=\"4\">\n"
	"<field name=\"CF\" start=\"0\" end=\"0\"/><field name=\"\" start=\"1\" end=\"1\"/>\n"
	"<field name=\"PF\" start=\"2\" end=\"2\"/><field name=\"AF\" start=\"4\" end=\"4\"/>\n"
	"<field name=\"ZF\" start=\"6\" end=\"6\"/><field name=\"SF\" start=\"7\" end=\"7\"/>\n"
	"<field name=\"TF\" start=\"8\" end=\"8\"/><field name=\"IF\" start=\"9\" end=\"9\"/>\n"
	"<field name=\"DF\" start=\"10\" end=\"10\"/><field name=\"OF\" start=\"11\" end=\"11\"/>\n"
	"<field name=\"NT\" start=\"14\" end=\"14\"/><field name=\"RF\" start=\"16\" end=\"16\"/>\n"
	"<field name=\"VM\" start=\"17\" end=\"17\"/><field name=\"AC\" start=\"18\" end=\"18\"/>\n"
	"<field name=\"VIF\" start=\"19\" end=\"19\"/><field name=\"VIP\" start=\"20\" "
	"end=\"20\"/>\n"
	"<field name=\"ID\" start=\"21\" end=\"21\"/>\n"
	"</flags>\n"
	"<reg name=\"rax\" bitsize=\"64\" type=\"int64\" regnum=\"0\"/>\n"
	"<reg name=\"rbx\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rcx\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rdx\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rsi\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rdi\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rbp\" bitsize=\"64\" type=\"data_ptr\"/>\n"
	"<reg name=\"rsp\" bitsize=\"64\" type=\"data_ptr\"/>\n"
	"<reg name=\"r8\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r9\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r10\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r11\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r12\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r13\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r14\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"r15\" bitsize=\"64\" type=\"int64\"/>\n"
	"<reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\"/>\n"
	"<reg name=\"eflags\" bitsize=\"32\" type=\"i386_eflags\"/>\n"
	"<reg name=\"cs\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"ss\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"ds\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"es\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"fs\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"gs\" bitsize=\"32\" type=\"int32\"/>\n"
	"<reg name=\"st0\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st1\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st2\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st3\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st4\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st5\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st6\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"st7\" bitsize=\"80\" type=\"i387_ext\"/>\n"
	"<reg name=\"fctrl\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fstat\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"ftag\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fiseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fioff\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"foseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fooff\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"<reg name=\"fop\" bitsize=\"32\" type=\"int\" group=\"float\"/>\n"
	"</feature>\n"
	"<feature name=\"org.gnu.gdb.i386.sse\">\n"
	"<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
	"<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
	"<vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
	"<vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
	"<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
	"<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
	"<union id=\"vec128\">\n"
	"<field name=\"v4_float\" type=\"v4f\"/><field name=\"v2_double\" type=\"v2d\"/>\n"
	"<field name=\"v16_int8\" type=\"v16i8\"/><field name=\"v8_int16\" type=\"v8i16\"/>\n"
	"<field name=\"v4_int32\" type=\"v4i32\"/><field name=\"v2_int64\" type=\"v2i64\"/>\n"
	"<field name=\"uint128\" type=\"uint128\"/>\n"
	"</union>\n"
	"<flags id=\"i386_mxcsr\" size=\"4\">\n"
	"<field name=\"IE\" start=\"0\" end=\"0\"/><field name=\"DE\" start=\"1\" end=\"1\"/>\n"
	"<field name=\"ZE\" start=\"2\" end=\"2\"/><field name=\"OE\" start=\"3\" end=\"3\"/>\n"
	"<field name=\"UE\" start=\"4\" end=\"4\"/><field name=\"PE\" start=\"5\" end=\"5\"/>\n"
	"<field name=\"DAZ\" start=\"6\" end=\"6\"/><field name=\"IM\" start=\"7\" end=\"7\"/>\n"
	"<field name=\"DM\" start=\"8\" end=\"8\"/><field name=\"ZM\" start=\"9\" end=\"9\"/>\n"
	"<field name=\"OM\" start=\"10\" end=\"10\"/><field name=\"UM\" start=\"11\" end=\"11\"/>\n"
	"<field name=\"PM\" start=\"12\" end=\"12\"/><field name=\"FZ\" start=\"15\" end=\"15\"/>\n"
	"</flags>\n"
	"<reg name=\"xmm0\" bitsize=\"128\" type=\"vec128\" regnum=\"40\"/>\n"
	"<reg name=\"xmm1\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm2\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm3\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm4\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm5\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm6\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm7\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm8\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm9\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm10\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm11\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm12\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm13\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm14\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"xmm15\" bitsize=\"128\" type=\"vec128\"/>\n"
	"<reg name=\"mxcsr\" bitsize=\"32\" type=\"i386_mxcsr\" group=\"vector\"/>\n"
	"</feature>\n"
	"<feature name=\"org.gnu.gdb.i386.linux\">\n"
	"<reg name=\"orig_rax\" bitsize=\"64\" type=\"int\" regnum=\"57\"/>\n"
	"</feature>\n"
	"<feature name=\"org.gnu.gdb.i386.segments\">\n"
	"<reg name=\"fs_base\" bitsize=\"64\" type=\"int\"/>\n"
	"<reg name=\"gs_base\" bitsize=\"64\" type=\"int\"/>\n"
	"</feature>\n"
	"</target>\n";

/* ---- gdb's branch trace (record btrace) ----------------------------------------------------- */

/*
 * Qbtrace:bts and Qbtrace:pt start ptdbg's recording (whatever method the
 * session uses: on machines without a PMU soft or step) for the whole
 * process; gdb asks once per thread, later threads find it running.  bts
 * is served as blocks from the history, pt as the recording's own PT
 * (trace format pt, written by ptsynth or the pt recorder), which gdb
 * decodes with its libipt.
 */
static int btrace_on(struct ptd_stub *st, int kind, struct ptd_rsp_buf *out)
{
	int rc;

	if (!ptd__stub_live(st)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (st->btrace && st->btrace != kind) {
		/* one format per recording */
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	if (!ptd_session_recording(st->s)) {
		if (kind == 2 && ptd_session_set_trace_format(st->s, "pt") < 0) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		rc = ptd_session_record_start(
			st->s, st->rec_method >= 0 ? (enum ptd_method)st->rec_method : PTD_METHOD_AUTO);
		if (rc < 0) {
			ptd_rsp_puts(out, "E.");
			ptd_rsp_puts(out, ptd_last_error(rc));
			return PTD_STUB_REPLY;
		}
		st->btrace_rec = 1;
	} else if (kind == 2 && strcmp(ptd_session_trace_format(st->s), "pt")) {
		ptd_rsp_puts(out, "E.the recording running keeps blocks, not pt");
		return PTD_STUB_REPLY;
	}
	st->btrace = kind;
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static int h_btrace_bts(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	if (n) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	return btrace_on(st, 1, out);
}

static int h_btrace_pt(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	if (n) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	return btrace_on(st, 2, out);
}

static int h_btrace_off(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	if (n) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	/* A recording gdb found running (--record) is not gdb's to stop:
	 * the stub's reverse execution (bs, bc) goes on with it. */
	if (st->btrace && st->btrace_rec && ptd__stub_live(st) && ptd_session_recording(st->s))
		ptd_session_record_stop(st->s);
	st->btrace = 0;
	st->btrace_rec = 0;
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

/* Qbtrace-conf:bts:size=N, Qbtrace-conf:pt:size=N: kept and reported
 * (ptdbg's recorders size their buffers themselves). */
static int h_btrace_conf(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	const char *q, *end = p + n;
	uint64_t v, *dst;

	if (n > 9 && !memcmp(p, "bts:size=", 9)) {
		dst = &st->bts_size;
		q = p + 9;
	} else if (n > 8 && !memcmp(p, "pt:size=", 8)) {
		dst = &st->pt_size;
		q = p + 8;
	} else {
		return PTD_STUB_REPLY; /* not supported */
	}
	if (end - q > 2 && q[0] == '0' && q[1] == 'x') /* gdb writes 0x%x */
		q += 2;
	if (ptd__stub_parse_hex(&q, end, &v) < 0 || q != end) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	*dst = v;
	ptd_rsp_puts(out, "OK");
	return PTD_STUB_REPLY;
}

static void btrace_conf_doc(struct ptd_stub *st, struct ptd_rsp_buf *d)
{
	ptd_rsp_puts(d, "<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
			"<btrace-conf version=\"1.0\">\n");
	if (st->btrace == 1)
		ptd_rsp_printf(d, "<bts size=\"0x%llx\"/>\n", (unsigned long long)st->bts_size);
	else if (st->btrace == 2)
		ptd_rsp_printf(d, "<pt size=\"0x%llx\"/>\n", (unsigned long long)st->pt_size);
	ptd_rsp_puts(d, "</btrace-conf>\n");
}

/*
 * Whether gdb is told the cpu (btrace.dtd's optional <cpu>): only an Intel
 * one libipt knows.  gdb asks libipt for the cpu's errata and refuses to
 * decode at all when libipt does not know it ("Failed to configure the
 * Intel Processor Trace decoder: unknown cpu", on processors newer than
 * the libipt gdb links); without the element gdb decodes with no errata
 * workarounds, which is what ptdbg's own decode does for such a cpu
 * (ptd_image_set_cpu's callers take "unknown" as "no errata").
 */
static int btrace_cpu_known(const struct ptd_cpu_info *cpu)
{
	struct ptd_cpu c = { (uint16_t)cpu->family, (uint8_t)cpu->model, (uint8_t)cpu->stepping };

	return !strcmp(cpu->vendor, "GenuineIntel") && cpu->family && ptd_cpu_errata(&c, NULL) == 0;
}

/*
 * The trace of the selected thread in gdb's btrace.dtd.  bts: blocks
 * newest first, each [first instruction, last instruction], the newest
 * ending at the current pc (which gdb takes as not yet executed), as
 * gdb's linux-btrace builds them from branch records.  Gaps cannot be
 * written in this format: the blocks around them follow one another.
 * Returns 0, or -1 (no trace).
 */
static int btrace_doc(struct ptd_stub *st, struct ptd_rsp_buf *d)
{
	const struct ptd_history *h;
	uint64_t pc = 0, pos = 0, count = 0, limit = UINT64_MAX;

	if (!ptd__stub_live(st) || !st->btrace || ptd__stub_select_tid(st, st->g_tid) < 0 ||
	    ptd_session_pc(st->s, &pc) < 0)
		return -1;
	if (ptd_session_replaying(st->s)) {
		/* The stub's own reverse execution (--record) left the thread
		 * in the past: to gdb that is where it is, and its trace ends
		 * there (bts: the blocks before the position; the pt recording
		 * cannot be cut there). */
		if (st->btrace == 2 || ptd_session_position(st->s, &pos, &count) < 0)
			return -1;
		limit = pos;
	}
	ptd_rsp_puts(d, "<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n<btrace version=\"1.0\">\n");
	if (st->btrace == 2) {
		struct ptd_cpu_info cpu;
		size_t size = 0;
		const uint8_t *pt = ptd_session_pt_data(st->s, &size);

		ptd_host_cpu(&cpu);
		ptd_rsp_puts(d, "<pt>\n<pt-config>\n");
		if (btrace_cpu_known(&cpu))
			ptd_rsp_printf(d,
				       "<cpu vendor=\"%s\" family=\"%u\" model=\"%u\" "
				       "stepping=\"%u\"/>\n",
				       cpu.vendor, cpu.family, cpu.model, cpu.stepping);
		ptd_rsp_puts(d, "</pt-config>\n<raw>");
		if (pt && size)
			ptd_rsp_put_hex(d, pt, size);
		ptd_rsp_puts(d, "</raw>\n</pt>\n");
	} else {
		h = ptd_session_history(st->s);
		if (!h)
			return -1;
		ptd_rsp_printf(d, "<block begin=\"0x%llx\" end=\"0x%llx\"/>\n",
			       (unsigned long long)pc, (unsigned long long)pc);
		for (uint64_t i = ptd_history_nitems(h); i-- > 0 && !d->oom;) {
			struct ptd_item it;
			uint64_t end;

			if (ptd_history_item(h, i, &it) != 1)
				return -1;
			if (it.kind != PTD_ITEM_BLOCK || it.number >= limit)
				continue;
			end = it.block.end_ip;
			if (it.number + it.block.ninsn > limit) {
				/* the block the position is in: up to the
				 * instruction before it */
				struct ptd_hcursor c;
				if (ptd_hcursor_goto(&c, h, limit - 1) < 0)
					return -1;
				end = c.ip;
			}
			ptd_rsp_printf(d, "<block begin=\"0x%llx\" end=\"0x%llx\"/>\n",
				       (unsigned long long)it.block.ip, (unsigned long long)end);
		}
	}
	ptd_rsp_puts(d, "</btrace>\n");
	return d->oom ? -1 : 0;
}

/* ---- qXfer ---------------------------------------------------------------------------------- */

/* Serves [@off, @off + @len) of @data (@size bytes) as an 'm'/'l' reply. */
static void xfer_reply(struct ptd_rsp_buf *out, const void *data, size_t size, uint64_t off,
		       uint64_t len)
{
	size_t n;

	/* escaping may double the data: keep the reply within PacketSize */
	if (len > (PTD_STUB_PACKET_SIZE - 8) / 2)
		len = (PTD_STUB_PACKET_SIZE - 8) / 2;
	if (off >= size) {
		ptd_rsp_puts(out, "l");
		return;
	}
	n = size - (size_t)off;
	if (n > len) {
		ptd_rsp_puts(out, "m");
		n = (size_t)len;
	} else {
		ptd_rsp_puts(out, "l");
	}
	ptd_rsp_put_binary(out, (const uint8_t *)data + off, n);
}

/* Reads a whole (small) file, e.g. /proc/PID/auxv.  Returns the length
 * or -1. */
static long read_file(const char *path, uint8_t **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	uint8_t *b;

	*out = NULL;
	if (fd < 0)
		return -1;
	b = malloc(cap);
	while (b) {
		ssize_t r = read(fd, b + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				free(b);
				b = NULL;
			}
			break;
		}
		len += (size_t)r;
		if (len == cap) {
			uint8_t *nb = cap < (1u << 20) ? realloc(b, cap * 2) : NULL;
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (!b)
		return -1;
	*out = b;
	return (long)len;
}

/* @s with XML's special characters and control characters escaped. */
static void xml_escaped(struct ptd_rsp_buf *doc, const char *s)
{
	for (const char *c = s; *c; c++) {
		switch (*c) {
		case '<': ptd_rsp_puts(doc, "&lt;"); break;
		case '>': ptd_rsp_puts(doc, "&gt;"); break;
		case '&': ptd_rsp_puts(doc, "&amp;"); break;
		case '"': ptd_rsp_puts(doc, "&quot;"); break;
		case '\'': ptd_rsp_puts(doc, "&apos;"); break;
		default:
			if ((unsigned char)*c < 0x20)
				ptd_rsp_printf(doc, "&#%d;", *c);
			else
				ptd_rsp_printf(doc, "%c", *c);
		}
	}
}

/* gdb's threads.dtd: one <thread id="pPID.TID" name="COMM"/> per live
 * thread; the name (the kernel's comm) is escaped for XML. */
static void threads_doc(struct ptd_stub *st, struct ptd_rsp_buf *doc)
{
	struct ptd_thread_info *ti = NULL;
	int k = 0;

	ptd_rsp_puts(doc, "<?xml version=\"1.0\"?>\n<threads>\n");
	if (ptd__stub_live(st))
		ti = ptd__stub_threads(st, &k);
	for (int i = 0; i < k; i++) {
		char path[64], comm[64];
		FILE *fp;

		ptd_rsp_printf(doc, "<thread id=\"p%x.%x\"", (unsigned)st->pid, (unsigned)ti[i].tid);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)st->pid, (int)ti[i].tid);
		fp = fopen(path, "r");
		if (fp && fgets(comm, sizeof(comm), fp)) {
			comm[strcspn(comm, "\n")] = 0;
			ptd_rsp_puts(doc, " name=\"");
			xml_escaped(doc, comm);
			ptd_rsp_puts(doc, "\"");
		}
		if (fp)
			fclose(fp);
		ptd_rsp_puts(doc, "/>\n");
	}
	free(ti);
	ptd_rsp_puts(doc, "</threads>\n");
}

static int read_u64(struct ptd_stub *st, uint64_t addr, uint64_t *v)
{
	return ptd_session_read(st->s, addr, v, 8) == 8 ? 0 : -1;
}

static void xml_escaped(struct ptd_rsp_buf *doc, const char *s);

/* Where the dynamic linker puts the address of its r_debug: the value of
 * DT_DEBUG in the program's dynamic section, found through the program
 * headers the auxv points at (AT_PHDR, AT_PHNUM; the load bias from
 * PT_PHDR).  0 when there is none (a static program). */
static uint64_t dt_debug_slot(struct ptd_stub *st)
{
	char path[64];
	uint8_t *aux;
	long size = -1;
	uint64_t phdr = 0, phnum = 0, bias = 0, dyn = 0, dynsz = 0, slot = 0;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)st->pid);
	size = read_file(path, &aux);
	if (size < 0)
		return 0;
	for (long i = 0; i + 16 <= size; i += 16) {
		uint64_t a[2];
		memcpy(a, aux + i, 16);
		if (a[0] == AT_PHDR)
			phdr = a[1];
		else if (a[0] == AT_PHNUM)
			phnum = a[1];
	}
	free(aux);
	if (!phdr || phnum > 256)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint64_t i = 0; i < phnum; i++) {
			Elf64_Phdr ph;
			if (ptd_session_read(st->s, phdr + i * sizeof(ph), &ph, sizeof(ph)) !=
			    (long)sizeof(ph))
				return 0;
			if (pass == 0 && ph.p_type == PT_PHDR)
				bias = phdr - ph.p_vaddr;
			if (pass == 1 && ph.p_type == PT_DYNAMIC) {
				dyn = bias + ph.p_vaddr;
				dynsz = ph.p_memsz;
			}
		}
	}
	for (uint64_t o = 0; dyn && o + sizeof(Elf64_Dyn) <= dynsz; o += sizeof(Elf64_Dyn)) {
		Elf64_Dyn d;
		if (ptd_session_read(st->s, dyn + o, &d, sizeof(d)) != (long)sizeof(d) ||
		    d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_DEBUG) {
			slot = dyn + o + offsetof(Elf64_Dyn, d_un);
			break;
		}
	}
	return slot;
}

/* The address of the dynamic linker's r_debug; 0 when there is none (a
 * static program, or ld.so has not filled it in yet). */
static uint64_t r_debug_addr(struct ptd_stub *st)
{
	uint64_t slot = dt_debug_slot(st), rd = 0;

	if (!slot || read_u64(st, slot, &rd) < 0)
		return 0;
	return rd;
}

/* gdb's library-list-svr4.dtd from the dynamic linker's list (struct
 * r_debug: r_map at 8; struct link_map: l_addr, l_name, l_ld, l_next at
 * 0, 8, 16, 24), as gdbserver builds it: the first entry (the program)
 * is main-lm, the others are libraries.  A list not yet set up is empty. */
static void svr4_doc(struct ptd_stub *st, struct ptd_rsp_buf *doc)
{
	uint64_t rd = r_debug_addr(st), lm = 0, main_lm = 0;

	ptd_rsp_puts(doc, "<library-list-svr4 version=\"1.0\"");
	if (rd && read_u64(st, rd + 8, &lm) == 0 && lm) {
		main_lm = lm;
		ptd_rsp_printf(doc, " main-lm=\"0x%llx\">", (unsigned long long)main_lm);
		if (read_u64(st, lm + 24, &lm) < 0)
			lm = 0;
		/* a bound on the walk: a corrupt list may loop */
		for (int k = 0; lm && k < 100000; k++) {
			uint64_t l_addr, l_name, l_ld, next;
			char name[PATH_MAX];
			size_t nl = 0;

			if (read_u64(st, lm, &l_addr) < 0 || read_u64(st, lm + 8, &l_name) < 0 ||
			    read_u64(st, lm + 16, &l_ld) < 0 || read_u64(st, lm + 24, &next) < 0)
				break;
			while (l_name && nl < sizeof(name) - 1 &&
			       ptd_session_read(st->s, l_name + nl, name + nl, 1) == 1 && name[nl])
				nl++;
			name[nl] = 0;
			/* entries without a name (the vdso) are skipped, as gdbserver does */
			if (nl) {
				ptd_rsp_puts(doc, "<library name=\"");
				xml_escaped(doc, name);
				/* lmid: the namespace, named by its r_debug as
				 * gdbserver does; gdb 13 rejects a list without it */
				ptd_rsp_printf(doc,
					       "\" lm=\"0x%llx\" l_addr=\"0x%llx\" l_ld=\"0x%llx\""
					       " lmid=\"0x%llx\"/>",
					       (unsigned long long)lm, (unsigned long long)l_addr,
					       (unsigned long long)l_ld, (unsigned long long)rd);
			}
			lm = next;
		}
		ptd_rsp_puts(doc, "</library-list-svr4>");
	} else {
		ptd_rsp_puts(doc, "/>");
	}
}

/* lldb's qHostInfo/qProcessInfo: the triple is hex-encoded, the rest
 * KEY:VALUE; pairs (lldb-gdb-remote.txt).  ptdbg debugs x86-64 Linux. */
static const char host_triple[] = "x86_64-pc-linux-gnu";

static void put_triple(struct ptd_rsp_buf *out)
{
	ptd_rsp_puts(out, "triple:");
	for (const char *c = host_triple; *c; c++)
		ptd_rsp_printf(out, "%02x", (unsigned char)*c);
	ptd_rsp_puts(out, ";ostype:linux;vendor:pc;endian:little;ptrsize:8;");
}

static int h_hostinfo(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	put_triple(out);
	return PTD_STUB_REPLY;
}

/* lldb's qShlibInfoAddr: where the address of r_debug is kept (DT_DEBUG's
 * value), as lldb-server answers.  lldb reads r_debug from there and
 * walks the library list itself; without this it takes the main-lm of
 * qXfer:libraries-svr4 for that place, which holds the program's l_addr
 * (0), and loads no library at all. */
static int h_shlib_info(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	uint64_t slot = ptd__stub_live(st) ? dt_debug_slot(st) : 0;

	if (!slot) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_printf(out, "%llx", (unsigned long long)slot);
	return PTD_STUB_REPLY;
}

static int h_processinfo(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	if (!ptd__stub_live(st)) {
		ptd__stub_reply_err(out, 1);
		return PTD_STUB_REPLY;
	}
	ptd_rsp_printf(out, "pid:%x;", (unsigned)st->pid);
	put_triple(out);
	return PTD_STUB_REPLY;
}

/* qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH */
static int h_xfer(struct ptd_stub *st, char *p, size_t n, struct ptd_rsp_buf *out)
{
	char *end = p + n, *obj = p, *colon, *annex, *args;
	const char *q;
	uint64_t off, len;

	colon = memchr(p, ':', n);
	if (!colon)
		return PTD_STUB_REPLY;
	*colon = 0;
	if (strcmp(obj, "features") && strcmp(obj, "exec-file") && strcmp(obj, "auxv") &&
	    strcmp(obj, "btrace") && strcmp(obj, "btrace-conf") && strcmp(obj, "threads") &&
	    strcmp(obj, "libraries-svr4") && strcmp(obj, "siginfo"))
		return PTD_STUB_REPLY; /* an object we do not serve */
	if ((size_t)(end - colon - 1) < 5 || memcmp(colon + 1, "read:", 5)) {
		return PTD_STUB_REPLY; /* writes are not supported */
	}
	annex = colon + 6;
	args = memchr(annex, ':', (size_t)(end - annex));
	if (!args) {
		ptd__stub_reply_err(out, 0);
		return PTD_STUB_REPLY;
	}
	*args++ = 0;
	q = args;
	if (ptd__stub_addr_len(&q, end, &off, &len) < 0 || q != end) {
		ptd__stub_reply_err(out, 0);
		return PTD_STUB_REPLY;
	}
	if (!strcmp(obj, "btrace") || !strcmp(obj, "btrace-conf")) {
		int conf = !strcmp(obj, "btrace-conf");
		/* delta reads are not offered: gdb then reads it all again */
		if (conf ? *annex != 0 : strcmp(annex, "all") && strcmp(annex, "new")) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		if (off == 0) {
			ptd_rsp_buf_reset(&st->doc);
			if (conf)
				btrace_conf_doc(st, &st->doc);
			else if (btrace_doc(st, &st->doc) < 0) {
				ptd_rsp_buf_reset(&st->doc);
				ptd__stub_reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
		}
		xfer_reply(out, st->doc.p, st->doc.len, off, len);
		return PTD_STUB_REPLY;
	}
	if (!strcmp(obj, "threads") || !strcmp(obj, "libraries-svr4")) {
		int libs = !strcmp(obj, "libraries-svr4");
		/* an annex (start=, prev=) is only sent to stubs announcing
		 * augmented-libraries-svr4-read, which this one does not */
		if (*annex || (libs && !ptd__stub_live(st))) {
			ptd__stub_reply_err(out, 0);
			return PTD_STUB_REPLY;
		}
		/* the document is built at offset 0 and read in pieces from it,
		 * so the pieces agree even if threads come and go meanwhile */
		if (off == 0) {
			ptd_rsp_buf_reset(&st->doc);
			if (libs)
				svr4_doc(st, &st->doc);
			else
				threads_doc(st, &st->doc);
		}
		if (st->doc.oom) {
			ptd_rsp_buf_reset(&st->doc);
			ptd__stub_reply_err(out, 12);
			return PTD_STUB_REPLY;
		}
		xfer_reply(out, st->doc.p, st->doc.len, off, len);
		return PTD_STUB_REPLY;
	}
	if (!strcmp(obj, "siginfo")) {
		/* gdb's $_siginfo: the kernel's siginfo_t of the thread gdb
		 * selected (Hg), at a live stop */
		uint8_t si[256];
		long k;

		if (*annex || !ptd__stub_live(st) || ptd__stub_select_tid(st, st->g_tid) < 0 ||
		    (k = ptd_session_siginfo_raw(st->s, si, sizeof(si))) < 0) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		xfer_reply(out, si, (size_t)k, off, len);
		return PTD_STUB_REPLY;
	}
	if (!strcmp(obj, "features")) {
		if (strcmp(annex, "target.xml")) {
			ptd__stub_reply_err(out, 0);
			return PTD_STUB_REPLY;
		}
		xfer_reply(out, target_xml, sizeof(target_xml) - 1, off, len);
		return PTD_STUB_REPLY;
	}
	if (!strcmp(obj, "exec-file")) {
		char path[64], exe[PATH_MAX];
		const char *name = NULL;
		ssize_t r = -1;

		if (*annex) {
			uint64_t pid;
			const char *a = annex;
			if (ptd__stub_parse_hex(&a, annex + strlen(annex), &pid) < 0 || *a ||
			    pid != (uint64_t)st->pid) {
				ptd__stub_reply_err(out, 1);
				return PTD_STUB_REPLY;
			}
		}
		if (st->pid > 0) {
			snprintf(path, sizeof(path), "/proc/%d/exe", (int)st->pid);
			r = readlink(path, exe, sizeof(exe) - 1);
		}
		if (r > 0) {
			exe[r] = 0;
			name = exe;
		} else {
			name = ptd_session_program(st->s);
		}
		if (!name) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		xfer_reply(out, name, strlen(name), off, len);
		return PTD_STUB_REPLY;
	}
	/* auxv */
	{
		char path[64];
		uint8_t *data;
		long size;

		if (*annex || !ptd__stub_live(st)) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		snprintf(path, sizeof(path), "/proc/%d/auxv", (int)st->pid);
		size = read_file(path, &data);
		if (size < 0) {
			ptd__stub_reply_err(out, 1);
			return PTD_STUB_REPLY;
		}
		xfer_reply(out, data, (size_t)size, off, len);
		free(data);
		return PTD_STUB_REPLY;
	}
}

const struct ptd__stub_packet ptd__stub_xfer_packets[] = {
	{"qXfer:", PTD__STUB_PREFIX, h_xfer},
	{"Qbtrace:bts", PTD__STUB_PREFIX, h_btrace_bts},
	{"Qbtrace:pt", PTD__STUB_PREFIX, h_btrace_pt},
	{"Qbtrace:off", PTD__STUB_PREFIX, h_btrace_off},
	{"Qbtrace-conf:", PTD__STUB_PREFIX, h_btrace_conf},
	{"qHostInfo", PTD__STUB_EXACT, h_hostinfo},
	{"qProcessInfo", PTD__STUB_EXACT, h_processinfo},
	{"qShlibInfoAddr", PTD__STUB_EXACT, h_shlib_info},
	{NULL, 0, NULL},
};
