/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Collapsed CQ (cc = 1, oi = 1, as NVSHMEM creates them): every CQE goes to
 * slot 0, the other slots keep their initial 0xF0, and an NVSHMEM-style
 * poller that reads only slot 0's opcode and wqe_counter sees completions
 * in order. The owner bit of slot 0 is (p >> log_n) & 1 for the p-th CQE
 * (the emulator's documented choice). A collapsed CQ without oi overruns
 * like a normal one when nobody advances the consumer index.
 */
#include "emu_test_util.h"

static uint16_t slot0_counter(const struct t_cq *c)
{
	return mx_cqe_wqe_counter(c->v.buf);
}

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *mr;
	uint32_t key;
	struct t_cq cq;
	struct t_qp qp;
	uint8_t *buf = t_alloc(4096, 0);
	const uint32_t log_n = 4;

	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, buf, 4096, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &mr,
			     &key, NULL));
	t_cq_create(dev, log_n, MARROW_EMU_CQ_COLLAPSED | MARROW_EMU_CQ_OVERRUN_IGNORE, &cq);
	CHECK(cq.v.flags == (MARROW_EMU_CQ_COLLAPSED | MARROW_EMU_CQ_OVERRUN_IGNORE), "view flags 0x%x",
	      cq.v.flags);
	t_qp_create(pd, &cq, 8, 32, &qp);
	t_connect(&qp, qp.v.qpn);

	/* One signaled WRITE at a time: slot 0 names each in turn. */
	for (uint32_t p = 0; p < 50; p++) {
		uint64_t v = 0x1000 + p, t0 = t_now_ns();
		uint16_t c = t_post_inline(&qp, (uint64_t)(uintptr_t)buf, key, &v, 8, 1);
		const uint8_t *e = cq.v.buf;

		t_ring(&qp);
		while (mx_cqe_opcode(e) == MX_CQE_INVALID || slot0_counter(&cq) != c) {
			if (t_now_ns() - t0 > 2000000000ull)
				break;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		CHECK(mx_cqe_opcode(e) == MX_CQE_REQ && slot0_counter(&cq) == c,
		      "CQE %u: opcode %u counter %u, expected REQ %u", p, mx_cqe_opcode(e),
		      slot0_counter(&cq), c);
		CHECK(mx_cqe_owner(e) == ((p >> log_n) & 1), "CQE %u: owner %u, expected %u", p,
		      mx_cqe_owner(e), (p >> log_n) & 1);
		CHECK(mx_cqe_qpn(e) == qp.v.qpn, "qpn 0x%x", mx_cqe_qpn(e));
		CHECK(memcmp(buf, &v, 8) == 0, "CQE %u visible before its data", p);
	}
	for (uint32_t i = 1; i < cq.v.cqe_cnt; i++) {
		const uint8_t *e = (const uint8_t *)cq.v.buf + (size_t)i * 64;
		int zero = 1;

		for (int b = 0; b < 63; b++)
			zero &= e[b] == 0;
		CHECK(e[63] == MX_CQE_OP_OWN_INIT && zero, "slot %u of a collapsed CQ was written", i);
	}

	/* A batch of 40 signaled NOPs: the poller only needs the last one;
	 * wqe_counter never moves backwards. */
	{
		uint16_t first = qp.pi, last = 0, seen = slot0_counter(&cq);
		uint64_t t0 = t_now_ns();
		int backwards = 0;

		for (int i = 0; i < 40; i++)
			last = t_post_nop(&qp, 2, 1);
		t_ring(&qp);
		while (slot0_counter(&cq) != last && t_now_ns() - t0 < 2000000000ull) {
			uint16_t now = slot0_counter(&cq);

			if (now != seen && (uint16_t)(now - first) > (uint16_t)(last - first))
				backwards = 1;
			seen = now;
		}
		CHECK(slot0_counter(&cq) == last, "batch: slot 0 counter %u, expected %u",
		      slot0_counter(&cq), last);
		CHECK(!backwards, "slot 0 showed a counter outside the batch");
	}

	/* Error CQEs land in slot 0 too (NVSHMEM treats them as fatal). */
	{
		uint16_t c = t_post_inline(&qp, (uint64_t)(uintptr_t)buf, key ^ 1, buf, 8, 0);
		uint64_t t0 = t_now_ns();

		t_ring(&qp);
		while (!(mx_cqe_opcode(cq.v.buf) == MX_CQE_REQ_ERR && slot0_counter(&cq) == c) &&
		       t_now_ns() - t0 < 2000000000ull)
			;
		CHECK(mx_cqe_opcode(cq.v.buf) == MX_CQE_REQ_ERR &&
		      mx_cqe_syndrome(cq.v.buf) == MX_SYND_REMOTE_ACCESS,
		      "slot 0: opcode %u syndrome 0x%02x", mx_cqe_opcode(cq.v.buf),
		      mx_cqe_syndrome(cq.v.buf));
	}
	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));

	/* Collapsed without oi: the consumer index stays 0, so the 5th CQE of
	 * a 4-entry CQ is an overrun. */
	{
		struct t_cq cc;
		struct t_qp q;
		int err = 0;
		uint16_t last = 0;

		t_cq_create(dev, 2, MARROW_EMU_CQ_COLLAPSED, &cc);
		t_qp_create(pd, &cc, 4, 0, &q);
		t_connect(&q, q.v.qpn);
		for (int i = 0; i < 6; i++) {
			uint16_t c = t_post_nop(&q, 1, 1);
			uint64_t t0 = t_now_ns();

			t_ring(&q);
			if (i < 4) {
				last = c;
				while (slot0_counter(&cc) != c && t_now_ns() - t0 < 2000000000ull)
					;
			}
		}
		for (int i = 0; i < 2000 && !err; i++) {
			OK(marrow_emu_cq_status(cc.cq, &err));
			t_sleep_us(100);
		}
		CHECK(err == 1, "collapsed CQ without oi did not overrun");
		CHECK(slot0_counter(&cc) == last, "slot 0 changed after the overrun (%u, last good %u)",
		      slot0_counter(&cc), last);
		OK(marrow_emu_qp_destroy(q.qp));
		OK(marrow_emu_cq_destroy(cc.cq));
	}

	OK(marrow_emu_mr_dereg(mr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	free(buf);
	return t_finish("test_softnic_collapsed");
}
