/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Doorbell test vectors: the sequences real producers use, each ending as
 * a ConnectX would end it (docs/design/softnic-fidelity.md, "Doorbells").
 *  - rdma-core: WQE, DBR, store barrier, 8-byte BlueFlame write of the last
 *    WQE's ctrl segment (inclusive index, real opcode and ds), halves
 *    alternating;
 *  - NVSHMEM IBGDA: fence, DBR, fence, doorbell (exclusive index, opcode 0,
 *    ds 0);
 *  - DOCA GPU_SM_DB: doorbell first ("early"), DBR, the same doorbell again;
 *  - a DBR-less QP: doorbell only;
 *  - the same value stored twice: two events, executed once;
 *  - a doorbell naming another QPN: dropped and counted;
 *  - two QPs on one UAR page, incl. a doorbell lost to a collision and
 *    recovered from the DBR;
 *  - doorbells in RESET (dropped) and in RTR (run once the QP is in RTS);
 *  - a doorbell behind what already ran (stale, ignored).
 */
#include "emu_test_util.h"

struct rig {
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *mr;
	uint8_t *dst;
	uint32_t rkey;
	struct t_cq cq;
};

#define DELTA(b, a, n) ((a).v[MARROW_EMU_CTR_##n] - (b).v[MARROW_EMU_CTR_##n])
#define EXPECT_DELTA(b, a, n, want)                                                   \
	CHECK(DELTA(b, a, n) == (uint64_t)(want), "%s: emu_" #n " advanced by %llu, expected %llu", \
	      what, (unsigned long long)DELTA(b, a, n), (unsigned long long)(want))

static const char *what = "";

static uint64_t dst_addr(struct rig *r, uint32_t off)
{
	return (uint64_t)(uintptr_t)(r->dst + off);
}

/* One signaled 8-byte inline WRITE of v to dst + off; returns its index. */
static uint16_t put8(struct rig *r, struct t_qp *q, uint32_t off, uint64_t v)
{
	return t_post_inline(q, dst_addr(r, off), r->rkey, &v, 8, 1);
}

static uint64_t get8(struct rig *r, uint32_t off)
{
	uint64_t v;

	memcpy(&v, r->dst + off, 8);
	return v;
}

static void store_dbr(struct t_qp *q, uint16_t pi)
{
	__atomic_store_n(&q->v.dbrec[MX_DBR_SND], mx_dbrec_send_value(pi), __ATOMIC_RELAXED);
}

static void store_db(void *uar, uint64_t db)
{
	__atomic_store_n((uint64_t *)uar, db, __ATOMIC_RELAXED);
}

static void rdma_core_sequence(struct rig *r, struct t_qp *q)
{
	struct t_ctrs b, a;
	uint32_t bf_offset = 0;

	what = "rdma-core (DBR, barrier, BlueFlame ctrl write, halves alternate)";
	b = t_counters(r->dev);
	for (int i = 0; i < 4; i++) {
		uint16_t c = put8(r, q, 8 * i, 0x1000 + i);
		uint64_t ctrl8;

		/* rdma-core: udma_to_device_barrier, DBR, mmio barrier, then
		 * the first 8 bytes of the last WQE's ctrl segment. */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		store_dbr(q, q->pi);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		memcpy(&ctrl8, t_wqe_byte(q, c, 0), 8);
		CHECK(mx_doorbell_idx(ctrl8) == c && mx_doorbell_ds(ctrl8) == mx_ds_inline_write(8),
		      "ctrl bytes are not an inclusive doorbell");
		store_db((uint8_t *)q->v.uar + bf_offset, ctrl8);
		bf_offset ^= 256;
		t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q->v.qpn, c, NULL);
		CHECK(get8(r, 8 * i) == 0x1000u + i, "%s: WRITE %d did not land", what, i);
	}
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_observed, 4);
	EXPECT_DELTA(b, a, wqe_rdma_write, 4);
	EXPECT_DELTA(b, a, doorbells_dropped, 0);
}

static void nvshmem_sequence(struct rig *r, struct t_qp *q)
{
	struct t_ctrs b, a;
	uint16_t c;

	what = "NVSHMEM IBGDA (fence, DBR, fence, doorbell)";
	b = t_counters(r->dev);
	put8(r, q, 64, 0x2001);
	c = put8(r, q, 72, 0x2002);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	store_dbr(q, q->pi);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	store_db(q->v.uar, mx_doorbell_value(q->pi, 0, q->v.qpn, 0));
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q->v.qpn, (uint16_t)(c - 1), NULL);
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q->v.qpn, c, NULL);
	CHECK(get8(r, 64) == 0x2001 && get8(r, 72) == 0x2002, "%s: data", what);
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_observed, 1);
	EXPECT_DELTA(b, a, wqe_rdma_write, 2);
}

