/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Errors timed from the QP's attributes (docs/design/softnic-fidelity.md,
 * "Error timing"):
 *  - WRITE_IMM without a receive WQE: RNR NAK, retried every min_rnr_timer,
 *    rnr_retry times, then RNR_RETRY_EXC; rnr_retry 7 waits forever;
 *  - a peer that does not answer: TRANSPORT_RETRY_EXC after
 *    (retry_cnt + 1) x 4.096 us x 2^timeout; a peer that comes up before
 *    the retries run out is served at the next retry;
 *  - the device time divisor shortens every timer;
 *  - CQE srqn_uidx (the QP's user index) and timestamp.
 */
#include "emu_test_util.h"

struct rig {
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *mr;
	uint8_t *dst;
	uint32_t rkey;
	struct t_cq acq, bcq, brcq;
};

static double ms_since(uint64_t t0)
{
	return (double)(t_now_ns() - t0) / 1e6;
}

/* A requester qa and a responder qb with an 8-entry RQ, connected. */
static void pair(struct rig *r, struct t_qp *qa, struct t_qp *qb)
{
	t_qp_create(r->pd, &r->acq, 5, 64, qa);
	t_qp_create_ex(r->pd, &r->bcq, &r->brcq, 5, 3, 64,
		       MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, qb);
	t_connect(qa, qb->v.qpn);
	t_connect(qb, qa->v.qpn);
}

static uint16_t write_imm(struct rig *r, struct t_qp *q)
{
	static const uint8_t src[16] = { 7, 7, 7 };

	return t_post_inline_op(q, MX_OPCODE_RDMA_WRITE_IMM, (uint64_t)(uintptr_t)r->dst, r->rkey, src,
				16, 1, mx_htobe32(0x1234));
}

static void rnr_default(struct rig *r)
{
	struct t_qp qa, qb;
	struct t_ctrs b, a;
	uint64_t t0;
	uint16_t c;
	double ms;

	printf("  RNR with the defaults (rnr_retry 6, min_rnr_timer 12 = 0.64 ms)\n");
	pair(r, &qa, &qb);
	b = t_counters(r->dev);
	t0 = t_now_ns();
	c = write_imm(r, &qa);
	t_ring(&qa);
	t_expect_cqe(&r->acq, MX_CQE_REQ_ERR, MX_SYND_RNR_RETRY_EXC, qa.v.qpn, c, NULL);
	ms = ms_since(t0);
	printf("    RNR_RETRY_EXC after %.2f ms (6 x 0.64 = 3.84 ms)\n", ms);
	CHECK(ms >= 3.84, "RNR_RETRY_EXC after %.2f ms, before 6 RNR timers", ms);
	CHECK(ms < 2000, "RNR_RETRY_EXC after %.2f ms", ms);
	a = t_counters(r->dev);
	CHECK(T_DELTA(b, a, rnr_naks) == 6, "rnr_naks %llu, expected 6",
	      (unsigned long long)T_DELTA(b, a, rnr_naks));
	CHECK(T_DELTA(b, a, synd_rnr_retry_exc) == 1, "synd_rnr_retry_exc");
	CHECK(r->dst[0] == 0, "RNR'd WRITE_IMM placed data");
	CHECK(t_qp_state(&qa) == MARROW_QPS_ERR, "requester not in ERR");
	CHECK(t_qp_state(&qb) == MARROW_QPS_RTS, "responder left RTS (RNR is the requester's error)");
	OK(marrow_emu_qp_destroy(qa.qp));
	OK(marrow_emu_qp_destroy(qb.qp));
}

static void rnr_zero_and_forever(struct rig *r)
{
	struct t_qp qa, qb;
	uint64_t t0;
	uint16_t c;
	uint8_t cqe[64];

	printf("  RNR with rnr_retry 0 (error at the first NAK) and 7 (forever)\n");
	pair(r, &qa, &qb);
	OK(marrow_emu_qp_set_timers(qa.qp, 14, 7, 0, 31));   /* 491 ms timer never runs */
	t0 = t_now_ns();
	c = write_imm(r, &qa);
	t_ring(&qa);
	t_expect_cqe(&r->acq, MX_CQE_REQ_ERR, MX_SYND_RNR_RETRY_EXC, qa.v.qpn, c, NULL);
	CHECK(ms_since(t0) < 400, "rnr_retry 0 waited %.2f ms", ms_since(t0));
	OK(marrow_emu_qp_destroy(qa.qp));
	OK(marrow_emu_qp_destroy(qb.qp));

	pair(r, &qa, &qb);
	OK(marrow_emu_qp_set_timers(qa.qp, 14, 7, 7, 1));   /* retry every 10 us, forever */
	c = write_imm(r, &qa);
	t_ring(&qa);
	t_expect_no_cqe(&r->acq, 40000);
	CHECK(t_qp_state(&qa) == MARROW_QPS_RTS, "rnr_retry 7 gave up");
	t_post_recv(&qb, 1);
	t_expect_cqe(&r->brcq, MX_CQE_RESP_WR_IMM, 0, qb.v.qpn, 0, cqe);
	t_expect_cqe(&r->acq, MX_CQE_REQ, 0, qa.v.qpn, c, NULL);
	CHECK(r->dst[0] == 7, "WRITE_IMM data");
	r->dst[0] = 0;
	OK(marrow_emu_qp_destroy(qa.qp));
	OK(marrow_emu_qp_destroy(qb.qp));
}

static void transport_retry(struct rig *r)
{
	struct t_qp qa, qb;
	struct t_ctrs b, a;
	uint64_t t0;
	uint16_t c;
	double ms;
	uint64_t v = 42;

	printf("  peer destroyed, timeout 12 retry_cnt 2: 3 x 16.8 ms = 50.3 ms\n");
	pair(r, &qa, &qb);
	OK(marrow_emu_qp_set_timers(qa.qp, 12, 2, 6, 12));
	OK(marrow_emu_qp_destroy(qb.qp));
	b = t_counters(r->dev);
	t0 = t_now_ns();
	c = t_post_inline(&qa, (uint64_t)(uintptr_t)r->dst, r->rkey, &v, 8, 0);
	t_ring(&qa);
	t_expect_cqe(&r->acq, MX_CQE_REQ_ERR, MX_SYND_TRANSPORT_RETRY_EXC, qa.v.qpn, c, NULL);
	ms = ms_since(t0);
	printf("    TRANSPORT_RETRY_EXC after %.2f ms\n", ms);
	CHECK(ms >= 50.3, "TRANSPORT_RETRY_EXC after %.2f ms, before 3 ACK timeouts", ms);
	CHECK(ms < 2000, "TRANSPORT_RETRY_EXC after %.2f ms", ms);
	a = t_counters(r->dev);
	CHECK(T_DELTA(b, a, ack_timeouts) == 3, "ack_timeouts %llu, expected 3",
	      (unsigned long long)T_DELTA(b, a, ack_timeouts));
	CHECK(T_DELTA(b, a, synd_transport_retry_exc) == 1, "synd_transport_retry_exc");
	OK(marrow_emu_qp_destroy(qa.qp));

	/* A peer that reaches RTR between two retries is served. */
	printf("  peer in INIT, RTR 5 ms later, timeout 14 (67 ms): served at the first retry\n");
	t_qp_create(r->pd, &r->acq, 5, 64, &qa);
	t_qp_create(r->pd, &r->bcq, 5, 64, &qb);
	OK(marrow_emu_qp_modify(qb.qp, MARROW_QPS_INIT, 0));
	t_connect(&qa, qb.v.qpn);
	t0 = t_now_ns();
	c = t_post_inline(&qa, (uint64_t)(uintptr_t)(r->dst + 64), r->rkey, &v, 8, 1);
	t_ring(&qa);
	t_sleep_us(5000);
	OK(marrow_emu_qp_modify(qb.qp, MARROW_QPS_RTR, qa.v.qpn));
	t_expect_cqe(&r->acq, MX_CQE_REQ, 0, qa.v.qpn, c, NULL);
	ms = ms_since(t0);
	printf("    completed after %.2f ms\n", ms);
	CHECK(ms >= 67.1, "completed after %.2f ms, before the first retry", ms);
	CHECK(memcmp(r->dst + 64, &v, 8) == 0, "WRITE data");
	OK(marrow_emu_qp_destroy(qa.qp));
	OK(marrow_emu_qp_destroy(qb.qp));

	/* The default ConnectX timing (timeout 14, retry_cnt 7: 0.54 s),
	 * shortened 1000x by the device time divisor. */
	printf("  defaults with time divisor 1000: 8 x 67.1 us = 0.54 ms\n");
	OK(marrow_emu_device_time_divisor(r->dev, 1000));
	pair(r, &qa, &qb);
	OK(marrow_emu_qp_modify(qb.qp, MARROW_QPS_ERR, 0));
	t0 = t_now_ns();
	c = t_post_inline(&qa, (uint64_t)(uintptr_t)r->dst, r->rkey, &v, 8, 0);
	t_ring(&qa);
	t_expect_cqe(&r->acq, MX_CQE_REQ_ERR, MX_SYND_TRANSPORT_RETRY_EXC, qa.v.qpn, c, NULL);
	ms = ms_since(t0);
	printf("    TRANSPORT_RETRY_EXC after %.3f ms\n", ms);
	CHECK(ms >= 0.536 && ms < 1000, "TRANSPORT_RETRY_EXC after %.3f ms", ms);
	OK(marrow_emu_device_time_divisor(r->dev, 1));
	FAILS(MARROW_EINVAL, marrow_emu_device_time_divisor(r->dev, 0));
	OK(marrow_emu_qp_destroy(qa.qp));
	OK(marrow_emu_qp_destroy(qb.qp));
}

static void cqe_fields(struct rig *r)
{
	struct t_qp q1, q2;
	uint8_t a[64], b[64], c[64];
	uint64_t v = 1, ts_a, ts_b;
	uint32_t u1, u2;

	printf("  CQE srqn_uidx and timestamp\n");
	t_qp_create(r->pd, &r->acq, 5, 64, &q1);
	t_qp_create(r->pd, &r->acq, 5, 64, &q2);
	t_connect(&q1, q1.v.qpn);
	t_connect(&q2, q2.v.qpn);
	t_post_inline(&q1, (uint64_t)(uintptr_t)r->dst, r->rkey, &v, 8, 1);
	t_ring(&q1);
	t_expect_cqe(&r->acq, MX_CQE_REQ, 0, q1.v.qpn, 0, a);
	t_post_inline(&q1, (uint64_t)(uintptr_t)r->dst, r->rkey, &v, 8, 1);
	t_ring(&q1);
	t_expect_cqe(&r->acq, MX_CQE_REQ, 0, q1.v.qpn, 1, b);
	t_post_inline(&q2, (uint64_t)(uintptr_t)r->dst, r->rkey, &v, 8, 1);
	t_ring(&q2);
	t_expect_cqe(&r->acq, MX_CQE_REQ, 0, q2.v.qpn, 0, c);
	u1 = mx_ld_be32(a + MX_CQE_OFF_SRQN_UIDX) & 0xffffff;
	u2 = mx_ld_be32(c + MX_CQE_OFF_SRQN_UIDX) & 0xffffff;
	CHECK(u1 == (mx_ld_be32(b + MX_CQE_OFF_SRQN_UIDX) & 0xffffff), "uidx differs within one QP");
	CHECK(u1 != u2, "two QPs share user index %u", u1);
	ts_a = ((uint64_t)mx_ld_be32(a + MX_CQE_OFF_TIMESTAMP) << 32) | mx_ld_be32(a + MX_CQE_OFF_TIMESTAMP + 4);
	ts_b = ((uint64_t)mx_ld_be32(b + MX_CQE_OFF_TIMESTAMP) << 32) | mx_ld_be32(b + MX_CQE_OFF_TIMESTAMP + 4);
	CHECK(ts_a != 0 && ts_b > ts_a, "timestamps %llu then %llu", (unsigned long long)ts_a,
	      (unsigned long long)ts_b);
	OK(marrow_emu_qp_destroy(q1.qp));
	OK(marrow_emu_qp_destroy(q2.qp));
}

int main(void)
{
	struct rig r;
	struct t_qp q;

	memset(&r, 0, sizeof(r));
	r.dev = t_open(MARROW_EMU_POLL_IDLE, 2);
	OK(marrow_emu_pd_alloc(r.dev, &r.pd));
	r.dst = t_alloc(4096, 0);
	OK(marrow_emu_mr_reg(r.pd, r.dst, 4096, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
			     &r.mr, NULL, &r.rkey));
	t_cq_create(r.dev, 6, 0, &r.acq);
	t_cq_create(r.dev, 6, 0, &r.bcq);
	t_cq_create(r.dev, 4, 0, &r.brcq);

	t_qp_create(r.pd, &r.acq, 5, 64, &q);
	FAILS(MARROW_EINVAL, marrow_emu_qp_set_timers(q.qp, 32, 7, 6, 12));
	FAILS(MARROW_EINVAL, marrow_emu_qp_set_timers(q.qp, 14, 8, 6, 12));
	FAILS(MARROW_EINVAL, marrow_emu_qp_set_timers(q.qp, 14, 7, 8, 12));
	FAILS(MARROW_EINVAL, marrow_emu_qp_set_timers(q.qp, 14, 7, 6, 32));
	FAILS(MARROW_EINVAL, marrow_emu_qp_set_timers(NULL, 14, 7, 6, 12));
	OK(marrow_emu_qp_destroy(q.qp));

	rnr_default(&r);
	rnr_zero_and_forever(&r);
	transport_retry(&r);
	cqe_fields(&r);

	OK(marrow_emu_cq_destroy(r.acq.cq));
	OK(marrow_emu_cq_destroy(r.bcq.cq));
	OK(marrow_emu_cq_destroy(r.brcq.cq));
	OK(marrow_emu_mr_dereg(r.mr));
	OK(marrow_emu_pd_free(r.pd));
	OK(marrow_emu_device_close(r.dev));
	free(r.dst);
	return t_finish("test_softnic_timers");
}
