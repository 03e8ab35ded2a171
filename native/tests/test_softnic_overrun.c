/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * CQ overrun: with oi = 0 a CQE that would overwrite an entry the consumer
 * has not released (producer - dbrec consumer index >= N) puts the CQ in
 * error, is counted once, and nothing more is written to that CQ. With
 * oi = 1 the same traffic simply laps the ring.
 */
#include "emu_test_util.h"

static int wait_error(struct t_cq *c)
{
	int err = 0;

	for (int i = 0; i < 2000 && !err; i++) {
		OK(marrow_emu_cq_status(c->cq, &err));
		if (!err)
			t_sleep_us(100);
	}
	return err;
}

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_pd *pd;
	struct t_ctrs c0, c1;

	OK(marrow_emu_pd_alloc(dev, &pd));

	/* oi = 0, N = 4, nobody advances the consumer index. */
	{
		struct t_cq cq;
		struct t_qp qp;
		uint8_t snap[4 * 64];
		int err = -1;

		t_cq_create(dev, 2, 0, &cq);
		t_qp_create(pd, &cq, 4, 0, &qp);
		t_connect(&qp, qp.v.qpn);
		c0 = t_counters(dev);
		for (int i = 0; i < 4; i++)
			t_post_nop(&qp, 1, 1);
		t_ring(&qp);
		/* The four CQEs that fit are all valid (lap 0). */
		for (uint32_t i = 0; i < 4; i++) {
			const uint8_t *e = (const uint8_t *)cq.v.buf + i * 64;
			uint64_t t0 = t_now_ns();

			while (!mx_cqe_is_valid(e, i, 2) && t_now_ns() - t0 < 2000000000ull)
				;
			CHECK(mx_cqe_is_valid(e, i, 2) && mx_cqe_wqe_counter(e) == i, "CQE %u missing", i);
		}
		OK(marrow_emu_cq_status(cq.cq, &err));
		CHECK(err == 0, "CQ in error with exactly N CQEs outstanding");
		memcpy(snap, cq.v.buf, sizeof(snap));
		/* Two more signaled WQEs: the first overruns. */
		t_post_nop(&qp, 1, 1);
		t_post_nop(&qp, 1, 1);
		t_ring(&qp);
		CHECK(wait_error(&cq) == 1, "no CQ error after an overrun with oi = 0");
		t_sleep_us(2000);
		CHECK(memcmp(snap, cq.v.buf, sizeof(snap)) == 0, "CQEs written after the overrun");
		c1 = t_counters_settled(dev);
		CHECK_DELTA(c0, c1, cq_overruns, 1);
		CHECK_DELTA(c0, c1, cqe_req, 4);
		CHECK_DELTA(c0, c1, wqe_nop, 6);
		/* Releasing entries does not revive an errored CQ. */
		__atomic_store_n(&cq.v.dbrec[0], mx_htobe32(6), __ATOMIC_RELEASE);
		t_post_nop(&qp, 1, 1);
		t_ring(&qp);
		t_sleep_us(2000);
		CHECK(memcmp(snap, cq.v.buf, sizeof(snap)) == 0, "errored CQ written again");
		CHECK(t_qp_state(&qp) == MARROW_QPS_RTS, "QP state %d after its CQ overran", t_qp_state(&qp));
		OK(marrow_emu_qp_destroy(qp.qp));
		OK(marrow_emu_cq_destroy(cq.cq));
	}

	/* oi = 0 with a consumer one entry short of the limit: no error. */
	{
		struct t_cq cq;
		struct t_qp qp;
		uint8_t cqe[64];
		int err = -1;

		t_cq_create(dev, 2, 0, &cq);
		t_qp_create(pd, &cq, 4, 0, &qp);
		t_connect(&qp, qp.v.qpn);
		for (int round = 0; round < 20; round++) {
			for (int i = 0; i < 4; i++)
				t_post_nop(&qp, 1, 1);
			t_ring(&qp);
			for (int i = 0; i < 4; i++)
				CHECK(t_poll(&cq, cqe, 2000000000ull), "round %d CQE %d", round, i);
		}
		OK(marrow_emu_cq_status(cq.cq, &err));
		CHECK(err == 0, "CQ error although the consumer kept up");
		OK(marrow_emu_qp_destroy(qp.qp));
		OK(marrow_emu_cq_destroy(cq.cq));
	}

	/* oi = 1: laps without complaint; the owner bit tells laps apart. */
	{
		struct t_cq cq;
		struct t_qp qp;
		int err = -1;
		uint16_t last = 0;

		t_cq_create(dev, 2, MARROW_EMU_CQ_OVERRUN_IGNORE, &cq);
		t_qp_create(pd, &cq, 4, 0, &qp);
		t_connect(&qp, qp.v.qpn);
		for (int i = 0; i < 10; i++)
			last = t_post_nop(&qp, 1, 1);
		t_ring(&qp);
		/* CQE 9 sits in slot 1 with owner (9 >> 2) & 1 = 0. */
		const uint8_t *e = (const uint8_t *)cq.v.buf + 64;
		uint64_t t0 = t_now_ns();

		while (!(mx_cqe_wqe_counter(e) == last && mx_cqe_is_valid(e, 9, 2)) &&
		       t_now_ns() - t0 < 2000000000ull)
			;
		CHECK(mx_cqe_wqe_counter(e) == last && mx_cqe_is_valid(e, 9, 2), "slot 1: counter %u owner %u",
		      mx_cqe_wqe_counter(e), mx_cqe_owner(e));
		OK(marrow_emu_cq_status(cq.cq, &err));
		CHECK(err == 0, "CQ with oi = 1 reported an error");
		OK(marrow_emu_qp_destroy(qp.qp));
		OK(marrow_emu_cq_destroy(cq.cq));
	}

	FAILS(MARROW_EINVAL, marrow_emu_cq_status(NULL, NULL));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));
	return t_finish("test_softnic_overrun");
}
