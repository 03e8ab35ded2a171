/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda throughput: the posting steps shared by the GPU kernels
 * (src/gda/gda_rate.cu) and the CPU executor (src/gda/gda_rate_cpu.c), so
 * both targets run one algorithm on the same mlx5 queues. The design,
 * and what each publication mode costs, is in docs/design/methods.md
 * ("mini-gda message rate").
 *
 * Per QP, posters share a small state block (struct gda_rate_qstate: GPU
 * memory on the GPU, so its atomics stay on the device):
 *   resv   WQEs reserved (free-running). SLOT/WARP reserve with an atomic
 *          add; LOCK under the SQ lock.
 *   ready  the ready head: WQEs whose doorbell has been rung. A poster
 *          that reserved [idx, idx+n) fills its WQEs, waits until
 *          ready == idx, rings for idx+n, then sets ready = idx+n. So
 *          doorbells go out in reservation order (as NVSHMEM publishes).
 *   ci     WQEs known complete. A WQE index i is signaled when
 *          (i+1) % K == 0 or it is the QP's last one of the run; its CQE
 *          retires every WQE up to it (send queues complete in order).
 *   reap   one poster at a time reaps the CQ (a try-lock); the others
 *          wait on ci.
 * A poster may use [idx, idx+n) only when idx + n - ci <= cap, where cap =
 * min(window, SQ WQEs). For that to be reachable the signal period is
 * clipped to K' = min(K, cap - n + 1): with K' larger, every signaled WQE
 * the poster waits for could lie at or beyond its own reservation (a
 * deadlock, not a slow run); the result reports K' (signal_period_effective).
 *
 * Doorbell: the posting thread runs gda_publish (gda_post.h: the ordering
 * variant, doorbell record, one 8-byte doorbell store), or with host-rung
 * doorbells stores the new producer index with a system-scope release into
 * a host word that a CPU thread watches (gda_rate_ring_pass).
 *
 * Every wait is bounded (timeout_ns) and records what it waited for.
 */
#ifndef MARROW_GDA_RATE_POST_H
#define MARROW_GDA_RATE_POST_H

#include "marrow/gda_post.h"
#include "marrow/marrow_gda_rate.h"

#if defined(__CUDACC__)
#define GR_FN __device__ __forceinline__
#define GR_HD __host__ __device__ __forceinline__
#else
#define GR_FN static inline __attribute__((always_inline))
#define GR_HD static inline __attribute__((always_inline))
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum gda_rate_wait {
	GDA_RATE_WAIT_NONE = 0,
	GDA_RATE_WAIT_SPACE = 1,   /* ring space / window: CQEs that did not come */
	GDA_RATE_WAIT_LOCK = 2,    /* the SQ lock */
	GDA_RATE_WAIT_READY = 3,   /* the ready head (an earlier reservation never published) */
	GDA_RATE_WAIT_DRAIN = 4,   /* the QP's last CQE */
	GDA_RATE_WAIT_WORD = 5,    /* signal round trip: the echoed word */
};

/* Shared per-QP state; 64 bytes so two QPs never share a line. */
struct gda_rate_qstate {
	uint32_t resv, ready, ci, lock;
	uint32_t reap, cq_ci, total, posted_db;
	uint32_t cq_pi, polled; /* single-poster path: CQEs expected; cq_pi at the last poll */
	uint32_t pad[6];
};

/* What a poster needs of one QP (read-only during a run). */
struct gda_rate_qdesc {
	uint8_t *sq;
	uint32_t *dbrec;
	uint64_t *uar;
	uint8_t *cq;
	uint32_t *cq_dbrec;
	uint32_t *host_pi;     /* DB_HOST: the host-visible producer index (WQEs) */
	uint32_t wqebb_cnt;
	uint32_t qpn;
	uint32_t log_cq;
	uint32_t pad;
};

/* One run's constants. */
struct gda_rate_ctx {
	const struct gda_rate_qdesc *q;
	struct gda_rate_qstate *qs;
	uint64_t dst_base;     /* WQE address of the destination buffer (the NIC's) */
	uint64_t src_base;     /* WQE address of the source buffer (pointer payloads) */
	uint64_t timeout_ns;
	uint64_t mtot;         /* warmup + messages per thread */
	uint32_t rkey, lkey;
	uint32_t nbb, ds;
	uint32_t cap, k;       /* window in WQEs, effective signal period */
	uint32_t msg_size, inl;
	uint32_t stride;       /* bytes per destination slot */
	uint32_t spt;          /* destination slots per thread */
	uint32_t ord, doorbell;
	uint32_t pub, batch;
	uint32_t solo;         /* every QP has one poster: the single-poster path (gr_solo_round) */
	uint32_t gpu_q;        /* the queues are in GPU memory: a CQE is acquired at GPU scope */
};

/* What one poster counted, and how its failure looked. */
struct gda_rate_tstats {
	uint64_t posts, doorbells, signaled, cqes;
	uint64_t sq_full_waits, sq_full_ticks, publish_ticks, reap_ticks;
	uint64_t fence_ticks, wqe_ticks;   /* gr_ring (fence + DBR + doorbell); building the WQEs */
	int32_t status;
	uint32_t wait, qp, seen;     /* enum gda_rate_wait, QP index, what the wait saw last */
	uint32_t want, cqe_opcode, cqe_syndrome, pad;
};

