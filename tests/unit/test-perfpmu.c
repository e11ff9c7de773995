/*
 * PMU descriptions parsed from sysfs: a fake tree read through the
 * running kernel's ops (ptd_perf_kernel_linux_root), the simulated
 * kernel's tree, malformed files, terms set into perf_event_attr, and the
 * choice of kernel by PTDBG_SIMULATE_PMU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptdbg/ptdbg.h"
#include "record/perf.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[1024], dir[1024], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/ptdbg-perfpmu-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_parse_tree(void **state)
{
	struct ptd_perf_kernel *k;
	struct ptd_perf_pmu pmu;
	struct perf_event_attr attr;
	char buf[64];

	put("sys/intel_pt/type", "9\n");
	put("sys/intel_pt/format/pt", "config:0\n");
	put("sys/intel_pt/format/branch", "config:13\n");
	put("sys/intel_pt/format/mtc_period", "config:14-17\n");
	put("sys/intel_pt/format/psb_period", "config:24-27\n");
	put("sys/intel_pt/format/noretcomp", "config:11\n");
	put("sys/intel_pt/format/wide", "config1:0-31\n");
	put("sys/intel_pt/format/other", "config2:40-63\n");
	put("sys/intel_pt/format/split", "config:0-3,8-11\n"); /* valid, not representable */
	put("sys/intel_pt/caps/num_address_ranges", "2\n");
	put("sys/intel_pt/caps/psb_periods", "0x3f\n");
	put("sys/intel_pt/caps/mtc", "1\n");
	put("sys/intel_pt/caps/tsc_art_ratio", "2:216\n"); /* not a number */
	put("proc/kernel/perf_event_paranoid", "2\n");
	{
		char s[300], p[300];
		snprintf(s, sizeof(s), "%s/sys", root);
		snprintf(p, sizeof(p), "%s/proc", root);
		k = ptd_perf_kernel_linux_root(s, p);
	}
	assert_non_null(k);
	assert_int_equal(k->simulated, 0);
	assert_string_equal(k->name, "linux");
	assert_int_equal(k->ops->read_procsys(k, "kernel/perf_event_paranoid", buf, sizeof(buf)),
			 1);
	assert_string_equal(buf, "2");
	assert_int_equal(k->ops->read_sysfs(k, "nope/type", buf, sizeof(buf)), -ENOENT);

	assert_int_equal(ptd_perf_pmu_read(k, "intel_pt", &pmu), 0);
	assert_string_equal(pmu.name, "intel_pt");
	assert_int_equal(pmu.type, 9);
	assert_int_equal(pmu.nfmt, 7); /* "split" left out */
	for (int i = 0; i < pmu.nfmt; i++) {
		const struct ptd_perf_format *f = &pmu.fmt[i];
		if (strcmp(f->name, "mtc_period") == 0) {
			assert_int_equal(f->field, 0);
			assert_int_equal(f->lo, 14);
			assert_int_equal(f->hi, 17);
		} else if (strcmp(f->name, "wide") == 0) {
			assert_int_equal(f->field, 1);
			assert_int_equal(f->lo, 0);
			assert_int_equal(f->hi, 31);
		} else if (strcmp(f->name, "other") == 0) {
			assert_int_equal(f->field, 2);
			assert_int_equal(f->lo, 40);
			assert_int_equal(f->hi, 63);
		} else if (strcmp(f->name, "branch") == 0) {
			assert_int_equal(f->lo, 13);
			assert_int_equal(f->hi, 13);
		}
		assert_string_not_equal(f->name, "split");
	}
	assert_int_equal(ptd_perf_pmu_cap(&pmu, "num_address_ranges", 0), 2);
	assert_int_equal(ptd_perf_pmu_cap(&pmu, "psb_periods", 0), 0x3f);
	assert_int_equal(ptd_perf_pmu_cap(&pmu, "nope", 77), 77);
	assert_int_equal(ptd_perf_pmu_cap(&pmu, "tsc_art_ratio", 5), 5);

	memset(&attr, 0, sizeof(attr));
	assert_int_equal(ptd_perf_pmu_set(&pmu, &attr, "pt", 1), 0);
	assert_int_equal(ptd_perf_pmu_set(&pmu, &attr, "branch", 1), 0);
	assert_int_equal(ptd_perf_pmu_set(&pmu, &attr, "psb_period", 3), 0);
	assert_int_equal(ptd_perf_pmu_set(&pmu, &attr, "mtc_period", 0xf), 0);
	assert_int_equal(attr.config, 1ull | 1ull << 13 | 3ull << 24 | 0xfull << 14);
	assert_int_equal(ptd_perf_pmu_set(&pmu, &attr, "mtc_period", 2), 0); /* replaces */
	assert_int_equal(attr.config, 1ull | 1ull << 13 | 3ull << 24 | 2ull << 14);
	assert_int_equal(ptd_perf_pmu_set(&pmu, &attr, "wide", 0xdeadbeef), 0);
	assert_int_equal(attr.config1, 0xdeadbeef);
	assert_int_equal(ptd_perf_pmu_set(&pmu, &attr, "other", 0xffffff), 0);
	assert_int_equal(attr.config2, 0xffffffull << 40);
	assert_int_equal(ptd_perf_pmu_set(&pmu, &attr, "psb_period", 16), -ptde_invalid);
	assert_int_equal(ptd_perf_pmu_set(&pmu, &attr, "cyc", 1), -ptde_unsupported);
	assert_non_null(strstr(ptd_last_error(-ptde_unsupported), "cyc"));
	assert_int_equal(ptd_perf_pmu_set(NULL, &attr, "pt", 1), -ptde_invalid);

	/* no such PMU: the message names the path */
	assert_int_equal(ptd_perf_pmu_read(k, "intel_bts", &pmu), -ptde_notfound);
	assert_non_null(strstr(ptd_last_error(-ptde_notfound), "intel_bts/type"));
	/* malformed files */
	put("sys/bad1/type", "nine\n");
	assert_int_equal(ptd_perf_pmu_read(k, "bad1", &pmu), -ptde_bad_trace);
	assert_non_null(strstr(ptd_last_error(-ptde_bad_trace), "nine"));
	put("sys/bad2/type", "3\n");
	put("sys/bad2/format/x", "config:5-2\n");
	assert_int_equal(ptd_perf_pmu_read(k, "bad2", &pmu), -ptde_bad_trace);
	put("sys/bad3/type", "3\n");
	put("sys/bad3/format/x", "config3:1\n");
	assert_int_equal(ptd_perf_pmu_read(k, "bad3", &pmu), -ptde_bad_trace);
	put("sys/bad4/type", "3\n");
	put("sys/bad4/format/x", "config:64\n");
	assert_int_equal(ptd_perf_pmu_read(k, "bad4", &pmu), -ptde_bad_trace);
	/* a PMU without format/ or caps/ directories is fine */
	put("sys/bare/type", "12\n");
	assert_int_equal(ptd_perf_pmu_read(k, "bare", &pmu), 0);
	assert_int_equal(pmu.type, 12);
	assert_int_equal(pmu.nfmt, 0);
	assert_int_equal(pmu.ncaps, 0);
	assert_int_equal(ptd_perf_pmu_read(k, "../etc", &pmu), -ptde_invalid);
	ptd_perf_kernel_free(k);
}

