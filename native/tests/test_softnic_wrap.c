/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Ring wrap: batches that straddle the SQ end, a 200-byte inline WQE (4
 * WQEBBs) that wraps in the middle of its payload, and a seeded random
 * stream of inline/pointer WRITEs of mixed sizes over many laps, for a small
 * SQ (shadow = SQ) and a large one (shadow smaller than the SQ).
 */
#include "emu_test_util.h"

struct rig {
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *src_mr, *dst_mr;
	uint32_t lkey, rkey;
	uint8_t *src, *dst, *ref;
	size_t len;
};

static void fixed_straddle(struct rig *r)
{
	struct t_cq cq;
	struct t_qp qp;
	uint16_t last;
	uint8_t cqe[64];

	t_cq_create(r->dev, 4, 0, &cq);
	t_qp_create(r->pd, &cq, 4, 220, &qp);   /* 16 WQEBBs */
	t_connect(&qp, qp.v.qpn);
	memset(r->dst, 0, r->len);

	/* Move the producer to slot 14. */
	for (int i = 0; i < 14; i++)
		last = t_post_inline(&qp, (uint64_t)(uintptr_t)(r->dst + 8 * i), r->rkey, r->src + 8 * i, 8,
				     i == 13);
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, cqe);
	CHECK(qp.pi == 14, "pi %u", qp.pi);

	/* 200 B inline = ds 15 = 4 WQEBBs at slots 14, 15, 0, 1; payload bytes
	 * 36..199+36 wrap after 92 of them. Then 3 more WRITEs in the batch. */
	uint16_t big = t_post_inline(&qp, (uint64_t)(uintptr_t)(r->dst + 1000), r->rkey, r->src + 1000,
				     200, 0);

	CHECK(big == 14 && qp.pi == 18, "big WQE at %u, pi %u", big, qp.pi);
	for (int i = 0; i < 3; i++)
		last = t_post_inline(&qp, (uint64_t)(uintptr_t)(r->dst + 2000 + 16 * i), r->rkey,
				     r->src + 2000 + 16 * i, 16, i == 2);
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, cqe);
	CHECK(memcmp(r->dst + 1000, r->src + 1000, 200) == 0, "wrapped 200-byte inline payload corrupt");
	CHECK(memcmp(r->dst + 2000, r->src + 2000, 48) == 0, "WRITEs after the wrapped WQE corrupt");
	CHECK(r->dst[1200] == 0 && r->dst[999] == 0, "bytes around the 200-byte write touched");

	/* A signaled 200-byte WQE whose CQE must name its first WQEBB. */
	while (qp.pi % 16 != 15)
		t_post_nop(&qp, 1, 0);
	big = t_post_inline(&qp, (uint64_t)(uintptr_t)(r->dst + 3000), r->rkey, r->src + 3000, 200, 1);
	t_ring(&qp);
	t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, big, cqe);
	CHECK(memcmp(r->dst + 3000, r->src + 3000, 200) == 0, "200-byte inline at slot 15 corrupt");

	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
}

/* Random stream; returns the number of WQEs checked. */
static uint64_t random_stream(struct rig *r, uint32_t log_sq, uint32_t max_batch_bbs, uint64_t seed,
			      uint32_t rounds)
{
	struct t_cq cq;
	struct t_qp qp;
	uint8_t cqe[64];
	uint64_t wqes = 0;
	uint32_t sq = 1u << log_sq;
	size_t cursor = 0;

	t_cq_create(r->dev, 8, 0, &cq);
	t_qp_create(r->pd, &cq, log_sq, 220, &qp);
	t_connect(&qp, qp.v.qpn);
	memset(r->dst, 0, r->len);
	memset(r->ref, 0, r->len);

	for (uint32_t round = 0; round < rounds; round++) {
		uint32_t budget = 1 + (uint32_t)(t_rand(&seed) % (max_batch_bbs < sq ? max_batch_bbs : sq));
		uint16_t start = qp.pi, last = 0;
		uint32_t used = 0, n = 0;

		while (used < budget) {
			uint32_t len = 1 + (uint32_t)(t_rand(&seed) % 220);
			int inl = t_rand(&seed) & 1;
			uint32_t bbs = inl ? mx_wqebbs(mx_ds_inline_write(len)) : 1;
			size_t soff = (size_t)(t_rand(&seed) % (r->len - 256));

			if (used + bbs > budget)
				break;
			if (cursor + len > r->len)
				cursor = 0;
			if (inl) {
				last = t_post_inline(&qp, (uint64_t)(uintptr_t)(r->dst + cursor), r->rkey,
						     r->src + soff, len, 0);
			} else {
				struct t_sge sg = { (uint64_t)(uintptr_t)(r->src + soff), len, r->lkey };

				last = t_post_sge(&qp, (uint64_t)(uintptr_t)(r->dst + cursor), r->rkey, &sg, 1,
						  0);
			}
			memcpy(r->ref + cursor, r->src + soff, len);
			cursor += len;
			used += bbs;
			n++;
		}
		if (n == 0) {
			last = t_post_nop(&qp, 1, 0);
			n = 1;
		}
		/* Signal the last WQE: patch CE into its ctrl segment. */
		*t_wqe_byte(&qp, last, 11) = MX_CTRL_CQ_UPDATE;
		t_ring(&qp);
		if (!t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, cqe))
			break;
		wqes += n;
		if (memcmp(r->dst, r->ref, r->len) != 0) {
			CHECK(0, "log_sq %u round %u (start %u, %u WQEs): destination differs from the reference",
			      log_sq, round, start, n);
			break;
		}
	}
	t_expect_no_cqe(&cq, 500);
	CHECK(t_qp_state(&qp) == MARROW_QPS_RTS, "QP left RTS");
	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	return wqes;
}

int main(void)
{
	struct rig r = { 0 };
	uint64_t seed = 7;

	r.dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	r.len = 1 << 16;
	r.src = t_alloc(r.len, 0);
	r.dst = t_alloc(r.len, 0);
	r.ref = t_alloc(r.len, 0);
	for (size_t i = 0; i < r.len; i++)
		r.src[i] = (uint8_t)t_rand(&seed);
	OK(marrow_emu_pd_alloc(r.dev, &r.pd));
	OK(marrow_emu_mr_reg(r.pd, r.src, r.len, MARROW_ACCESS_LOCAL_WRITE, &r.src_mr, &r.lkey, NULL));
	OK(marrow_emu_mr_reg(r.pd, r.dst, r.len, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
			     &r.dst_mr, NULL, &r.rkey));

	fixed_straddle(&r);
	printf("  16-WQEBB SQ: %llu random WQEs ok\n",
	       (unsigned long long)random_stream(&r, 4, 16, 11, 3000));
	printf("  64-WQEBB SQ: %llu random WQEs ok\n",
	       (unsigned long long)random_stream(&r, 6, 48, 12, 2000));
	/* SQ 1024 > 256-WQEBB shadow: batches up to 900 WQEBBs. */
	printf("  1024-WQEBB SQ: %llu random WQEs ok\n",
	       (unsigned long long)random_stream(&r, 10, 900, 13, 200));

	OK(marrow_emu_mr_dereg(r.src_mr));
	OK(marrow_emu_mr_dereg(r.dst_mr));
	OK(marrow_emu_pd_free(r.pd));
	OK(marrow_emu_device_close(r.dev));
	free(r.src);
	free(r.dst);
	free(r.ref);
	return t_finish("test_softnic_wrap");
}