/* ---- atomics on the shared state ------------------------------------------ */
#if defined(__CUDACC__)
GR_FN uint32_t gr_fetch_add(uint32_t *p, uint32_t v) { return atomicAdd(p, v); }
GR_FN uint32_t gr_cas(uint32_t *p, uint32_t expect, uint32_t v) { return atomicCAS(p, expect, v); }
GR_FN uint32_t gr_load_acq(const uint32_t *p) { return gpu_ld_acquire_gpu_u32(p); }
GR_FN void gr_store_rel(uint32_t *p, uint32_t v) { gpu_st_release_gpu_u32(p, v); }
GR_FN uint64_t gr_ticks(void) { return gpu_clock64(); }
#else
GR_FN uint32_t gr_fetch_add(uint32_t *p, uint32_t v) { return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); }
GR_FN uint32_t gr_cas(uint32_t *p, uint32_t expect, uint32_t v)
{
	__atomic_compare_exchange_n(p, &expect, v, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	return expect;
}
GR_FN uint32_t gr_load_acq(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
GR_FN void gr_store_rel(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
GR_FN uint64_t gr_ticks(void) { return gda_now_ns(); }
#endif

/* A bounded wait: 0 while within the budget, 1 once it is spent. */
struct gr_deadline { uint64_t end; uint32_t spins; };
GR_FN int gr_expired(struct gr_deadline *d, uint64_t timeout_ns)
{
	if ((++d->spins & 63u) == 1u) {
		uint64_t now = gda_now_ns();
		if (d->end == 0)
			d->end = now + timeout_ns;
		else if (now > d->end)
			return 1;
	}
	gda_relax(d->spins);
	return 0;
}

/* The bound of a wait on completions is on time without progress: while
 * the QP's completed index still moves (other posters, or a slow engine on
 * an oversubscribed host, are making headway), the deadline starts again.
 * A stall -- a lost doorbell, a stopped engine -- still ends after
 * timeout_ns with the queue state. */
GR_FN void gr_progress(struct gr_deadline *d, uint32_t *last, uint32_t ci)
{
	if (ci != *last) {
		*last = ci;
		d->end = 0;
		d->spins = 0;
	}
}

GR_FN int gr_fail(struct gda_rate_tstats *st, int rc, uint32_t wait, uint32_t qp, uint32_t seen, uint32_t want)
{
	st->status = rc;
	st->wait = wait;
	st->qp = qp;
	st->seen = seen;
	st->want = want;
	return rc;
}

GR_FN int gr_signaled(const struct gda_rate_ctx *c, uint32_t idx, uint32_t total)
{
	return ((idx + 1u) % c->k) == 0u || idx + 1u == total;
}

/* ---- reclamation ------------------------------------------------------------ */

/* Reaps what the QP's CQ holds, if no other poster is reaping. Returns the
 * CQEs consumed (>= 0) or a negative status (an error CQE: MARROW_EIO). */
GR_FN int gr_reap(const struct gda_rate_ctx *c, uint32_t qi, struct gda_rate_tstats *st)
{
	const struct gda_rate_qdesc *q = &c->q[qi];
	struct gda_rate_qstate *s = &c->qs[qi];
	uint32_t n = 1u << q->log_cq, got = 0;
	uint64_t t0 = gr_ticks();

	if (gr_cas(&s->reap, 0u, 1u) != 0u)
		return 0;
	gpu_fence_acq_rel_gpu(); /* the CAS is relaxed on the GPU: see the last reaper's ci and cq_ci */
	for (;;) {
		uint32_t cci = s->cq_ci;
		const uint8_t *cqe = q->cq + (size_t)(cci & (n - 1u)) * MX_CQE_SIZE;
		uint64_t v = gpu_ld_relaxed_sys_u64((const uint64_t *)(cqe + MX_CQE_OFF_SOP_DROP_QPN));
		uint8_t oo = (uint8_t)(v >> 56);
		uint16_t wc;
		uint32_t ci, done;

		if ((oo >> 4) == MX_CQE_INVALID || (oo & 1u) != ((cci >> q->log_cq) & 1u))
			break;
		gpu_fence_acq_rel_sys();
		if ((oo >> 4) != MX_CQE_REQ) {
			st->cqe_opcode = oo >> 4;
			st->cqe_syndrome = mx_cqe_syndrome(cqe);
			gr_store_rel(&s->reap, 0u);
			return gr_fail(st, MARROW_EIO, GDA_RATE_WAIT_SPACE, qi, oo >> 4, MX_CQE_REQ);
		}
		wc = (uint16_t)((((v >> 32) & 0xffu) << 8) | ((v >> 40) & 0xffu));
		ci = s->ci;
		done = ci + (uint32_t)(uint16_t)(wc - (uint16_t)(ci * c->nbb)) / c->nbb + 1u;
		s->cq_ci = cci + 1u;
		gpu_st_relaxed_sys_u32(&q->cq_dbrec[0], mx_htobe32((cci + 1u) & 0xffffffu));
		gr_store_rel(&s->ci, done);
		got++;
	}
	gr_store_rel(&s->reap, 0u);
	st->cqes += got;
	st->reap_ticks += gr_ticks() - t0;
	return (int)got;
}

/* Waits until WQEs [.., end) fit: end - ci <= cap. */
GR_FN int gr_wait_space(const struct gda_rate_ctx *c, uint32_t qi, uint32_t end, struct gda_rate_tstats *st)
{
	struct gda_rate_qstate *s = &c->qs[qi];
	struct gr_deadline d = {0, 0};
	uint64_t t0 = 0;
	uint32_t ci = gr_load_acq(&s->ci), last = ci;
	int rc;

	if (end - ci <= c->cap)
		return MARROW_OK;
	st->sq_full_waits++;
	t0 = gr_ticks();
	while (end - (ci = gr_load_acq(&s->ci)) > c->cap) {
		if ((rc = gr_reap(c, qi, st)) < 0)
			return rc;
		gr_progress(&d, &last, ci);
		if (rc == 0 && gr_expired(&d, c->timeout_ns))
			return gr_fail(st, MARROW_ETIMEDOUT, GDA_RATE_WAIT_SPACE, qi, ci, end - c->cap);
	}
	st->sq_full_ticks += gr_ticks() - t0;
	return MARROW_OK;
}

/* Waits until every WQE of the QP up to `end` is complete (a quiet of it). */
GR_FN int gr_drain(const struct gda_rate_ctx *c, uint32_t qi, uint32_t end, struct gda_rate_tstats *st)
{
	struct gda_rate_qstate *s = &c->qs[qi];
	struct gr_deadline d = {0, 0};
	uint32_t ci, last = gr_load_acq(&s->ci);
	int rc;

	while ((int32_t)(end - (ci = gr_load_acq(&s->ci))) > 0) {
		if ((rc = gr_reap(c, qi, st)) < 0)
			return rc;
		gr_progress(&d, &last, ci);
		if (rc == 0 && gr_expired(&d, c->timeout_ns))
			return gr_fail(st, MARROW_ETIMEDOUT, GDA_RATE_WAIT_DRAIN, qi, ci, end);
	}
	return MARROW_OK;
}

/* ---- build and publish ------------------------------------------------------ */

GR_FN uint8_t *gr_wqe_at(const struct gda_rate_qdesc *q, uint32_t bb, uint32_t off)
{
	uint32_t ring = q->wqebb_cnt * (uint32_t)MX_WQEBB_SIZE;
	return q->sq + ((bb * (uint32_t)MX_WQEBB_SIZE + off) & (ring - 1u));
}

/* Destination (and pointer-source) slot of message m of thread t, and the
 * id whose pattern the bytes carry: inline payloads name the message,
 * pointer payloads the slot (the source is staged once, before the run). */
GR_FN uint64_t gr_slot(const struct gda_rate_ctx *c, uint32_t t, uint64_t m)
{
	return (uint64_t)t * c->spt + m % c->spt;
}

GR_FN uint64_t gr_msg_id(const struct gda_rate_ctx *c, uint32_t t, uint64_t m)
{
	return c->inl ? (uint64_t)t * c->mtot + m : gr_slot(c, t, m);
}

/* Writes WQE index idx of QP qi: an RDMA WRITE of message m of thread t. */
GR_FN void gr_build(const struct gda_rate_ctx *c, uint32_t qi, uint32_t idx, uint32_t t, uint64_t m,
		    struct gda_rate_tstats *st)
{
	const struct gda_rate_qdesc *q = &c->q[qi];
	uint32_t bb = idx * c->nbb;
	uint64_t slot = gr_slot(c, t, m);
	int sig = gr_signaled(c, idx, c->qs[qi].total);

	mx_set_ctrl_seg(gr_wqe_at(q, bb, 0), (uint16_t)bb, MX_OPCODE_RDMA_WRITE, 0, q->qpn,
			sig ? MX_CTRL_CQ_UPDATE : 0, (uint8_t)c->ds, 0, 0);
	mx_set_raddr_seg(gr_wqe_at(q, bb, MX_CTRL_SEG_SIZE), c->dst_base + slot * c->stride, c->rkey);
	if (c->inl) {
		uint32_t off = MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE;
		uint64_t id = gr_msg_id(c, t, m);
		mx_set_inline_hdr(gr_wqe_at(q, bb, off), c->msg_size);
		for (uint32_t k = 0; k < (c->msg_size + 3u) / 4u; k++)
			mx_store32(gr_wqe_at(q, bb, off + MX_INLINE_HDR_SIZE + 4u * k), gda_pattern_word(id, k));
	} else {
		mx_set_data_seg(gr_wqe_at(q, bb, MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE), c->msg_size, c->lkey,
				c->src_base + slot * c->stride);
	}
	st->posts++;
	st->signaled += (uint64_t)sig;
}

/* Rings for WQEs [.., end): the doorbell record and doorbell (the ordering
 * variant of gda_post.h), or the host-visible producer index. */
GR_FN void gr_ring(const struct gda_rate_ctx *c, uint32_t qi, uint32_t end, struct gda_rate_tstats *st)
{
	const struct gda_rate_qdesc *q = &c->q[qi];
	uint32_t pi = end * c->nbb;

	if (c->doorbell == MARROW_GDA_RATE_DB_HOST) {
		gpu_st_release_sys_u32(q->host_pi, end);
	} else {
		struct gda_sq sq;
		sq.dbrec = q->dbrec;
		sq.uar = q->uar;
		gda_publish(&sq, (int)c->ord, mx_dbrec_send_value(pi), mx_doorbell_value((uint16_t)pi, 0, q->qpn, 0));
	}
	st->doorbells++;
}

/* Waits for the ready head to reach idx (every earlier reservation published). */
GR_FN int gr_wait_ready(const struct gda_rate_ctx *c, uint32_t qi, uint32_t idx, struct gda_rate_tstats *st)
{
	struct gda_rate_qstate *s = &c->qs[qi];
	struct gr_deadline d = {0, 0};
	uint64_t t0 = gr_ticks();
	uint32_t r;

	while ((r = gr_load_acq(&s->ready)) != idx)
		if (gr_expired(&d, c->timeout_ns))
			return gr_fail(st, MARROW_ETIMEDOUT, GDA_RATE_WAIT_READY, qi, r, idx);
	st->publish_ticks += gr_ticks() - t0;
	return MARROW_OK;
}

/* The SQ lock (LOCK publication). */
GR_FN int gr_lock(const struct gda_rate_ctx *c, uint32_t qi, struct gda_rate_tstats *st)
{
	struct gda_rate_qstate *s = &c->qs[qi];
	struct gr_deadline d = {0, 0};
	uint64_t t0 = gr_ticks();

	while (gr_cas(&s->lock, 0u, 1u) != 0u)
		if (gr_expired(&d, c->timeout_ns))
			return gr_fail(st, MARROW_ETIMEDOUT, GDA_RATE_WAIT_LOCK, qi, 1u, 0u);
	gpu_fence_acq_rel_gpu(); /* acquire: the last holder's reservation counter */
	st->publish_ticks += gr_ticks() - t0;
	return MARROW_OK;
}

/* One round of a thread that publishes on its own (LOCK or SLOT): n WQEs,
 * messages m0 .. m0+n-1 of thread t, one doorbell. */
GR_FN int gr_thread_round(const struct gda_rate_ctx *c, uint32_t qi, uint32_t t, uint64_t m0, uint32_t n,
			  struct gda_rate_tstats *st)
{
	struct gda_rate_qstate *s = &c->qs[qi];
	uint64_t t0;
	uint32_t idx;
	int rc;

	if (c->pub == MARROW_GDA_RATE_PUB_LOCK) {
		if ((rc = gr_lock(c, qi, st)) != MARROW_OK)
			return rc;
		idx = s->resv;
		s->resv = idx + n;
		rc = gr_wait_space(c, qi, idx + n, st);
		if (rc == MARROW_OK) {
			for (uint32_t j = 0; j < n; j++)
				gr_build(c, qi, idx + j, t, m0 + j, st);
			gr_ring(c, qi, idx + n, st);
			s->ready = idx + n;
		}
		gr_store_rel(&s->lock, 0u);
		return rc;
	}
	idx = gr_fetch_add(&s->resv, n);
	if ((rc = gr_wait_space(c, qi, idx + n, st)) != MARROW_OK)
		return rc;
	t0 = gr_ticks();
	for (uint32_t j = 0; j < n; j++)
		gr_build(c, qi, idx + j, t, m0 + j, st);
	st->wqe_ticks += gr_ticks() - t0;
	if ((rc = gr_wait_ready(c, qi, idx, st)) != MARROW_OK)
		return rc;
	t0 = gr_ticks();
	gr_ring(c, qi, idx + n, st);
	st->fence_ticks += gr_ticks() - t0;
	gr_store_rel(&s->ready, idx + n);
	return MARROW_OK;
}

/* Warp publication, the leader's halves: reserve a run of n WQEs (and wait
 * for its space); publish it once every lane has filled its part. */
GR_FN int gr_warp_reserve(const struct gda_rate_ctx *c, uint32_t qi, uint32_t n, uint32_t *idx,
			  struct gda_rate_tstats *st)
{
	*idx = gr_fetch_add(&c->qs[qi].resv, n);
	return gr_wait_space(c, qi, *idx + n, st);
}

GR_FN int gr_warp_publish(const struct gda_rate_ctx *c, uint32_t qi, uint32_t idx, uint32_t n,
			  struct gda_rate_tstats *st)
{
	int rc = gr_wait_ready(c, qi, idx, st);
	uint64_t t0;

	if (rc != MARROW_OK)
		return rc;
	t0 = gr_ticks();
	gr_ring(c, qi, idx + n, st);
	st->fence_ticks += gr_ticks() - t0;
	gr_store_rel(&c->qs[qi].ready, idx + n);
	return MARROW_OK;
}

/* ---- the single-poster path -------------------------------------------------
 * When the QP mapping gives every QP one posting thread (known at launch:
 * gda_rate_plan_make sets ctx.solo), nothing is shared and nothing needs an
 * atomic: the poster keeps the QP's reservation counter, completed index,
 * CQ consumer index, the CQEs it expects and the QP's constants in a struct
 * gr_solo (registers when its QP is fixed; shared memory when one thread
 * rotates over QPs), and where its next message goes in a struct gr_msgs.
 * A WQE then costs no division, no descriptor load and no 64-bit multiply:
 * on one GPU thread every instruction of the chain is latency, so the
 * instruction count per WQE is the rate (docs/design/methods.md, "mini-gda
 * message rate", single-poster path). A round of n WQEs is: room check (no
 * load unless the window is short), the load of the oldest outstanding CQE
 * issued before the WQE stores (its latency hides behind them), n WQEs
 * built in registers and stored as whole 16-byte vectors per WQEBB, the
 * ordering's fence + DBR + doorbell once, then that CQE consumed if it was
 * there (periodic reclamation: one CQE per round retires k WQEs). */
struct gr_solo {
	uint32_t resv;     /* WQEs posted (free-running), == ready: rung as soon as built */
	uint32_t ci;       /* WQEs known complete */
	uint32_t cq_ci;    /* CQEs consumed (free-running) */
	uint32_t cq_pi;    /* CQEs expected: signaled WQEs posted */
	uint32_t polled;   /* unused by this path; kept in the shared block for the dump */
	uint32_t total;    /* the QP's WQE total of the run (its last one is signaled) */
	uint32_t sig_left; /* WQEs until the next one signaled on period (1..k) */
	uint32_t ring_mask; /* SQ bytes - 1 */
	uint32_t ctrl1;    /* ctrl word 1 of every WQE: BE32(qpn << 8 | ds) */
	uint32_t db_hi;    /* high half of the doorbell value: BE32(qpn << 8) */
	uint8_t *sq;
	uint32_t *dbrec;
	uint64_t *uar;
};

/* A poster's messages: the destination (and pointer source) of its next
 * one and the id its inline payload carries, advanced by one per WQE. The
 * same values as gr_slot/gr_msg_id of message m, without their modulo and
 * multiplies. */
struct gr_msgs {
	uint64_t ra, sa;   /* addresses of the next message's slot */
	uint64_t ra0, sa0; /* the poster's slot 0 */
	uint64_t id;       /* pattern id of the next message (inline payloads) */
	uint32_t mi;       /* the next message's slot index, m % spt */
	uint32_t pad;
};

GR_FN void gr_msgs_at(const struct gda_rate_ctx *c, uint32_t t, uint64_t m, struct gr_msgs *g)
{
	uint64_t slot0 = (uint64_t)t * c->spt;

	g->mi = (uint32_t)(m % c->spt);
	g->ra0 = c->dst_base + slot0 * c->stride;
	g->sa0 = c->src_base + slot0 * c->stride;
	g->ra = g->ra0 + (uint64_t)g->mi * c->stride;
	g->sa = g->sa0 + (uint64_t)g->mi * c->stride;
	g->id = gr_msg_id(c, t, m);
	g->pad = 0;
}

GR_FN void gr_msgs_next(struct gr_msgs *g, uint32_t stride, uint32_t spt)
{
	g->id++;
	g->ra += stride;
	g->sa += stride;
	if (++g->mi == spt) {
		g->mi = 0;
		g->ra = g->ra0;
		g->sa = g->sa0;
	}
}

GR_FN void gr_solo_load(const struct gda_rate_ctx *c, uint32_t qi, struct gr_solo *v)
{
	const struct gda_rate_qstate *s = &c->qs[qi];
	const struct gda_rate_qdesc *q = &c->q[qi];

	v->resv = s->resv;
	v->ci = s->ci;
	v->cq_ci = s->cq_ci;
	v->cq_pi = s->cq_pi;
	v->polled = s->polled;
	v->total = s->total;
	v->sig_left = c->k - v->resv % c->k;
	v->ring_mask = q->wqebb_cnt * (uint32_t)MX_WQEBB_SIZE - 1u;
	v->ctrl1 = mx_htobe32((q->qpn << 8) | c->ds);
	v->db_hi = mx_htobe32(q->qpn << 8);
	v->sq = q->sq;
	v->dbrec = q->dbrec;
	v->uar = q->uar;
}

/* Back into the shared block: gr_drain and the failure dump read it there. */
GR_FN void gr_solo_save(const struct gda_rate_ctx *c, uint32_t qi, const struct gr_solo *v)
{
	struct gda_rate_qstate *s = &c->qs[qi];
	s->resv = v->resv;
	s->ready = v->resv;
	s->ci = v->ci;
	s->cq_ci = v->cq_ci;
	s->cq_pi = v->cq_pi;
	s->polled = v->polled;
}

/* The CQE word a poller tests (wqe_counter, signature, op_own and the QPN
 * word before them) of CQ position pos. */
GR_FN uint64_t gr_cqe_word(const struct gda_rate_qdesc *q, uint32_t pos)
{
	const uint8_t *cqe = q->cq + (size_t)(pos & ((1u << q->log_cq) - 1u)) * MX_CQE_SIZE;

	return gpu_ld_relaxed_sys_u64((const uint64_t *)(cqe + MX_CQE_OFF_SOP_DROP_QPN));
}

/* Consumes the CQE at CQ position pos, whose word v64 was read, if it was
 * there: every CQE before it too (no one else reads this CQ).
 * 1: consumed; 0: not yet; < 0: error CQE. */
GR_FN int gr_solo_seen(const struct gda_rate_ctx *c, uint32_t qi, struct gr_solo *v, uint32_t pos, uint64_t v64,
		       struct gda_rate_tstats *st)
{
	const struct gda_rate_qdesc *q = &c->q[qi];
	uint8_t oo = (uint8_t)(v64 >> 56);
	uint16_t wc;

	if ((oo >> 4) == MX_CQE_INVALID || (oo & 1u) != ((pos >> q->log_cq) & 1u))
		return 0;
	/* later stores (WQEs reusing the retired slots) stay after the CQE */
	if (c->gpu_q)
		gpu_fence_acquire_gpu();
	else
		gpu_fence_acquire_sys();
	if ((oo >> 4) != MX_CQE_REQ) {
		const uint8_t *cqe = q->cq + (size_t)(pos & ((1u << q->log_cq) - 1u)) * MX_CQE_SIZE;

		st->cqe_opcode = oo >> 4;
		st->cqe_syndrome = mx_cqe_syndrome(cqe);
		return gr_fail(st, MARROW_EIO, GDA_RATE_WAIT_SPACE, qi, oo >> 4, MX_CQE_REQ);
	}
	wc = (uint16_t)((((v64 >> 32) & 0xffu) << 8) | ((v64 >> 40) & 0xffu));
	v->ci = v->ci + (uint32_t)(uint16_t)(wc - (uint16_t)(v->ci * c->nbb)) / c->nbb + 1u;
	st->cqes += pos + 1u - v->cq_ci;
	v->cq_ci = pos + 1u;
	gpu_st_relaxed_sys_u32(&q->cq_dbrec[0], mx_htobe32(v->cq_ci & 0xffffffu));
	return 1;
}

/* Waits until WQEs [.., end) fit: the oldest outstanding CQE first (the one
 * the window waits for), then the newest (it retires every WQE before it). */
GR_FN int gr_solo_space(const struct gda_rate_ctx *c, uint32_t qi, struct gr_solo *v, uint32_t end,
			struct gda_rate_tstats *st)
{
	const struct gda_rate_qdesc *q = &c->q[qi];
	struct gr_deadline d = {0, 0};
	uint64_t t0 = gr_ticks();
	uint32_t last = v->ci;
	int rc;

	st->sq_full_waits++;
	while (end - v->ci > c->cap) {
		if (v->cq_pi == v->cq_ci) /* nothing signaled outstanding: cannot happen with K' <= cap - n + 1 */
			return gr_fail(st, MARROW_ETIMEDOUT, GDA_RATE_WAIT_SPACE, qi, v->ci, end - c->cap);
		rc = gr_solo_seen(c, qi, v, v->cq_ci, gr_cqe_word(q, v->cq_ci), st);
		if (rc > 0 && end - v->ci > c->cap && v->cq_pi != v->cq_ci)
			rc = gr_solo_seen(c, qi, v, v->cq_pi - 1u, gr_cqe_word(q, v->cq_pi - 1u), st);
		if (rc < 0)
			return rc;
		gr_progress(&d, &last, v->ci);
		if (rc == 0 && gr_expired(&d, c->timeout_ns))
			return gr_fail(st, MARROW_ETIMEDOUT, GDA_RATE_WAIT_SPACE, qi, v->ci, end - c->cap);
	}
	st->sq_full_ticks += gr_ticks() - t0;
	return MARROW_OK;
}

/* One 16-byte store (a WQEBB quarter; the SQ is WQEBB-aligned). Weak: the
 * ordering's fence in gr_ring publishes it. */
GR_FN void gr_st16(uint8_t *p, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
#if defined(__CUDA_ARCH__)
	asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
#else
	uint32_t w[4] = {a, b, c, d};
	__builtin_memcpy(p, w, sizeof(w));
#endif
}

/* Writes WQE index idx (one WQEBB: inline <= 28 bytes or pointer) of the
 * poster's QP from registers: the same bytes as gr_build, four 16-byte
 * stores. The payload constants (rkey, lkey, size words) come in as the
 * caller's registers. */
GR_FN void gr_build_bb(const struct gr_solo *v, const struct gr_msgs *g, uint32_t idx, int sig, uint32_t inl,
		       uint32_t nw, uint32_t rkey_be, uint32_t lkey_be, uint32_t len_be)
{
	uint8_t *w = v->sq + ((idx << MX_WQEBB_SHIFT) & v->ring_mask);

	gr_st16(w, mx_htobe32(((idx & 0xffffu) << 8) | MX_OPCODE_RDMA_WRITE), v->ctrl1,
		sig ? ((uint32_t)MX_CTRL_CQ_UPDATE << 24) : 0u, 0u);
	gr_st16(w + 16, mx_htobe32((uint32_t)(g->ra >> 32)), mx_htobe32((uint32_t)g->ra), rkey_be, 0u);
	if (inl) {
		uint32_t p[7];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
		for (uint32_t k = 0; k < 7u; k++)
			p[k] = k < nw ? gda_pattern_word(g->id, k) : 0u;
		gr_st16(w + 32, len_be, p[0], p[1], p[2]);
		gr_st16(w + 48, p[3], p[4], p[5], p[6]);
	} else {
		gr_st16(w + 32, len_be, lkey_be, mx_htobe32((uint32_t)(g->sa >> 32)), mx_htobe32((uint32_t)g->sa));
		gr_st16(w + 48, 0u, 0u, 0u, 0u);
	}
}

/* One round of the single poster of QP qi: n WQEs, messages m0 .. m0+n-1
 * of thread t (g: where message m0 goes), one doorbell. */
GR_FN int gr_solo_round(const struct gda_rate_ctx *c, uint32_t qi, struct gr_solo *v, struct gr_msgs *g,
			uint32_t t, uint64_t m0, uint32_t n, struct gda_rate_tstats *st)
{
	uint32_t idx = v->resv, end = idx + n, sig = 0;
	uint64_t t0, cqw = 0;
	int look, rc;

	if (end - v->ci > c->cap && (rc = gr_solo_space(c, qi, v, end, st)) != MARROW_OK)
		return rc;
	/* periodic reclamation: the oldest outstanding CQE, loaded now and
	 * looked at after the doorbell */
	look = v->cq_pi != v->cq_ci;
	if (look)
		cqw = gr_cqe_word(&c->q[qi], v->cq_ci);
	t0 = gr_ticks();
	if (c->nbb == 1u) {
		/* the run's constants in registers: the WQE stores' "memory"
		 * clobber would reload them from the context every WQE */
		const uint32_t k = c->k, stride = c->stride, spt = c->spt, inl = c->inl;
		const uint32_t nw = (c->msg_size + 3u) / 4u, rkey_be = mx_htobe32(c->rkey);
		const uint32_t lkey_be = mx_htobe32(c->lkey);
		const uint32_t len_be = mx_htobe32(inl ? (c->msg_size | MX_INLINE_SEG_FLAG) : (c->msg_size & 0x7fffffffu));

		for (uint32_t j = 0; j < n; j++) {
			int s = 0;

			if (--v->sig_left == 0u) {
				v->sig_left = k;
				s = 1;
			} else if (idx + j + 1u == v->total) {
				s = 1;
			}
			gr_build_bb(v, g, idx + j, s, inl, nw, rkey_be, lkey_be, len_be);
			gr_msgs_next(g, stride, spt);
			sig += (uint32_t)s;
		}
		st->posts += n;
		st->signaled += sig;
	} else {
		for (uint32_t j = 0; j < n; j++) {
			int s = gr_signaled(c, idx + j, v->total);

			gr_build(c, qi, idx + j, t, m0 + j, st);
			sig += (uint32_t)s;
		}
	}
	st->wqe_ticks += gr_ticks() - t0;
	v->cq_pi += sig;
	v->resv = end;
	t0 = gr_ticks();
	if (c->doorbell == MARROW_GDA_RATE_DB_HOST) {
		gr_ring(c, qi, end, st);
	} else {
		struct gda_sq sq;
		uint32_t pi = end * c->nbb;

		sq.dbrec = v->dbrec;
		sq.uar = v->uar;
		gda_publish(&sq, (int)c->ord, mx_dbrec_send_value(pi),
			    ((uint64_t)v->db_hi << 32) | mx_htobe32((pi & 0xffffu) << 8));
		st->doorbells++;
	}
	st->fence_ticks += gr_ticks() - t0;
	if (look) {
		t0 = gr_ticks();
		rc = gr_solo_seen(c, qi, v, v->cq_ci, cqw, st);
		st->reap_ticks += gr_ticks() - t0;
		if (rc < 0)
			return rc;
	}
	return MARROW_OK;
}

/* QP of a poster's round r (QP_SHARED rotates). unit: the block, warp or
 * thread index the mapping names. */
GR_HD uint32_t gr_qp_of(uint32_t map, uint32_t qps, uint32_t unit, uint64_t r)
{
	if (map == MARROW_GDA_RATE_QP_SHARED)
		return (uint32_t)((unit + r) % qps);
	return unit % qps;
}


/* ---- payload staging and the check after a run ------------------------------
 * Shared by the CPU executor and the GPU kernels. */
/* Pointer payloads: the source slot s holds the pattern of id s. The
 * _part forms cover words (bytes) k0, k0 + step, ... only, so that the
 * threads of a GPU block share one slot: a slot of megabytes in mapped host
 * memory is not read by one thread in a series of PCIe round trips. */
GR_FN void gr_stage_part(uint8_t *src, uint32_t stride, uint32_t len, uint64_t s, uint32_t k0, uint32_t step)
{
	uint32_t *w = (uint32_t *)(src + s * stride);
	for (uint32_t k = k0; k < (len + 3u) / 4u; k += step)
		w[k] = gda_pattern_word(s, k);
}

GR_FN void gr_stage_slot(uint8_t *src, uint32_t stride, uint32_t len, uint64_t s)
{
	gr_stage_part(src, stride, len, s, 0, 1);
}

/* 1 when bytes j0, j0 + step, ... of destination slot s of thread t hold
 * the last message that went there (or the slot was never written and
 * holds zeros), else 0. */
GR_FN int gr_check_part(const struct gda_rate_ctx *c, const uint8_t *dst, uint32_t t, uint32_t s, uint32_t j0,
			uint32_t step)
{
	uint64_t slot = (uint64_t)t * c->spt + s;
	const volatile uint8_t *d = dst + slot * c->stride;
	uint64_t last, id;

	if ((uint64_t)s >= c->mtot) {
		for (uint32_t j = j0; j < c->msg_size; j += step)
			if (d[j] != 0)
				return 0;
		return 1;
	}
	last = s + ((c->mtot - 1u - s) / c->spt) * c->spt;
	id = gr_msg_id(c, t, last);
	for (uint32_t j = j0; j < c->msg_size; j += step)
		if (d[j] != (uint8_t)(gda_pattern_word(id, j / 4u) >> (8u * (j % 4u))))
			return 0;
	return 1;
}

/* The whole slot. */
GR_FN int gr_check_slot(const struct gda_rate_ctx *c, const uint8_t *dst, uint32_t t, uint32_t s)
{
	return gr_check_part(c, dst, t, s, 0, 1);
}

GR_FN uint64_t gr_data_word(uint64_t it)
{
	return (uint64_t)gda_pattern_word(it, 0) | ((uint64_t)gda_pattern_word(it, 1) << 32);
}

/* One 8-byte inline WRITE of word w to destination offset off on QP qi. */
GR_FN void gr_post_word(const struct gda_rate_ctx *c, uint32_t qi, uint64_t w, uint32_t off,
		      struct gda_rate_tstats *st)
{
	const struct gda_rate_qdesc *q = &c->q[qi];
	struct gda_rate_qstate *s = &c->qs[qi];
	uint32_t idx = s->resv, bb = idx * c->nbb;
	uint32_t ds = mx_ds_inline_write(8);

	mx_set_ctrl_seg(gr_wqe_at(q, bb, 0), (uint16_t)bb, MX_OPCODE_RDMA_WRITE, 0, q->qpn, MX_CTRL_CQ_UPDATE,
			(uint8_t)ds, 0, 0);
	mx_set_raddr_seg(gr_wqe_at(q, bb, MX_CTRL_SEG_SIZE), c->dst_base + off, c->rkey);
	mx_set_inline_hdr(gr_wqe_at(q, bb, MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE), 8);
	mx_store32(gr_wqe_at(q, bb, MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE + MX_INLINE_HDR_SIZE), (uint32_t)w);
	mx_store32(gr_wqe_at(q, bb, MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE + MX_INLINE_HDR_SIZE + 4), (uint32_t)(w >> 32));
	s->resv = idx + 1u;
	st->posts++;
	st->signaled++;
	gr_ring(c, qi, idx + 1u, st);
	s->ready = idx + 1u;
}

GR_FN int gr_wait_word(const struct gda_rate_ctx *c, const uint64_t *p, uint64_t want, struct gda_rate_tstats *st)
{
	struct gr_deadline d = {0, 0};
	while (gpu_ld_relaxed_sys_u64(p) != want)
		if (gr_expired(&d, c->timeout_ns))
			return gr_fail(st, MARROW_ETIMEDOUT, GDA_RATE_WAIT_WORD, 0, 0, (uint32_t)want);
	gpu_fence_acq_rel_sys();
	return MARROW_OK;
}

/* Index of the lowest set bit of a non-zero word. */
GR_FN uint32_t gr_ctz32(uint32_t x)
{
#if defined(__CUDA_ARCH__)
	return (uint32_t)__ffs((int)x) - 1u;
#else
	return (uint32_t)__builtin_ctz(x);
#endif
}

/* The completion of the scope after a put on QP 0. used: QPs posted to
 * since the last quiet (bit per QP). */
GR_FN int gr_quiet(const struct gda_rate_ctx *c, uint32_t scope, uint32_t qps, uint32_t *used,
		 struct gda_rate_tstats *st)
{
	int rc = MARROW_OK;
	const uint32_t words = (qps + 31u) / 32u;

	if (scope == MARROW_GDA_RATE_SCOPE_USED_QP) {
		/* Only the QPs in the used set are visited, found by their set
		 * bits: the cost follows the QPs this poster touched, not the
		 * endpoint's QP count. With a scan testing every QP's bit, used-QP
		 * quiet rose ~100 ns per configured QP on the H200 while per-QP
		 * quiet, which differs only by that scan, stayed flat
		 * (docs/design/methods.md §2.1). */
		for (uint32_t w = 0; w < words && rc == MARROW_OK; w++) {
			uint32_t bits = used[w];

			used[w] = 0;
			while (bits != 0u && rc == MARROW_OK) {
				uint32_t q = w * 32u + gr_ctz32(bits);

				bits &= bits - 1u;
				rc = gr_reap(c, q, st);
				if (rc >= 0)
					rc = gr_drain(c, q, c->qs[q].resv, st);
			}
		}
		return rc < 0 ? rc : MARROW_OK;
	}
	for (uint32_t q = 0; q < qps && rc == MARROW_OK; q++) {
		if (scope == MARROW_GDA_RATE_SCOPE_PER_QP && q != 0)
			break;
		/* visiting a QP reads its CQ once even when nothing is outstanding */
		rc = gr_reap(c, q, st);
		if (rc >= 0)
			rc = gr_drain(c, q, c->qs[q].resv, st);
	}
	for (uint32_t i = 0; i < words; i++)
		used[i] = 0;
	return rc < 0 ? rc : MARROW_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_RATE_POST_H */
