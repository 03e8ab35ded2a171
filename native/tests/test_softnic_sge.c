/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Multi-SGE pointer WRITEs: gathers from several MRs are concatenated at the
 * target in SGE order; zero-length SGEs are skipped; a 16-SGE WQE (5
 * WQEBBs) wraps the ring; a 1 MiB single-SGE WRITE and a zero-length WRITE
 * (no SGE, ds 2) both complete.
 */
#include "emu_test_util.h"

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *m1, *m2, *md;
	uint32_t k1, k2, kd;
	struct t_cq cq;
	struct t_qp qp;
	const size_t big = 1 << 20;
	uint8_t *a = t_alloc(big, 0), *b = t_alloc(8192, 0), *dst = t_alloc(big + 4096, 0);
	uint8_t *ref = t_alloc(big, 0);
	uint64_t seed = 9;
	uint16_t c;

	for (size_t i = 0; i < big; i++)
		a[i] = (uint8_t)t_rand(&seed);
	for (size_t i = 0; i < 8192; i++)
		b[i] = (uint8_t)t_rand(&seed);
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, a, big, MARROW_ACCESS_LOCAL_WRITE, &m1, &k1, NULL));
	OK(marrow_emu_mr_reg(pd, b, 8192, 0, &m2, &k2, NULL));   /* local read is implied */
	OK(marrow_emu_mr_reg(pd, dst, big + 4096, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
			     &md, NULL, &kd));
	t_cq_create(dev, 5, 0, &cq);
	t_qp_create(pd, &cq, 4, 0, &qp);   /* 16 WQEBBs, no inline */
	t_connect(&qp, qp.v.qpn);

	/* 4 SGEs from two MRs plus a zero-length one in the middle. */
	{
		struct t_sge sg[5] = {
			{ (uint64_t)(uintptr_t)(a + 10), 1, k1 },
			{ (uint64_t)(uintptr_t)(b + 20), 7, k2 },
			{ (uint64_t)(uintptr_t)(b + 4000), 0, k2 },
			{ (uint64_t)(uintptr_t)(a + 5000), 100, k1 },
			{ (uint64_t)(uintptr_t)(b + 100), 4000, k2 },
		};
		size_t off = 0;

		c = t_post_sge(&qp, (uint64_t)(uintptr_t)(dst + 3), kd, sg, 5, 1);
		t_ring(&qp);
		t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, c, NULL);
		for (int i = 0; i < 5; i++) {
			memcpy(ref + off, (const void *)(uintptr_t)sg[i].addr, sg[i].len);
			off += sg[i].len;
		}
		CHECK(memcmp(dst + 3, ref, off) == 0, "4-SGE gather not concatenated in order");
		CHECK(dst[2] == 0 && dst[3 + off] == 0, "bytes around the gather written");
	}

	/* 16 SGEs = ds 18 = 5 WQEBBs; start it at slot 13 so it wraps. */
	while (qp.pi % 16 != 13)
		t_post_nop(&qp, 1, 0);
	{
		struct t_sge sg[16];
		size_t off = 0;

		for (int i = 0; i < 16; i++) {
			sg[i].addr = (uint64_t)(uintptr_t)(a + 20000 + 777 * i);
			sg[i].len = 1 + 13 * i;
			sg[i].lkey = k1;
		}
		memset(dst, 0, 8192);
		c = t_post_sge(&qp, (uint64_t)(uintptr_t)dst, kd, sg, 16, 1);
		CHECK(c % 16 == 13 && qp.pi % 16 == 2, "16-SGE WQE at %u..%u", c, qp.pi);
		t_ring(&qp);
		t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, c, NULL);
		for (int i = 0; i < 16; i++) {
			memcpy(ref + off, (const void *)(uintptr_t)sg[i].addr, sg[i].len);
			off += sg[i].len;
		}
		CHECK(memcmp(dst, ref, off) == 0, "wrapped 16-SGE gather corrupt");
	}

	/* 1 MiB in one SGE, then a zero-length WRITE with a junk rkey. */
	{
		struct t_sge sg = { (uint64_t)(uintptr_t)a, (uint32_t)big, k1 };
		struct t_ctrs c0 = t_counters(dev), c1;

		c = t_post_sge(&qp, (uint64_t)(uintptr_t)(dst + 4096), kd, &sg, 1, 1);
		t_ring(&qp);
		t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, c, NULL);
		CHECK(memcmp(dst + 4096, a, big) == 0, "1 MiB WRITE corrupt");
		c = t_post_sge(&qp, 0, 0xdead00u, NULL, 0, 1);
		t_ring(&qp);
		t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, c, NULL);
		c1 = t_counters(dev);
		CHECK_DELTA(c0, c1, gather_bytes, big);
		CHECK_DELTA(c0, c1, payload_bytes_rx, big);
	}

	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_mr_dereg(m1));
	OK(marrow_emu_mr_dereg(m2));
	OK(marrow_emu_mr_dereg(md));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(a);
	free(b);
	free(dst);
	free(ref);
	return t_finish("test_softnic_sge");
}