static void doca_sequence(struct rig *r, struct t_qp *q)
{
	struct t_ctrs b, a;
	uint64_t db;
	uint16_t c;

	what = "DOCA GPU_SM_DB (early doorbell, DBR, the same doorbell again)";
	b = t_counters(r->dev);
	c = put8(r, q, 128, 0x3001);
	db = mx_doorbell_value(q->pi, 0, q->v.qpn, 0);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	store_db(q->v.uar, db);
	/* A ConnectX starts on the early doorbell: the CQE comes before the
	 * DBR says anything. */
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q->v.qpn, c, NULL);
	CHECK(get8(r, 128) == 0x3001, "%s: data", what);
	store_dbr(q, q->pi);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	store_db(q->v.uar, db);
	t_expect_no_cqe(&r->cq, 5000);   /* the second ring names nothing new */
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_observed, 2);
	EXPECT_DELTA(b, a, wqe_rdma_write, 1);
	EXPECT_DELTA(b, a, cqe_req, 1);
}

static void no_dbr_sequence(struct rig *r, struct t_qp *q)
{
	struct t_ctrs b, a;
	uint16_t dbr_before = (uint16_t)mx_be32toh(q->v.dbrec[MX_DBR_SND]);
	uint16_t c;

	what = "DBR-less doorbell";
	b = t_counters(r->dev);
	c = put8(r, q, 192, 0x4001);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	store_db(q->v.uar, mx_doorbell_value(q->pi, 0, q->v.qpn, 0));
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q->v.qpn, c, NULL);
	CHECK(get8(r, 192) == 0x4001, "%s: data", what);
	CHECK((uint16_t)mx_be32toh(q->v.dbrec[MX_DBR_SND]) == dbr_before, "%s: DBR moved", what);
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, wqe_rdma_write, 1);
	/* Bring the DBR level for the producers that follow. */
	store_dbr(q, q->pi);
}

static void same_value_twice(struct rig *r, struct t_qp *q)
{
	struct t_ctrs b, a;
	uint64_t db;
	uint16_t c;

	what = "the same doorbell stored twice";
	b = t_counters(r->dev);
	c = put8(r, q, 256, 0x5001);
	t_ring(q);
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q->v.qpn, c, NULL);
	db = mx_doorbell_value(q->pi, 0, q->v.qpn, 0);
	store_db(q->v.uar, db);
	t_sleep_us(2000);
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_observed, 2);   /* two stores, two events */
	EXPECT_DELTA(b, a, wqe_rdma_write, 1);       /* executed up to the index once */
	t_expect_no_cqe(&r->cq, 1000);
}

static void wrong_qpn(struct rig *r, struct t_qp *q)
{
	struct t_ctrs b, a;
	uint16_t c;

	what = "a doorbell naming another QPN";
	b = t_counters(r->dev);
	c = put8(r, q, 320, 0x6001);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	store_dbr(q, q->pi);
	store_db(q->v.uar, mx_doorbell_value(q->pi, 0, q->v.qpn ^ 0x5a5a, 0));
	t_expect_no_cqe(&r->cq, 5000);
	CHECK(get8(r, 320) != 0x6001, "%s: the WRITE ran", what);
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_observed, 1);
	EXPECT_DELTA(b, a, doorbells_dropped, 1);
	EXPECT_DELTA(b, a, wqe_rdma_write, 0);
	t_ring(q);   /* the right QPN runs it */
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q->v.qpn, c, NULL);
	CHECK(get8(r, 320) == 0x6001, "%s: data after the right doorbell", what);
}

static void stale_doorbell(struct rig *r, struct t_qp *q)
{
	struct t_ctrs b, a;
	uint16_t c = put8(r, q, 384, 0x7001);

	what = "a doorbell behind what already ran";
	t_ring(q);
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q->v.qpn, c, NULL);
	b = t_counters(r->dev);
	store_db(q->v.uar, mx_doorbell_value((uint16_t)(q->pi - 3), 0, q->v.qpn, 0));
	t_expect_no_cqe(&r->cq, 3000);
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_stale, 1);
	EXPECT_DELTA(b, a, wqe_rdma_write, 0);
	CHECK(t_qp_state(q) == MARROW_QPS_RTS, "%s: QP left RTS", what);
}

