/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Every error syndrome the emulator reports, each followed by the flush
 * cascade (later WQEs complete with WR_FLUSH in order, the QP sits in ERR),
 * with guard bytes around every MR that must never change: a failing WQE
 * writes nothing and no byte outside an MR is ever written.
 */
#include "emu_test_util.h"

#define GUARD 0xA5
#define GLEN 16384

struct ctx {
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd, *pdb;
	struct t_cq cq;
	struct t_qp qp;           /* loopback, max_inline 64 */
	uint8_t *g;               /* guard area holding the destination MRs */
	uint8_t *s;               /* source area */
	uint8_t *dst;             /* g + 4096, 1024 bytes, REMOTE_WRITE */
	uint8_t *dst_ro;          /* g + 8192, 1024 bytes, no REMOTE_WRITE */
	uint8_t *src;             /* s + 4096, 1024 bytes */
	uint32_t dst_key, dst_ro_key, dstb_key, src_key, srcb_key, stale_key, huge_key;
};

typedef uint16_t (*bad_poster)(struct ctx *x, struct t_qp *q);

static uint64_t a(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static uint16_t sge1(struct t_qp *q, uint64_t raddr, uint32_t rkey, uint64_t laddr, uint32_t len,
		     uint32_t lkey)
{
	struct t_sge sg = { laddr, len, lkey };

	return t_post_sge(q, raddr, rkey, &sg, 1, 0);
}

/* ---- bad WQEs: LOCAL_PROT ---- */
static uint16_t bad_lkey(struct ctx *x, struct t_qp *q)
{
	return sge1(q, a(x->dst + 100), x->dst_key, a(x->src), 8, (200u << 8) | 1);
}
static uint16_t bad_lkey_far(struct ctx *x, struct t_qp *q)
{
	return sge1(q, a(x->dst + 100), x->dst_key, a(x->src), 8, 0xfffff001u);
}
static uint16_t bad_lkey_invalid(struct ctx *x, struct t_qp *q)
{
	return sge1(q, a(x->dst + 100), x->dst_key, a(x->src), 8, MX_INVALID_LKEY);
}
static uint16_t bad_lkey_variant(struct ctx *x, struct t_qp *q)
{
	return sge1(q, a(x->dst + 100), x->dst_key, a(x->src), 8, x->src_key ^ 0x80);
}
static uint16_t lkey_range_end(struct ctx *x, struct t_qp *q)
{
	return sge1(q, a(x->dst + 100), x->dst_key, a(x->src + 1000), 64, x->src_key);
}
static uint16_t lkey_range_start(struct ctx *x, struct t_qp *q)
{
	return sge1(q, a(x->dst + 100), x->dst_key, a(x->src - 1), 8, x->src_key);
}
static uint16_t lkey_other_pd(struct ctx *x, struct t_qp *q)
{
	return sge1(q, a(x->dst + 100), x->dst_key, a(x->s + 8192), 8, x->srcb_key);
}
static uint16_t lkey_stale(struct ctx *x, struct t_qp *q)
{
	return sge1(q, a(x->dst + 100), x->dst_key, a(x->s + 12288), 8, x->stale_key);
}
/* A good SGE followed by a bad one: nothing of the good one may land. */
static uint16_t lkey_second_sge(struct ctx *x, struct t_qp *q)
{
	struct t_sge sg[2] = { { a(x->src), 16, x->src_key }, { a(x->src), 16, 0x4242 } };

	return t_post_sge(q, a(x->dst + 100), x->dst_key, sg, 2, 0);
}

/* ---- REMOTE_ACCESS ---- */
static uint16_t bad_rkey(struct ctx *x, struct t_qp *q)
{
	return t_post_inline(q, a(x->dst + 100), (0x77u << 8) | 3, x->src, 8, 0);
}
static uint16_t rkey_range_end(struct ctx *x, struct t_qp *q)
{
	return t_post_inline(q, a(x->dst + 1024 - 4), x->dst_key, x->src, 8, 0);
}
static uint16_t rkey_range_start(struct ctx *x, struct t_qp *q)
{
	return t_post_inline(q, a(x->dst - 8), x->dst_key, x->src, 8, 0);
}
static uint16_t rkey_range_gather(struct ctx *x, struct t_qp *q)
{
	return sge1(q, a(x->dst + 1000), x->dst_key, a(x->src), 100, x->src_key);
}
static uint16_t rkey_no_remote_write(struct ctx *x, struct t_qp *q)
{
	return t_post_inline(q, a(x->dst_ro), x->dst_ro_key, x->src, 8, 0);
}
static uint16_t rkey_other_pd(struct ctx *x, struct t_qp *q)
{
	return t_post_inline(q, a(x->g + 12288), x->dstb_key, x->src, 8, 0);
}
static uint16_t rkey_stale(struct ctx *x, struct t_qp *q)
{
	return t_post_inline(q, a(x->s + 12288), x->stale_key, x->src, 8, 0);
}

/* ---- LOCAL_QP_OP ---- */
static uint16_t raw_ctrl(struct t_qp *q, uint8_t opcode, uint16_t idx, uint32_t qpn, uint8_t ds,
			 uint32_t bbs)
{
	uint16_t c = q->pi;

	/* mx_set_ctrl_seg refuses ds > 63: store the raw byte like a buggy
	 * producer would (ctrl byte 7 is the ds field). */
	mx_set_ctrl_seg(t_wqe_byte(q, c, 0), idx, opcode, 0, qpn, 0, ds & 0x3f, 0, 0);
	*t_wqe_byte(q, c, 7) = ds;
	q->pi = (uint16_t)(c + bbs);
	return c;
}
static uint16_t ds_zero(struct ctx *x, struct t_qp *q)
{
	return raw_ctrl(q, MX_OPCODE_RDMA_WRITE, q->pi, q->v.qpn, 0, 1);
}
static uint16_t ds_one_write(struct ctx *x, struct t_qp *q)
{
	return raw_ctrl(q, MX_OPCODE_RDMA_WRITE, q->pi, q->v.qpn, 1, 1);
}
/* 988 B inline would need ds 64; a ConnectX reads 6 bits, i.e. ds 0.
 * The engine then skips one WQEBB and parses the next one as a WQE, so
 * this producer advances by one WQEBB to keep the flush sequence known. */
static uint16_t ds_64(struct ctx *x, struct t_qp *q)
{
	return raw_ctrl(q, MX_OPCODE_RDMA_WRITE, q->pi, q->v.qpn, 64, 1);
}
static uint16_t qpn_mismatch(struct ctx *x, struct t_qp *q)
{
	uint16_t c = t_post_inline(q, a(x->dst + 100), x->dst_key, x->src, 8, 0);

	mx_set_ctrl_seg(t_wqe_byte(q, c, 0), c, MX_OPCODE_RDMA_WRITE, 0, q->v.qpn + 1, 0, 3, 0, 0);
	return c;
}
static uint16_t idx_mismatch(struct ctx *x, struct t_qp *q)
{
	uint16_t c = t_post_inline(q, a(x->dst + 100), x->dst_key, x->src, 8, 0);

	mx_set_ctrl_seg(t_wqe_byte(q, c, 0), (uint16_t)(c + 5), MX_OPCODE_RDMA_WRITE, 0, q->v.qpn, 0, 3,
			0, 0);
	return c;
}
static uint16_t inline_overruns_ds(struct ctx *x, struct t_qp *q)
{
	uint16_t c = t_post_inline(q, a(x->dst + 100), x->dst_key, x->src, 8, 0);

	mx_set_inline_hdr(t_wqe_byte(q, c, 32), 40);   /* ds 3 holds 12 bytes */
	return c;
}
static uint16_t op_read(struct ctx *x, struct t_qp *q)
{
	uint16_t c = sge1(q, a(x->dst + 100), x->dst_key, a(x->src), 8, x->src_key);

	mx_set_ctrl_seg(t_wqe_byte(q, c, 0), c, MX_OPCODE_RDMA_READ, 0, q->v.qpn, 0, 3, 0, 0);
	return c;
}
static uint16_t op_send(struct ctx *x, struct t_qp *q)
{
	uint16_t c = sge1(q, a(x->dst + 100), x->dst_key, a(x->src), 8, x->src_key);

	mx_set_ctrl_seg(t_wqe_byte(q, c, 0), c, MX_OPCODE_SEND, 0, q->v.qpn, 0, 3, 0, 0);
	return c;
}
static uint16_t op_atomic(struct ctx *x, struct t_qp *q)
{
	return raw_ctrl(q, MX_OPCODE_ATOMIC_FA, q->pi, q->v.qpn, 4, 1);
}

static void check_guards(struct ctx *x, const char *name);

/* ---- LOCAL_LENGTH ---- */
/* max_inline_data is a posting-side limit (rdma-core checks it in software);
 * the NIC executes a well-formed WQE with more inline bytes. */
static void inline_beyond_max_inline(struct ctx *x)
{
	struct t_ctrs before = t_counters(x->dev), after;
	struct t_qp *q = &x->qp;
	uint8_t buf[80];
	uint32_t ds = 0;
	uint16_t c;

	printf("  case %-22s -> success (posting-side check)\n", "inline > max_inline");
	CHECK(mx_ds_inline_write_checked(80, q->v.max_inline_data, &ds) == MX_ERANGE,
	      "posting helper accepted 80 B inline with max_inline_data %u", q->v.max_inline_data);
	for (int i = 0; i < 80; i++)
		buf[i] = (uint8_t)(0x30 + i);
	t_reconnect(q, q->v.qpn);
	c = t_post_inline(q, a(x->dst + 100), x->dst_key, buf, 80, 1);
	t_ring(q);
	t_expect_cqe(&x->cq, MX_CQE_REQ, 0, q->v.qpn, c, NULL);
	CHECK(memcmp(x->dst + 100, buf, 80) == 0, "80 B inline WRITE did not land");
	CHECK(t_qp_state(q) == MARROW_QPS_RTS, "QP left RTS");
	after = t_counters(x->dev);
	CHECK_DELTA(before, after, synd_local_length, 0);
	memset(x->dst + 100, GUARD, 80);
	check_guards(x, "inline > max_inline");
}
static uint16_t message_too_long(struct ctx *x, struct t_qp *q)
{
	/* Two 2^31-1 gathers from a huge (never touched) MR: > 2^31 in total. */
	struct t_sge sg[2] = { { a(x->s), 0x7fffffff, x->huge_key },
			       { a(x->s), 0x7fffffff, x->huge_key } };

	return t_post_sge(q, a(x->dst), x->dst_key, sg, 2, 0);
}

/* ---- REMOTE_INVAL_REQ ---- */
static uint16_t imm_without_rq(struct ctx *x, struct t_qp *q)
{
	return t_post_inline_op(q, MX_OPCODE_RDMA_WRITE_IMM, a(x->dst + 100), x->dst_key, x->src, 8, 0,
				0x1234);
}

static void check_guards(struct ctx *x, const char *name)
{
	for (size_t i = 0; i < GLEN; i++) {
		if (x->g[i] != GUARD) {
			CHECK(0, "%s: byte %zu of the guarded area changed to 0x%02x", name, i, x->g[i]);
			memset(x->g, GUARD, GLEN);
			return;
		}
	}
}

/* Good WRITE, bad WQE, two more good WQEs, ring; then one more after ERR. */
static void run_case(struct ctx *x, struct t_qp *q, const char *name, bad_poster bad, uint8_t synd,
		     int ctr_id)
{
	struct t_ctrs before = t_counters(x->dev), after;
	static const uint8_t pat[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint16_t cb, f1, f2, f3;
	uint8_t cqe[64];
	uint64_t dst_base = a(x->dst);

	printf("  case %-22s -> %s\n", name, synd == MX_SYND_LOCAL_PROT ? "LOCAL_PROT" :
	       synd == MX_SYND_REMOTE_ACCESS ? "REMOTE_ACCESS" : synd == MX_SYND_LOCAL_QP_OP ?
	       "LOCAL_QP_OP" : synd == MX_SYND_LOCAL_LENGTH ? "LOCAL_LENGTH" : "other");
	t_reconnect(q, q->v.qpn);
	/* The WQE before the bad one lands only where its peer allows it. */
	int before_lands = (q->v.qpn == x->qp.v.qpn);

	if (before_lands)
		t_post_inline(q, dst_base, x->dst_key, pat, 8, 0);
	cb = bad(x, q);
	f1 = t_post_inline(q, dst_base + 16, x->dst_key, pat, 8, 1);
	f2 = sge1(q, dst_base + 32, x->dst_key, a(x->src), 16, x->src_key);
	t_ring(q);
	t_expect_cqe(&x->cq, MX_CQE_REQ_ERR, synd, q->v.qpn, cb, cqe);
	t_expect_cqe(&x->cq, MX_CQE_REQ_ERR, MX_SYND_WR_FLUSH, q->v.qpn, f1, NULL);
	t_expect_cqe(&x->cq, MX_CQE_REQ_ERR, MX_SYND_WR_FLUSH, q->v.qpn, f2, NULL);
	CHECK(t_qp_state(q) == MARROW_QPS_ERR, "%s: QP state %d, expected ERR", name, t_qp_state(q));
	/* Posted after the error: flushed too. */
	f3 = t_post_nop(q, 1, 0);
	t_ring(q);
	t_expect_cqe(&x->cq, MX_CQE_REQ_ERR, MX_SYND_WR_FLUSH, q->v.qpn, f3, NULL);
	t_expect_no_cqe(&x->cq, 300);

	after = t_counters(x->dev);
	CHECK_DELTA(before, after, cqe_req_err, 4);
	CHECK_DELTA(before, after, cqe_req, 0);
	CHECK_DELTA(before, after, synd_wr_flush, 3);
	if (ctr_id >= 0)
		CHECK(after.v[ctr_id] - before.v[ctr_id] == 1, "%s: %s advanced by %llu", name,
		      marrow_emu_counter_name(ctr_id), (unsigned long long)(after.v[ctr_id] - before.v[ctr_id]));
	if (before_lands) {
		CHECK(memcmp(x->dst, pat, 8) == 0, "%s: the WRITE before the bad WQE did not land", name);
		memset(x->dst, GUARD, 8);
	}
	check_guards(x, name);
}

static void sq_overflow_case(struct ctx *x)
{
	struct t_ctrs before = t_counters(x->dev), after;
	struct t_qp *q = &x->qp;
	uint16_t f;

	printf("  case %-22s -> LOCAL_QP_OP\n", "sq overflow");
	t_reconnect(q, q->v.qpn);
	uint16_t start = q->pi;

	/* Claim one WQEBB more than the ring holds. */
	q->pi = (uint16_t)(q->pi + q->v.sq_wqe_cnt + 1);
	t_ring(q);
	t_expect_cqe(&x->cq, MX_CQE_REQ_ERR, MX_SYND_LOCAL_QP_OP, q->v.qpn, start, NULL);
	CHECK(t_qp_state(q) == MARROW_QPS_ERR, "overflow: QP not in ERR");
	f = t_post_nop(q, 1, 1);
	t_ring(q);
	t_expect_cqe(&x->cq, MX_CQE_REQ_ERR, MX_SYND_WR_FLUSH, q->v.qpn, f, NULL);
	after = t_counters(x->dev);
	CHECK_DELTA(before, after, sq_overflow, 1);
	CHECK_DELTA(before, after, synd_local_qp_op, 1);
	check_guards(x, "sq overflow");
}

/* modify_qp(ERR) flushes WQEs that were posted but not executed, and the
 * RQ's posted receive WQEs. */
static void user_err_case(struct ctx *x)
{
	struct t_cq rcq;
	struct t_qp q;
	uint16_t c[3];
	struct t_ctrs before, after;

	printf("  case %-22s -> WR_FLUSH\n", "modify to ERR");
	t_cq_create(x->dev, 4, 0, &rcq);
	t_qp_create_ex(x->pd, &x->cq, &rcq, 4, 2, 64,
		       MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &q);
	t_connect(&q, q.v.qpn);
	t_post_recv(&q, 3);
	before = t_counters(x->dev);
	OK(marrow_emu_engine_pause(x->dev, 1));
	for (int i = 0; i < 3; i++)
		c[i] = t_post_inline(&q, a(x->dst + 8 * i), x->dst_key, x->src, 8, i == 1);
	t_ring(&q);
	OK(marrow_emu_qp_modify(q.qp, MARROW_QPS_ERR, 0));
	OK(marrow_emu_engine_pause(x->dev, 0));
	for (int i = 0; i < 3; i++)
		t_expect_cqe(&x->cq, MX_CQE_REQ_ERR, MX_SYND_WR_FLUSH, q.v.qpn, c[i], NULL);
	for (int i = 0; i < 3; i++)
		t_expect_cqe(&rcq, MX_CQE_RESP_ERR, MX_SYND_WR_FLUSH, q.v.qpn, (uint16_t)i, NULL);
	/* A receive posted while in ERR is flushed as well. */
	t_post_recv(&q, 1);
	t_expect_cqe(&rcq, MX_CQE_RESP_ERR, MX_SYND_WR_FLUSH, q.v.qpn, 3, NULL);
	after = t_counters(x->dev);
	CHECK_DELTA(before, after, cqe_req_err, 3);
	CHECK_DELTA(before, after, cqe_resp_err, 4);
	CHECK_DELTA(before, after, synd_wr_flush, 7);
	check_guards(x, "modify to ERR");
	OK(marrow_emu_qp_destroy(q.qp));
	OK(marrow_emu_cq_destroy(rcq.cq));
}

/* Remote access error between two QPs: both go to ERR (IB class C) and the
 * responder's receive WQEs are flushed. */
static void class_c_case(struct ctx *x)
{
	struct t_cq acq, bcq, brcq;
	struct t_qp qa, qb;
	uint16_t c;

	printf("  case %-22s -> REMOTE_ACCESS, peer ERR\n", "two-QP bad rkey");
	t_cq_create(x->dev, 4, 0, &acq);
	t_cq_create(x->dev, 4, 0, &bcq);
	t_cq_create(x->dev, 4, 0, &brcq);
	t_qp_create(x->pd, &acq, 4, 64, &qa);
	t_qp_create_ex(x->pd, &bcq, &brcq, 4, 2, 64,
		       MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &qb);
	t_connect(&qa, qb.v.qpn);
	t_connect(&qb, qa.v.qpn);
	t_post_recv(&qb, 2);
	c = t_post_inline(&qa, a(x->dst), x->dst_key ^ 0x40, x->src, 8, 0);
	t_ring(&qa);
	t_expect_cqe(&acq, MX_CQE_REQ_ERR, MX_SYND_REMOTE_ACCESS, qa.v.qpn, c, NULL);
	t_expect_cqe(&brcq, MX_CQE_RESP_ERR, MX_SYND_WR_FLUSH, qb.v.qpn, 0, NULL);
	t_expect_cqe(&brcq, MX_CQE_RESP_ERR, MX_SYND_WR_FLUSH, qb.v.qpn, 1, NULL);
	CHECK(t_qp_state(&qa) == MARROW_QPS_ERR, "requester not in ERR");
	CHECK(t_qp_state(&qb) == MARROW_QPS_ERR, "responder not in ERR after a remote access error");
	check_guards(x, "class C");

	/* Peer destroyed: TRANSPORT_RETRY_EXC on the requester. */
	printf("  case %-22s -> TRANSPORT_RETRY_EXC\n", "peer destroyed");
	OK(marrow_emu_qp_destroy(qb.qp));
	struct t_cq tcq;
	struct t_qp qt;

	t_cq_create(x->dev, 4, 0, &tcq);
	t_qp_create(x->pd, &tcq, 4, 64, &qt);
	OK(marrow_emu_qp_modify(qa.qp, MARROW_QPS_RESET, 0));
	qa.pi = 0;
	t_connect(&qa, qt.v.qpn);
	OK(marrow_emu_qp_destroy(qt.qp));
	OK(marrow_emu_cq_destroy(tcq.cq));
	c = t_post_inline(&qa, a(x->dst), x->dst_key, x->src, 8, 0);
	t_ring(&qa);
	t_expect_cqe(&acq, MX_CQE_REQ_ERR, MX_SYND_TRANSPORT_RETRY_EXC, qa.v.qpn, c, NULL);
	check_guards(x, "peer destroyed");

	OK(marrow_emu_qp_destroy(qa.qp));
	OK(marrow_emu_cq_destroy(acq.cq));
	OK(marrow_emu_cq_destroy(bcq.cq));
	OK(marrow_emu_cq_destroy(brcq.cq));
}

int main(void)
{
	struct ctx x = { 0 };
	struct marrow_emu_mr *mrs[8];
	struct t_qp noacc;
	uint64_t seed = 3;

	x.dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	x.g = t_alloc(GLEN, GUARD);
	x.s = t_alloc(GLEN, 0);
	for (int i = 0; i < GLEN; i++)
		x.s[i] = (uint8_t)t_rand(&seed);
	x.dst = x.g + 4096;
	x.dst_ro = x.g + 8192;
	x.src = x.s + 4096;
	OK(marrow_emu_pd_alloc(x.dev, &x.pd));
	OK(marrow_emu_pd_alloc(x.dev, &x.pdb));
	OK(marrow_emu_mr_reg(x.pd, x.dst, 1024, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
			     &mrs[0], NULL, &x.dst_key));
	OK(marrow_emu_mr_reg(x.pd, x.dst_ro, 1024, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_READ,
			     &mrs[1], NULL, &x.dst_ro_key));
	OK(marrow_emu_mr_reg(x.pd, x.src, 1024, MARROW_ACCESS_LOCAL_WRITE, &mrs[2], &x.src_key, NULL));
	OK(marrow_emu_mr_reg(x.pdb, x.s + 8192, 1024, MARROW_ACCESS_LOCAL_WRITE, &mrs[3], &x.srcb_key,
			     NULL));
	OK(marrow_emu_mr_reg(x.pdb, x.g + 12288, 1024,
			     MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &mrs[4], NULL,
			     &x.dstb_key));
	/* 3 GiB over a small buffer: registration touches no memory, and
	 * the engine must reject the WQE before touching it either. */
	OK(marrow_emu_mr_reg(x.pd, x.s, 3ull << 30, MARROW_ACCESS_LOCAL_WRITE, &mrs[5], &x.huge_key,
			     NULL));
	/* A stale key: registered with remote write, then deregistered. */
	OK(marrow_emu_mr_reg(x.pd, x.s + 12288, 1024, MARROW_ACCESS_LOCAL_WRITE |
			     MARROW_ACCESS_REMOTE_WRITE, &mrs[6], &x.stale_key, NULL));
	OK(marrow_emu_mr_dereg(mrs[6]));

	t_cq_create(x.dev, 6, 0, &x.cq);
	t_qp_create(x.pd, &x.cq, 6, 64, &x.qp);
	t_qp_create_ex(x.pd, &x.cq, NULL, 6, 0, 64, MARROW_ACCESS_LOCAL_WRITE, &noacc);
	x.dst[0] = GUARD;

#define C(name, bad, synd, ctr) run_case(&x, &x.qp, name, bad, synd, MARROW_EMU_CTR_##ctr)
	C("bad lkey", bad_lkey, MX_SYND_LOCAL_PROT, synd_local_prot);
	C("lkey beyond table", bad_lkey_far, MX_SYND_LOCAL_PROT, synd_local_prot);
	C("MLX5_INVALID_LKEY", bad_lkey_invalid, MX_SYND_LOCAL_PROT, synd_local_prot);
	C("lkey wrong variant", bad_lkey_variant, MX_SYND_LOCAL_PROT, synd_local_prot);
	C("lkey range end", lkey_range_end, MX_SYND_LOCAL_PROT, synd_local_prot);
	C("lkey range start", lkey_range_start, MX_SYND_LOCAL_PROT, synd_local_prot);
	C("lkey other PD (rights)", lkey_other_pd, MX_SYND_LOCAL_PROT, synd_local_prot);
	C("lkey stale", lkey_stale, MX_SYND_LOCAL_PROT, synd_local_prot);
	C("second SGE bad", lkey_second_sge, MX_SYND_LOCAL_PROT, synd_local_prot);
	C("bad rkey", bad_rkey, MX_SYND_REMOTE_ACCESS, synd_remote_access);
	C("rkey range end", rkey_range_end, MX_SYND_REMOTE_ACCESS, synd_remote_access);
	C("rkey range start", rkey_range_start, MX_SYND_REMOTE_ACCESS, synd_remote_access);
	C("rkey range gather", rkey_range_gather, MX_SYND_REMOTE_ACCESS, synd_remote_access);
	C("MR lacks REMOTE_WRITE", rkey_no_remote_write, MX_SYND_REMOTE_ACCESS, synd_remote_access);
	C("rkey other PD", rkey_other_pd, MX_SYND_REMOTE_ACCESS, synd_remote_access);
	C("rkey stale", rkey_stale, MX_SYND_REMOTE_ACCESS, synd_remote_access);
	C("ds 0", ds_zero, MX_SYND_LOCAL_QP_OP, synd_local_qp_op);
	C("ds 1 WRITE", ds_one_write, MX_SYND_LOCAL_QP_OP, synd_local_qp_op);
	C("ds 64 reads as 0", ds_64, MX_SYND_LOCAL_QP_OP, synd_local_qp_op);
	C("qpn mismatch", qpn_mismatch, MX_SYND_LOCAL_QP_OP, synd_local_qp_op);
	C("wqe index mismatch", idx_mismatch, MX_SYND_LOCAL_QP_OP, synd_local_qp_op);
	C("inline overruns ds", inline_overruns_ds, MX_SYND_LOCAL_QP_OP, synd_local_qp_op);
	C("opcode RDMA_READ", op_read, MX_SYND_LOCAL_QP_OP, synd_local_qp_op);
	C("opcode SEND", op_send, MX_SYND_LOCAL_QP_OP, synd_local_qp_op);
	C("opcode ATOMIC_FA", op_atomic, MX_SYND_LOCAL_QP_OP, synd_local_qp_op);
	C("message > 2^31", message_too_long, MX_SYND_LOCAL_LENGTH, synd_local_length);
	C("WRITE_IMM, peer no RQ", imm_without_rq, MX_SYND_REMOTE_INVAL_REQ, synd_remote_inval_req);
#undef C
	/* The QP itself lacks REMOTE_WRITE: even a correct rkey fails. */
	run_case(&x, &noacc, "QP lacks REMOTE_WRITE", rkey_range_gather, MX_SYND_REMOTE_ACCESS,
		 MARROW_EMU_CTR_synd_remote_access);

	sq_overflow_case(&x);
	inline_beyond_max_inline(&x);
	user_err_case(&x);
	class_c_case(&x);

	/* The counter of sanity failures saw the malformed WQEs. */
	struct t_ctrs c = t_counters(x.dev);

	CHECK(c.v[MARROW_EMU_CTR_wqe_sanity_fail] == 6, "emu_wqe_sanity_fail = %llu, expected 6",
	      (unsigned long long)c.v[MARROW_EMU_CTR_wqe_sanity_fail]);
	CHECK(c.v[MARROW_EMU_CTR_wqe_other] == 3, "emu_wqe_other = %llu, expected 3",
	      (unsigned long long)c.v[MARROW_EMU_CTR_wqe_other]);

	OK(marrow_emu_qp_destroy(x.qp.qp));
	OK(marrow_emu_qp_destroy(noacc.qp));
	OK(marrow_emu_cq_destroy(x.cq.cq));
	for (int i = 0; i < 6; i++)
		OK(marrow_emu_mr_dereg(mrs[i]));
	OK(marrow_emu_pd_free(x.pd));
	OK(marrow_emu_pd_free(x.pdb));
	OK(marrow_emu_device_close(x.dev));
	free(x.g);
	free(x.s);
	return t_finish("test_softnic_errors");
}
