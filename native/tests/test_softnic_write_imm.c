/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * RDMA WRITE_WITH_IMM between two QPs ("two PEs") on a device with two
 * engine threads: the responder consumes one RQ WQE per message and writes
 * a RESP_WR_IMM CQE (imm verbatim at 36, byte_cnt at 44, wqe_counter = RQ
 * index); with no RQ WQE posted the requester waits (RNR, counted) instead
 * of failing, and completes once one is posted.
 */
#include "emu_test_util.h"

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 2);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *smr, *dmr;
	uint32_t lkey, rkey;
	struct t_cq acq, bcq, brcq;
	struct t_qp qa, qb;
	uint8_t *src = t_alloc(8192, 0), *dst = t_alloc(8192, 0);
	uint8_t cqe[64];
	uint64_t seed = 5;
	struct t_ctrs c0, c1;

	for (int i = 0; i < 8192; i++)
		src[i] = (uint8_t)t_rand(&seed);
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, 8192, MARROW_ACCESS_LOCAL_WRITE, &smr, &lkey, NULL));
	OK(marrow_emu_mr_reg(pd, dst, 8192, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dmr,
			     NULL, &rkey));
	t_cq_create(dev, 6, 0, &acq);
	t_cq_create(dev, 6, 0, &bcq);
	t_cq_create(dev, 3, 0, &brcq);
	t_qp_create(pd, &acq, 6, 64, &qa);
	t_qp_create_ex(pd, &bcq, &brcq, 6, 3, 64, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
		       &qb);
	CHECK(qb.v.rq_wqe_cnt == 8 && qb.v.rq_stride == 16 && qb.v.rq_buf != NULL,
	      "RQ view: %u entries, stride %u", qb.v.rq_wqe_cnt, qb.v.rq_stride);
	CHECK(qa.v.qpn % 2 != qb.v.qpn % 2, "QPs 0x%x and 0x%x on one engine thread", qa.v.qpn,
	      qb.v.qpn);
	t_connect(&qa, qb.v.qpn);
	t_connect(&qb, qa.v.qpn);
	/* rnr_retry 7: RNR retries forever (test_softnic_timers covers < 7). */
	OK(marrow_emu_qp_set_timers(qa.qp, 14, 7, 7, 1));

	/* No RQ WQE yet: the WRITE_IMM waits, nothing lands, no CQE. */
	c0 = t_counters(dev);
	uint16_t w0 = t_post_inline_op(&qa, MX_OPCODE_RDMA_WRITE_IMM, (uint64_t)(uintptr_t)dst, rkey, src,
				       16, 1, mx_htobe32(0xdeadbeef));
	t_ring(&qa);
	/* On a loaded host the engine may take longer than the 6 ms below to
	 * reach the WRITE_IMM at all: wait (bounded) until it has started to. */
	c1 = t_counters(dev);
	for (uint64_t t0 = t_now_ns(); T_DELTA(c0, c1, rnr_waits) == 0 && t_now_ns() - t0 < 2000000000ull;) {
		t_sleep_us(200);
		c1 = t_counters(dev);
	}
	t_expect_no_cqe(&acq, 5000);
	t_expect_no_cqe(&brcq, 1000);
	c1 = t_counters(dev);
	CHECK(T_DELTA(c0, c1, rnr_waits) == 1, "emu_rnr_waits advanced by %llu, expected 1",
	      (unsigned long long)T_DELTA(c0, c1, rnr_waits));
	CHECK(dst[0] == 0 && dst[15] == 0, "data landed before an RQ WQE was posted");
	CHECK(t_qp_state(&qa) == MARROW_QPS_RTS, "requester left RTS while waiting");

	/* Post one receive: both completions appear. */
	t_post_recv(&qb, 1);
	if (t_expect_cqe(&brcq, MX_CQE_RESP_WR_IMM, 0, qb.v.qpn, 0, cqe)) {
		CHECK(mx_cqe_imm_be(cqe) == mx_htobe32(0xdeadbeef), "imm 0x%08x",
		      mx_be32toh(mx_cqe_imm_be(cqe)));
		CHECK(mx_cqe_byte_cnt(cqe) == 16, "byte_cnt %u", mx_cqe_byte_cnt(cqe));
		CHECK(memcmp(dst, src, 16) == 0, "WRITE_IMM data missing at the responder CQE");
	}
	t_expect_cqe(&acq, MX_CQE_REQ, 0, qa.v.qpn, w0, cqe);
	CHECK(mx_cqe_sop(cqe) == MX_OPCODE_RDMA_WRITE_IMM, "requester CQE sop %u", mx_cqe_sop(cqe));

	/* Many pointer WRITE_IMMs with the RQ (8 entries) wrapping several
	 * times; receives are posted ahead in groups of 4. */
	uint32_t rq_index = 1;

	for (int round = 0; round < 10; round++) {
		uint16_t last = 0;

		t_post_recv(&qb, 4);
		for (int i = 0; i < 4; i++) {
			uint32_t len = 100 + 37 * i + round;
			struct t_sge sg = { (uint64_t)(uintptr_t)(src + 1000 * i), len, lkey };

			last = t_post_sge_op(&qa, MX_OPCODE_RDMA_WRITE_IMM,
					     (uint64_t)(uintptr_t)(dst + 1000 * i), rkey, &sg, 1, i == 3,
					     mx_htobe32(0x100 * round + i));
		}
		t_ring(&qa);
		for (int i = 0; i < 4; i++) {
			if (t_expect_cqe(&brcq, MX_CQE_RESP_WR_IMM, 0, qb.v.qpn, (uint16_t)rq_index, cqe)) {
				CHECK(mx_be32toh(mx_cqe_imm_be(cqe)) == (uint32_t)(0x100 * round + i),
				      "imm 0x%x", mx_be32toh(mx_cqe_imm_be(cqe)));
				CHECK(mx_cqe_byte_cnt(cqe) == (uint32_t)(100 + 37 * i + round), "byte_cnt %u",
				      mx_cqe_byte_cnt(cqe));
			}
			rq_index++;
		}
		t_expect_cqe(&acq, MX_CQE_REQ, 0, qa.v.qpn, last, NULL);
		for (int i = 0; i < 4; i++)
			CHECK(memcmp(dst + 1000 * i, src + 1000 * i, 100 + 37 * i + round) == 0,
			      "round %d WRITE_IMM %d data", round, i);
	}

	/* Zero-length WRITE_IMM (ds 2, no data, rkey ignored). */
	{
		uint16_t c = qa.pi;

		t_post_recv(&qb, 1);
		mx_set_ctrl_seg(t_wqe_byte(&qa, c, 0), c, MX_OPCODE_RDMA_WRITE_IMM, 0, qa.v.qpn,
				MX_CTRL_CQ_UPDATE, 2, 0, mx_htobe32(77));
		mx_set_raddr_seg(t_wqe_byte(&qa, c, 16), 0, 0);
		qa.pi = (uint16_t)(c + 1);
		t_ring(&qa);
		if (t_expect_cqe(&brcq, MX_CQE_RESP_WR_IMM, 0, qb.v.qpn, (uint16_t)rq_index, cqe))
			CHECK(mx_cqe_byte_cnt(cqe) == 0 && mx_be32toh(mx_cqe_imm_be(cqe)) == 77,
			      "zero-length: byte_cnt %u imm %u", mx_cqe_byte_cnt(cqe),
			      mx_be32toh(mx_cqe_imm_be(cqe)));
		t_expect_cqe(&acq, MX_CQE_REQ, 0, qa.v.qpn, c, NULL);
		rq_index++;
	}

	/* Both directions at once: B writes back to A's buffer while A writes
	 * to B; plain WRITEs need no RQ. */
	{
		uint16_t la = 0, lb = 0;

		for (int i = 0; i < 20; i++) {
			la = t_post_inline(&qa, (uint64_t)(uintptr_t)(dst + 4096 + 8 * i), rkey, src + 8 * i, 8,
					   i == 19);
			lb = t_post_inline(&qb, (uint64_t)(uintptr_t)(dst + 6000 + 8 * i), rkey,
					   src + 500 + 8 * i, 8, i == 19);
		}
		t_ring(&qa);
		t_ring(&qb);
		t_expect_cqe(&acq, MX_CQE_REQ, 0, qa.v.qpn, la, NULL);
		t_expect_cqe(&bcq, MX_CQE_REQ, 0, qb.v.qpn, lb, NULL);
		CHECK(memcmp(dst + 4096, src, 160) == 0 && memcmp(dst + 6000, src + 500, 160) == 0,
		      "bidirectional data");
	}
	t_expect_no_cqe(&brcq, 500);
	c1 = t_counters(dev);
	CHECK(c1.v[MARROW_EMU_CTR_cqe_resp_wr_imm] == rq_index,
	      "emu_cqe_resp_wr_imm %llu, expected %u",
	      (unsigned long long)c1.v[MARROW_EMU_CTR_cqe_resp_wr_imm], rq_index);
	CHECK(c1.v[MARROW_EMU_CTR_wqe_rdma_write_imm] == rq_index, "emu_wqe_rdma_write_imm %llu",
	      (unsigned long long)c1.v[MARROW_EMU_CTR_wqe_rdma_write_imm]);

	OK(marrow_emu_qp_destroy(qa.qp));
	OK(marrow_emu_qp_destroy(qb.qp));
	OK(marrow_emu_cq_destroy(acq.cq));
	OK(marrow_emu_cq_destroy(bcq.cq));
	OK(marrow_emu_cq_destroy(brcq.cq));
	OK(marrow_emu_mr_dereg(smr));
	OK(marrow_emu_mr_dereg(dmr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(src);
	free(dst);
	return t_finish("test_softnic_write_imm");
}
