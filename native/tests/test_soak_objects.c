/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Soak: 10,000 open/close cycles of the software NIC's objects (device with
 * its engine thread, PD, MR, CQ, QP brought to RTS, one WRITE that completes)
 * must leave resident memory and the open-file count flat. A leak of one
 * object per cycle shows as >= 10,000 x its size, so the bound of 1 MiB over
 * the whole run catches anything larger than ~100 bytes per cycle.
 *
 * Measured after a warm-up of 200 cycles so that allocator arenas and the
 * first thread stacks are already in the baseline. Under AddressSanitizer
 * freed memory sits in quarantine, so the RSS bound is not checked there
 * (the file-descriptor bound still is, and ASan's leak checker replaces it).
 *
 * MARROW_SOAK_CYCLES overrides the cycle count (for a quick local run).
 */
#include "emu_test_util.h"

#include <dirent.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SOAK_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SOAK_UNDER_SANITIZER 1
#endif
#endif
#ifndef SOAK_UNDER_SANITIZER
#define SOAK_UNDER_SANITIZER 0
#endif

#define SOAK_WARMUP 200
#define SOAK_RSS_BOUND_BYTES (1u << 20)

static long rss_bytes(void)
{
	long pages_total = 0, pages_resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	REQUIRE(f != NULL, "open /proc/self/statm");
	REQUIRE(fscanf(f, "%ld %ld", &pages_total, &pages_resident) == 2, "parse statm");
	fclose(f);
	return pages_resident * sysconf(_SC_PAGESIZE);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	REQUIRE(d != NULL, "opendir /proc/self/fd");
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the DIR's own descriptor */
}

/* One full life cycle; the WRITE proves each cycle's objects really worked. */
static void one_cycle(uint8_t *src, uint8_t *dst, uint32_t i)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd = NULL;
	struct marrow_emu_mr *smr = NULL, *dmr = NULL;
	uint32_t slkey, srkey, dlkey, drkey;
	struct t_cq cq;
	struct t_qp qp;
	struct t_sge sge;

	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, 64, MARROW_ACCESS_LOCAL_WRITE, &smr, &slkey, &srkey));
	OK(marrow_emu_mr_reg(pd, dst, 64, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dmr,
			     &dlkey, &drkey));
	t_cq_create(dev, 4, 0, &cq);
	t_qp_create(pd, &cq, 4, 64, &qp);
	t_connect(&qp, qp.v.qpn);

	memcpy(src, &i, sizeof(i));
	sge = (struct t_sge){ .addr = (uintptr_t)src, .len = sizeof(i), .lkey = slkey };
	t_post_sge(&qp, (uintptr_t)dst, drkey, &sge, 1, 1);
	t_ring(&qp);
	REQUIRE(t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, 0, NULL), "cycle %u: no success CQE", i);
	REQUIRE(memcmp(dst, &i, sizeof(i)) == 0, "cycle %u: payload not delivered", i);

	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_mr_dereg(dmr));
	OK(marrow_emu_mr_dereg(smr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
}

int main(void)
{
	const char *env = getenv("MARROW_SOAK_CYCLES");
	uint32_t cycles = env ? (uint32_t)strtoul(env, NULL, 10) : 10000;
	uint8_t *src = t_alloc(4096, 0), *dst = t_alloc(4096, 0);
	uint64_t t0;
	long rss0, rss1;
	int fd0, fd1;

	for (uint32_t i = 0; i < SOAK_WARMUP; i++)
		one_cycle(src, dst, i);
	rss0 = rss_bytes();
	fd0 = open_fds();
	t0 = t_now_ns();
	for (uint32_t i = 0; i < cycles; i++)
		one_cycle(src, dst, SOAK_WARMUP + i);
	rss1 = rss_bytes();
	fd1 = open_fds();

	printf("soak: %u cycles in %.2f s; rss %ld -> %ld KiB (growth %ld KiB); fds %d -> %d\n",
	       cycles, (double)(t_now_ns() - t0) / 1e9, rss0 >> 10, rss1 >> 10,
	       (rss1 - rss0) / 1024, fd0, fd1);
	CHECK(fd1 == fd0, "file descriptors grew from %d to %d", fd0, fd1);
	if (SOAK_UNDER_SANITIZER)
		printf("soak: RSS bound not checked under a sanitizer (quarantine)\n");
	else
		CHECK(rss1 - rss0 < (long)SOAK_RSS_BOUND_BYTES,
		      "RSS grew by %ld bytes over %u cycles (bound %u)", rss1 - rss0, cycles,
		      SOAK_RSS_BOUND_BYTES);
	free(src);
	free(dst);
	return t_finish("test_soak_objects");
}