static void test_sim_tree(void **state)
{
	struct ptd_perf_kernel *k = ptd_perf_kernel_sim("pt");
	struct ptd_perf_pmu pmu;
	unsigned r[4];
	char buf[32];

	assert_non_null(k);
	assert_int_equal(k->simulated, 1);
	assert_non_null(strstr(k->name, "simulated"));
	assert_int_equal(ptd_perf_pmu_read(k, "intel_pt", &pmu), 0);
	assert_int_equal(pmu.type, 8);
	assert_true(pmu.nfmt >= 12);
	assert_int_equal(ptd_perf_pmu_cap(&pmu, "num_address_ranges", 0), 2);
	assert_int_equal(ptd_perf_pmu_cap(&pmu, "ip_filtering", 0), 1);
	assert_int_equal(ptd_perf_pmu_cap(&pmu, "psb_cyc", 0), 1);
	for (int i = 0; i < pmu.nfmt; i++)
		if (strcmp(pmu.fmt[i].name, "psb_period") == 0) {
			assert_int_equal(pmu.fmt[i].lo, 24);
			assert_int_equal(pmu.fmt[i].hi, 27);
		}
	k->ops->cpuid(k, 0, 0, r);
	assert_int_equal(r[1], 0x756e6547); /* Genu */
	k->ops->cpuid(k, 7, 0, r);
	assert_true(r[1] & (1u << 25));
	k->ops->cpuid(k, 1, 0, r);
	assert_false(r[2] & (1u << 31)); /* no hypervisor */
	assert_int_equal(k->ops->read_procsys(k, "kernel/perf_event_paranoid", buf, sizeof(buf)),
			 2);
	assert_string_equal(buf, "-1");
	ptd_perf_sim_set_paranoid(k, 3);
	k->ops->read_procsys(k, "kernel/perf_event_paranoid", buf, sizeof(buf));
	assert_string_equal(buf, "3");
	ptd_perf_kernel_free(k);

	k = ptd_perf_kernel_sim("bts");
	assert_non_null(k);
	assert_int_equal(ptd_perf_pmu_read(k, "intel_pt", &pmu), -ptde_notfound);
	k->ops->cpuid(k, 7, 0, r);
	assert_false(r[1] & (1u << 25));
	k->ops->cpuid(k, 1, 0, r);
	assert_true(r[3] & (1u << 21)); /* debug store */
	assert_int_equal(ptd_perf_pmu_read(k, "cpu", &pmu), 0);
	assert_int_equal(pmu.type, 4);
	ptd_perf_kernel_free(k);

	assert_null(ptd_perf_kernel_sim("arm"));
	assert_non_null(strstr(ptd_last_error(-ptde_invalid), "arm"));
}

