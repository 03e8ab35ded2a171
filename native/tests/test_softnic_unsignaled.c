/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Unsignaled retirement: N unsignaled WRITEs followed by one signaled WRITE
 * produce exactly one CQE, naming the signaled WQE, and by the time it is
 * visible every earlier WRITE has landed. CE = 1 ("CQE on error only")
 * behaves like unsignaled on success.
 */
#include "emu_test_util.h"

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *src_mr, *dst_mr;
	uint32_t src_key, dst_key;
	struct t_cq cq;
	struct t_qp qp;
	uint8_t *src = t_alloc(65536, 0);
	uint8_t *dst = t_alloc(65536, 0);
	uint8_t cqe[64];
	uint64_t seed = 42;

	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, 65536, MARROW_ACCESS_LOCAL_WRITE, &src_mr, &src_key, NULL));
	OK(marrow_emu_mr_reg(pd, dst, 65536, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
			     &dst_mr, NULL, &dst_key));
	t_cq_create(dev, 6, 0, &cq);
	t_qp_create(pd, &cq, 9, 64, &qp);
	t_connect(&qp, qp.v.qpn);
	for (int i = 0; i < 65536; i++)
		src[i] = (uint8_t)t_rand(&seed);

	for (int round = 0; round < 4; round++) {
		const uint32_t n = 200;
		uint16_t last;

		memset(dst, 0, 65536);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t off = (uint64_t)i * 64;

			if (round & 1) {
				struct t_sge sg = { (uint64_t)(uintptr_t)(src + off), 64, src_key };

				t_post_sge(&qp, (uint64_t)(uintptr_t)(dst + off), dst_key, &sg, 1, 0);
			} else {
				t_post_inline(&qp, (uint64_t)(uintptr_t)(dst + off), dst_key, src + off, 48, 0);
			}
			/* Ring now and then so that several dbrec updates are involved. */
			if (i % 37 == 36)
				t_ring(&qp);
		}
		last = t_post_inline(&qp, (uint64_t)(uintptr_t)(dst + 60000), dst_key, src + 60000, 8, 1);
		t_ring(&qp);
		if (t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, cqe)) {
			/* The CQE retires everything before it: all data must be there. */
			int bad = 0;

			for (uint32_t i = 0; i < n && !bad; i++) {
				uint32_t len = (round & 1) ? 64 : 48;

				if (memcmp(dst + i * 64, src + i * 64, len) != 0) {
					CHECK(0, "round %d: WRITE %u not visible when the CQE was", round, i);
					bad = 1;
				}
			}
			CHECK(memcmp(dst + 60000, src + 60000, 8) == 0, "signaled WRITE data missing");
			CHECK(mx_cqe_sop(cqe) == MX_OPCODE_RDMA_WRITE, "sop %u", mx_cqe_sop(cqe));
		}
		t_expect_no_cqe(&cq, 3000);
	}

	/* CE = 1 (CQE on first error only): no CQE on success. */
	{
		uint16_t c = qp.pi, last;
		uint8_t v = 0x5a;

		mx_set_ctrl_seg(t_wqe_byte(&qp, c, 0), c, MX_OPCODE_RDMA_WRITE, 0, qp.v.qpn, 0x04,
				(uint8_t)mx_ds_inline_write(1), 0, 0);
		mx_set_raddr_seg(t_wqe_byte(&qp, c, 16), (uint64_t)(uintptr_t)dst, dst_key);
		mx_set_inline_hdr(t_wqe_byte(&qp, c, 32), 1);
		t_wqe_copy(&qp, c, 36, &v, 1);
		qp.pi = (uint16_t)(c + 1);
		last = t_post_nop(&qp, 1, 1);
		t_ring(&qp);
		t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, cqe);
		CHECK(dst[0] == 0x5a, "CE=1 WRITE did not land");
		t_expect_no_cqe(&cq, 2000);
	}

	/* WQEs posted before RTS wait (in INIT and RTR), then run in order. */
	{
		struct t_qp q2;
		uint16_t c1, c2;
		uint64_t v1 = 0x1111, v2 = 0x2222;

		t_qp_create(pd, &cq, 4, 16, &q2);
		OK(marrow_emu_qp_modify(q2.qp, MARROW_QPS_INIT, 0));
		c1 = t_post_inline(&q2, (uint64_t)(uintptr_t)(dst + 100), dst_key, &v1, 8, 1);
		t_ring(&q2);
		t_expect_no_cqe(&cq, 3000);
		OK(marrow_emu_qp_modify(q2.qp, MARROW_QPS_RTR, q2.v.qpn));
		c2 = t_post_inline(&q2, (uint64_t)(uintptr_t)(dst + 100), dst_key, &v2, 8, 1);
		t_ring(&q2);
		t_expect_no_cqe(&cq, 3000);
		CHECK(memcmp(dst + 100, &v1, 8) != 0, "WRITE executed before RTS");
		OK(marrow_emu_qp_modify(q2.qp, MARROW_QPS_RTS, 0));
		t_expect_cqe(&cq, MX_CQE_REQ, 0, q2.v.qpn, c1, NULL);
		t_expect_cqe(&cq, MX_CQE_REQ, 0, q2.v.qpn, c2, NULL);
		CHECK(memcmp(dst + 100, &v2, 8) == 0, "pre-RTS WRITEs not executed in order");
		OK(marrow_emu_qp_destroy(q2.qp));
	}

	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_mr_dereg(src_mr));
	OK(marrow_emu_mr_dereg(dst_mr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(src);
	free(dst);
	return t_finish("test_softnic_unsignaled");
}
