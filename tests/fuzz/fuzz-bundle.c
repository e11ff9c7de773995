/*
 * libFuzzer target for the trace bundle reader as `ptdbg --load DIR` runs
 * it: the manifest parser, the reading of the PT files, the decoder image
 * built from the map lines, and the lazy history of a loaded trace
 * (decoded segment by segment as commands need it).  Built by `make fuzz`
 * with clang -fsanitize=fuzzer,address,undefined; run by
 * tests/integration/fuzz-bundle.sh, which makes the seeds from real
 * recordings saved with `record save`.
 *
 * An input is a bundle in one piece: the manifest text, a NUL byte, then
 * the bytes of the one data file "pt.bin" (the seeds' thread lines name
 * it).  Both are written into the directory "fuzz-bundle.d" under the
 * working directory and loaded from there.  Map lines may name any file;
 * an input whose maps name something other than a regular file, or a file
 * under /proc, /sys or /dev, is skipped: opening a FIFO or a device, or
 * reading /proc/kmsg, can block.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decode/bundle.h"
#include "session/session.h"
#include "util/error.h"

#define DIR_NAME "fuzz-bundle.d"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int put(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	if (n && fwrite(p, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Every map must name a regular file (or nothing there: an error the
 * reader reports). */
static int maps_are_files(const char *text, size_t len)
{
	struct ptd_bundle *b;
	struct stat st;
	size_t i;
	int ok = 1;

	if (ptd_bundle_parse(text, len, DIR_NAME, &b) < 0)
		return 1; /* the reader refuses it the same way */
	for (i = 0; i < b->nmaps && ok; i++) {
		const char *p = b->maps[i].path;

		/* /proc and /sys have regular files that block (/proc/kmsg) */
		if (!strncmp(p, "/proc/", 6) || !strncmp(p, "/sys/", 5) || !strncmp(p, "/dev/", 5) ||
		    (stat(p, &st) == 0 && !S_ISREG(st.st_mode)))
			ok = 0;
	}
	ptd_bundle_free(b);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t mlen = nul ? (size_t)(nul - data) : size;
	struct ptd_session *s;
	struct ptd_event ev;
	struct ptd_record_info ri;
	uint64_t pcs[16], pos, count;
	int i;

	if (!maps_are_files((const char *)data, mlen))
		return 0;
	mkdir(DIR_NAME, 0755);
	if (put(DIR_NAME "/manifest", data, mlen) < 0 ||
	    put(DIR_NAME "/pt.bin", nul ? nul + 1 : data, nul ? size - mlen - 1 : 0) < 0) {
		perror("fuzz-bundle: cannot write the bundle");
		abort();
	}

	/* The reader alone, then the whole load as the shell does it. */
	{
		struct ptd_bundle *b;

		if (ptd_bundle_load(DIR_NAME, &b) == 0) {
			struct ptd_image *img = ptd_bundle_image(b, NULL, NULL);

			ptd_image_free(img);
			ptd_bundle_free(b);
		}
	}
	s = ptd_session_alloc();
	if (!s)
		abort();
	if (ptd_session_load(s, DIR_NAME) == 0) {
		/* What the history commands ask of a loaded trace: a few
		 * reverse motions from the end (the newest segment and the
		 * ones before it), the counts (every segment), both ends. */
		for (i = 0; i < 3; i++)
			ptd_session_motion(s, PTD_MOTION_STEPI, 1, &ev);
		ptd_session_motion(s, PTD_MOTION_FINISH, 1, &ev);
		ptd_session_motion(s, PTD_MOTION_NEXT, 1, &ev);
		ptd_session_backtrace(s, pcs, 16);
		ptd_session_record_info(s, &ri);
		ptd_session_calls(s);
		ptd_session_position(s, &pos, &count);
		ptd_session_goto(s, "begin", &ev);
		ptd_session_motion(s, PTD_MOTION_STEP, 0, &ev);
		ptd_session_motion(s, PTD_MOTION_CONTINUE, 0, &ev);
		ptd_session_goto(s, "end", &ev);
		if (ptd_session_threads(s, NULL, 0) > 1 && ptd_session_select_thread(s, 2) == 0)
			ptd_session_motion(s, PTD_MOTION_CONTINUE, 1, &ev);
	}
	ptd_session_free(s);
	ptd_clear_error();
	return 0;
}
