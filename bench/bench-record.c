/*
 * bench-record: records PROGRAM from main until it calls _exit with the
 * given method and trace format, and prints one line of figures:
 *   insns=N seconds=S insn_per_s=R bytes=B bytes_per_insn=X stops=K
 *   branches=N stops_per_branch=X rss=B rss_calls=B dropped=N recorded=N
 * rss is this process's resident memory when the recording reached _exit
 * (make bench compares two program sizes for the growth per instruction),
 * rss_calls the same once "info record" built the function-call segments.
 * info_record_cpu and calls_cpu: CPU seconds of the first info record and
 * of the first function-call history (the newest 1,000 segments) after
 * the stop; segments: how many there are; cpu: ptdbg's CPU seconds
 * (user and system) while recording, user: of them in user space (the
 * history's appends and the call log's writes).
 * --buffer-size=BYTES bounds the recording (0: unlimited, the default
 * here); dropped is the count of oldest instructions it dropped, and
 * recorded = insns (kept) + dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <malloc.h>
#include <unistd.h>
#include <sys/resource.h>

#include "disasm/disasm.h"
#include "ptdbg/ptdbg.h"
#include "session/session.h"

/* Conditional and indirect branches (returns included) in the history:
 * the instructions PT writes a packet for, which the soft recorder must
 * stop at. */
static uint64_t count_branches(struct ptd_session *s)
{
	const struct ptd_history *h = ptd_session_history(s);
	uint64_t n = 0;

	for (uint64_t i = 0; i < ptd_history_nitems(h); i++) {
		struct ptd_item it;
		struct ptd_insn_info info;
		uint8_t buf[16];
		long got;
		if (!ptd_history_item(h, i, &it) || it.kind != PTD_ITEM_BLOCK)
			continue;
		switch (it.block.iclass) {
		case PTD_IC_COND_JUMP:
		case PTD_IC_RET:
			n++;
			break;
		case PTD_IC_JUMP:
		case PTD_IC_CALL:
			got = ptd_session_read(s, it.block.end_ip, buf, sizeof(buf));
			if (got > 0 && ptd_disasm_decode(buf, (size_t)got, it.block.end_ip, &info) == 0 &&
			    (info.flags & PTD_INSN_INDIRECT))
				n++;
			break;
		default:
			break;
		}
	}
	return n;
}

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double user_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
}

/* Resident set of this process (ptdbg's side, not the program's), bytes. */
static unsigned long long rss_bytes(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

int main(int argc, char **argv)
{
	struct ptd_session *s;
	struct ptd_event ev;
	struct ptd_record_info ri;
	struct timespec a, b;
	int rc, m;

	uint64_t bound = 0;
	if (argc > 1 && !strncmp(argv[1], "--buffer-size=", 14)) {
		bound = strtoull(argv[1] + 14, NULL, 0);
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: bench-record [--buffer-size=BYTES] METHOD FORMAT PROGRAM [ARGS...]\n");
		return 2;
	}
	m = ptd_method_parse(argv[1]);
	if (m < 0) {
		fprintf(stderr, "bench-record: %s\n", ptd_last_error(m));
		return 2;
	}
	s = ptd_session_alloc();
	if (getenv("PTDBG_NO_PIN"))
		ptd_session_set_pin_cpu(s, 0);
	ptd_session_set_method(s, (enum ptd_method)m);
	if (ptd_session_set_buffer_size(s, (enum ptd_method)m, bound) < 0) {
		fprintf(stderr, "bench-record: %s\n", ptd_last_error(-ptde_invalid));
		return 2;
	}
	if (ptd_session_set_trace_format(s, argv[2]) < 0 || ptd_session_set_program(s, argv + 3) < 0 ||
	    ptd_session_break(s, "main", 1) < 0 || ptd_session_run(s, 0, &ev) < 0 ||
	    ev.kind != PTD_EVENT_BREAKPOINT || ptd_session_break(s, "_exit", 0) < 0) {
		fprintf(stderr, "bench-record: cannot start: %s\n", ptd_last_error(-ptde_internal));
		return 1;
	}
	rc = ptd_session_record_start(s, PTD_METHOD_AUTO);
	if (rc < 0) {
		fprintf(stderr, "bench-record: %s\n", ptd_last_error(rc));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	double t_rec = cpu_now(), u_rec = user_now();
	rc = ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev);
	t_rec = cpu_now() - t_rec;
	u_rec = user_now() - u_rec;
	clock_gettime(CLOCK_MONOTONIC, &b);
	/* What the recording holds, before "info record" builds the
	 * function-call segments (their cost is printed apart). */
	unsigned long long rss = rss_bytes();
	struct mallinfo2 mi = mallinfo2();
	unsigned long long heap = (unsigned long long)(mi.uordblks + mi.hblkhd);
	if (rc < 0 || ev.kind != PTD_EVENT_BREAKPOINT) {
		fprintf(stderr, "bench-record: did not reach _exit\n");
		return 1;
	}
	/* The first info record and record function-call-history after the
	 * stop (the newest 1,000 segments read), in CPU time: what the call
	 * log saves over walking every item again. */
	double t_info = cpu_now();
	ptd_session_record_info(s, &ri);
	t_info = cpu_now() - t_info;
	double t_calls = cpu_now();
	const struct ptd_calls *calls = ptd_session_calls(s);
	uint64_t nseg = ptd_calls_count(calls);
	for (uint64_t i = nseg > 1000 ? nseg - 999 : 1; i <= nseg; i++)
		if (!ptd_calls_get(calls, i))
			break;
	t_calls = cpu_now() - t_calls;
	unsigned long long rss_calls = rss_bytes();
	double dt = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	uint64_t br = count_branches(s);
	printf("insns=%llu seconds=%.3f insn_per_s=%.0f bytes=%zu bytes_per_insn=%.3f stops=%llu "
	       "branches=%llu stops_per_branch=%.3f rss=%llu rss_calls=%llu dropped=%llu recorded=%llu heap=%llu "
	       "info_record_cpu=%.4f calls_cpu=%.4f segments=%llu cpu=%.3f user=%.3f\n",
	       (unsigned long long)ri.ninsn, dt, (double)ri.ninsn / dt, ri.bytes,
	       (double)ri.bytes / (double)ri.ninsn, (unsigned long long)ri.stops,
	       (unsigned long long)br, br ? (double)ri.stops / (double)br : 0.0, rss, rss_calls,
	       (unsigned long long)ri.dropped, (unsigned long long)(ri.ninsn + ri.dropped), heap,
	       t_info, t_calls, (unsigned long long)nseg, t_rec, u_rec);
	ptd_session_free(s);
	return 0;
}