static void shared_page(struct rig *r, struct t_qp *qa)
{
	struct t_qp qb;
	struct t_ctrs b, a;
	void *uar = NULL;
	uint16_t ca, cb;

	what = "two QPs on one UAR page";
	t_qp_create(r->pd, &r->cq, 5, 64, &qb);
	FAILS(MARROW_EINVAL, marrow_emu_qp_share_uar(qa->qp, qb.qp, &uar));   /* qa is not in RESET */
	OK(marrow_emu_qp_share_uar(qb.qp, qa->qp, &uar));
	CHECK(uar == qa->v.uar, "shared page %p, expected %p", uar, qa->v.uar);
	qb.v.uar = uar;
	t_connect(&qb, qb.v.qpn);

	b = t_counters(r->dev);
	ca = put8(r, qa, 512, 0x8001);
	cb = put8(r, &qb, 520, 0x8002);
	t_ring(qa);
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, qa->v.qpn, ca, NULL);
	t_ring(&qb);   /* same address, QPN of qb */
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, qb.v.qpn, cb, NULL);
	CHECK(get8(r, 512) == 0x8001 && get8(r, 520) == 0x8002, "%s: data", what);
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_observed, 2);
	EXPECT_DELTA(b, a, doorbells_dropped, 0);

	/* A collision: qa's doorbell is overwritten by qb's before the engine
	 * looks (engine parked). qb runs at once; qa is served by recovery,
	 * which reads its DBR on a later sweep. */
	what = "a doorbell lost to a collision on a shared page";
	b = t_counters(r->dev);
	ca = put8(r, qa, 528, 0x8003);
	cb = put8(r, &qb, 536, 0x8004);
	OK(marrow_emu_engine_pause(r->dev, 1));
	t_ring(qa);
	t_ring(&qb);
	OK(marrow_emu_engine_pause(r->dev, 0));
	{
		uint8_t c1[64], c2[64];

		CHECK(t_poll(&r->cq, c1, 2000000000ull) && t_poll(&r->cq, c2, 2000000000ull),
		      "%s: fewer than two CQEs", what);
		CHECK(mx_cqe_qpn(c1) == qb.v.qpn && mx_cqe_wqe_counter(c1) == cb,
		      "%s: first CQE QP 0x%x #%u, expected qb's", what, mx_cqe_qpn(c1),
		      mx_cqe_wqe_counter(c1));
		CHECK(mx_cqe_qpn(c2) == qa->v.qpn && mx_cqe_wqe_counter(c2) == ca,
		      "%s: second CQE QP 0x%x #%u, expected qa's", what, mx_cqe_qpn(c2),
		      mx_cqe_wqe_counter(c2));
	}
	CHECK(get8(r, 528) == 0x8003 && get8(r, 536) == 0x8004, "%s: data", what);
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_observed, 1);
	EXPECT_DELTA(b, a, doorbell_recoveries, 1);

	/* A QP on its own page is never served from the DBR alone. */
	OK(marrow_emu_qp_destroy(qb.qp));
}

static void before_rts(struct rig *r)
{
	struct t_qp q;
	struct t_ctrs b, a;
	uint16_t c0, c1;

	what = "a doorbell in RESET";
	t_qp_create(r->pd, &r->cq, 5, 64, &q);
	b = t_counters(r->dev);
	c0 = put8(r, &q, 640, 0x9001);
	t_ring(&q);
	t_sleep_us(3000);
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_dropped, 1);
	t_connect(&q, q.v.qpn);
	t_expect_no_cqe(&r->cq, 5000);   /* RESET forgot it: nothing runs */
	CHECK(get8(r, 640) != 0x9001, "%s: the WRITE ran", what);

	/* RTR: the doorbell is remembered; the WQEs run once in RTS. */
	what = "a doorbell in RTR";
	OK(marrow_emu_qp_modify(q.qp, MARROW_QPS_RESET, 0));
	q.pi = 0;
	OK(marrow_emu_qp_modify(q.qp, MARROW_QPS_INIT, 0));
	OK(marrow_emu_qp_modify(q.qp, MARROW_QPS_RTR, q.v.qpn));
	b = t_counters(r->dev);
	c0 = put8(r, &q, 648, 0x9002);
	c1 = put8(r, &q, 656, 0x9003);
	t_ring(&q);
	t_expect_no_cqe(&r->cq, 5000);
	CHECK(get8(r, 648) != 0x9002, "%s: ran in RTR", what);
	OK(marrow_emu_qp_modify(q.qp, MARROW_QPS_RTS, 0));
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q.v.qpn, c0, NULL);
	t_expect_cqe(&r->cq, MX_CQE_REQ, 0, q.v.qpn, c1, NULL);
	CHECK(get8(r, 648) == 0x9002 && get8(r, 656) == 0x9003, "%s: data after RTS", what);
	a = t_counters(r->dev);
	EXPECT_DELTA(b, a, doorbells_observed, 1);
	EXPECT_DELTA(b, a, doorbells_dropped, 0);
	OK(marrow_emu_qp_destroy(q.qp));
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
	t_cq_create(r.dev, 6, 0, &r.cq);
	t_qp_create(r.pd, &r.cq, 5, 64, &q);
	t_connect(&q, q.v.qpn);

	rdma_core_sequence(&r, &q);
	nvshmem_sequence(&r, &q);
	doca_sequence(&r, &q);
	no_dbr_sequence(&r, &q);
	same_value_twice(&r, &q);
	wrong_qpn(&r, &q);
	stale_doorbell(&r, &q);
	shared_page(&r, &q);
	before_rts(&r);

	OK(marrow_emu_qp_destroy(q.qp));
	OK(marrow_emu_cq_destroy(r.cq.cq));
	OK(marrow_emu_mr_dereg(r.mr));
	OK(marrow_emu_pd_free(r.pd));
	OK(marrow_emu_device_close(r.dev));
	free(r.dst);
	return t_finish("test_softnic_doorbell");
}