static void test_default_kernel(void **state)
{
	struct ptd_perf_kernel *k;

	setenv("PTDBG_SIMULATE_PMU", "pt", 1);
	k = ptd_perf_kernel_default();
	assert_non_null(k);
	assert_int_equal(k->simulated, 1);
	assert_string_equal(k->name, "simulated pt");
	ptd_perf_kernel_free(k);
	setenv("PTDBG_SIMULATE_PMU", "bts", 1);
	k = ptd_perf_kernel_default();
	assert_non_null(k);
	assert_string_equal(k->name, "simulated bts");
	ptd_perf_kernel_free(k);
	/* an unknown value is an error, never ignored */
	setenv("PTDBG_SIMULATE_PMU", "yes", 1);
	ptd_clear_error();
	assert_null(ptd_perf_kernel_default());
	assert_non_null(strstr(ptd_last_error(-ptde_invalid), "PTDBG_SIMULATE_PMU"));
	assert_non_null(strstr(ptd_last_error(-ptde_invalid), "'yes'"));
	unsetenv("PTDBG_SIMULATE_PMU");
	k = ptd_perf_kernel_default();
	assert_non_null(k);
	assert_int_equal(k->simulated, 0);
	assert_string_equal(k->name, "linux");
	ptd_perf_kernel_free(k);
	setenv("PTDBG_SIMULATE_PMU", "", 1);
	k = ptd_perf_kernel_default();
	assert_non_null(k);
	assert_int_equal(k->simulated, 0);
	ptd_perf_kernel_free(k);
	unsetenv("PTDBG_SIMULATE_PMU");
}


struct mm_seen {
	int n;
	uint64_t addr, len, pgoff;
	uint32_t prot;
	char name[256];
	uint16_t size;
};

static int on_mmap2(void *ctx, const struct perf_event_header *h, const void *rec)
{
	struct mm_seen *m = ctx;
	const uint8_t *b = rec;

	if (h->type != PERF_RECORD_MMAP2)
		return 0;
	m->n++;
	memcpy(&m->addr, b + 16, 8);
	memcpy(&m->len, b + 24, 8);
	memcpy(&m->pgoff, b + 32, 8);
	memcpy(&m->prot, b + 64, 4);
	snprintf(m->name, sizeof(m->name), "%s", (const char *)b + 72);
	m->size = h->size;
	return 0;
}

/*
 * The running kernel through its ops: the software PMU every Linux has,
 * a dummy event on this thread with its ring mapped, and the MMAP2 record
 * the kernel writes when this process maps code, read with the ring reader
 * at the offsets the simulated kernel writes them.
 */
static void test_linux_kernel(void **state)
{
	struct ptd_perf_kernel *k = ptd_perf_kernel_linux();
	struct ptd_perf_pmu pmu;
	struct perf_event_attr attr;
	struct ptd_perf_ring ring;
	struct mm_seen m = { 0 };
	volatile struct perf_event_mmap_page *pg;
	size_t len = 2 * 4096;
	void *base, *code;
	int fd, err = 0;
	unsigned r[4];
	FILE *f;

	assert_non_null(k);
	assert_int_equal(ptd_perf_pmu_read(k, "software", &pmu), 0);
	assert_int_equal(pmu.type, PERF_TYPE_SOFTWARE);
	k->ops->cpuid(k, 0, 0, r);
	assert_true(r[0] > 0); /* highest standard leaf */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.disabled = 1;
	fd = k->ops->open(k, &attr, 0, -1, -1, 0);
	if (fd < 0)
		fail_msg("perf_event_open of a dummy software event: %s", strerror(-fd));
	base = k->ops->mmap(k, fd, len, PROT_READ | PROT_WRITE, 0, &err);
	assert_non_null(base);
	pg = base;
	assert_int_equal(pg->data_offset, 4096);
	assert_int_equal(pg->data_size, 4096);
	assert_int_equal(ptd_perf_ring_init(&ring, base, len, 1), 0);
	assert_int_equal(k->ops->fcntl(k, fd, F_SETOWN, getpid()), 0);
	assert_int_equal(k->ops->ioctl(k, fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	f = fopen("/bin/sh", "r");
	assert_non_null(f);
	code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0);
	assert_true(code != MAP_FAILED);
	assert_int_equal(k->ops->ioctl(k, fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	assert_true(ptd_perf_ring_read(&ring, on_mmap2, &m, NULL) >= 1);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.addr, (uint64_t)(uintptr_t)code);
	assert_int_equal(m.len, 4096);
	assert_int_equal(m.pgoff, 0);
	assert_true(m.prot & PROT_EXEC);
	assert_non_null(strstr(m.name, "sh"));
	assert_int_equal(m.size % 8, 0);
	munmap(code, 4096);
	fclose(f);
	assert_int_equal(k->ops->munmap(k, base, len), 0);
	assert_int_equal(k->ops->close(k, fd), 0);
	assert_int_equal(k->ops->ioctl(k, fd, PERF_EVENT_IOC_ENABLE, 0), -EBADF);
	ptd_perf_kernel_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_tree),
		cmocka_unit_test(test_sim_tree),
		cmocka_unit_test(test_default_kernel),
		cmocka_unit_test(test_linux_kernel),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
