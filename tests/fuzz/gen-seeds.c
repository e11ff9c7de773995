/*
 * Writes the seed corpus for fuzz-decode: PT streams synthesized for
 * random runs of the tests/unit/ptwalk.h program (several PSB periods,
 * with and without return compression, signals, syscalls, overflows)
 * and two bundle manifests.  Usage: gen-seeds DIR
 */
#include <stdio.h>

#include "../unit/ptwalk.h"

static int put(const char *dir, const char *name, const void *data, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, n, f) != n) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	static const char man[] = "ptdbg-bundle 1\ncpu 6 142 9\n"
				  "map 0x0 0x100 0x401000 code.bin\nthread 7 pt-7.bin 0x401000\n";
	int i, err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen-seeds DIR\n");
		return 2;
	}
	pw_init_code();
	/* 8..11: IP filtering (TIP.PGD/TIP.PGE pairs at calls out of the
	 * traced range) with the smallest PSB periods, as real captures */
	for (i = 0; i < 12; i++) {
		int filt = i >= 8;
		struct ptd_ptsynth_config cfg = { .psb_period = filt ? (uint32_t)(i & 1 ? 1 : 24)
								     : (uint32_t)(64 << (i % 4)),
						  .ret_compression = filt || (i & 1),
						  .tnt64 = (i >> 1) & 1,
						  .tsc = (i >> 2) & 1,
						  .fup_pge = i == 11 };
		struct pw_opts o = { .seed = (unsigned)i + 1,
				     .steps = filt ? 600 : 300 + 200 * i,
				     .p_signal = filt ? 2 : 10,
				     .p_sigsys = filt ? 20 : 100,
				     .p_ovf = i > 4 ? (filt ? 2 : 10) : 0,
				     .p_filter = filt ? 300 + 150 * (i - 8) : 0 };
		struct ptd_ptsynth *s = ptd_ptsynth_alloc(&cfg);
		struct pw_result r;
		const uint8_t *buf;
		char name[32];
		size_t n;

		if (!s || pw_walk(&o, s, &r) < 0) {
			fprintf(stderr, "gen-seeds: synthesis failed\n");
			return 1;
		}
		buf = ptd_ptsynth_data(s, &n);
		snprintf(name, sizeof(name), "pt-%d", i);
		err |= put(argv[1], name, buf, n);
		free(r.ips);
		ptd_ptsynth_free(s);
	}
	err |= put(argv[1], "bundle-0", man, sizeof(man) - 1);
	err |= put(argv[1], "bundle-1", "ptdbg-bundle 1\nmap 0x 0 0 ../x\n", 31);
	return err;
}
