/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The CPU producer of the softnic benchmarks (emu_bench.c): it plays a
 * NVSHMEM-style producer, writing WQEs with mlx5_wqe.h into the SQ ring,
 * then the SQ dbrec send counter (a release store) (BE32) and the 8-byte
 * doorbell (exclusive index, opcode 0, ds 0); it polls CQEs with the
 * owner-bit rule and keeps the CQ dbrec consumer index current. A header so
 * that the lock-step driver (native/tests/test_softnic_step.c), which counts
 * instructions per message, runs exactly the code the benchmarks time.
 */
#ifndef MARROW_EMU_PRODUCER_H
#define MARROW_EMU_PRODUCER_H

#include <string.h>

#include "emu_internal.h"

struct bench {
	const char *fn;
	struct marrow_emu_qp *qp;
	struct marrow_emu_cq *cq;
	uint8_t *sq;
	uint32_t sq_cnt;
	uint32_t sq_mask;
	uint32_t qpn;
	uint32_t *dbrec;
	uint64_t *uar;
	uint8_t *cqbuf;
	uint32_t *cq_dbrec;
	uint32_t log_n;
	uint32_t cq_mask;
	int collapsed;
	int limit_cqes;          /* oi = 0, normal CQ: keep unpolled CQEs < N */
	/* message */
	int inl;
	uint32_t len;
	uint32_t ds;
	uint32_t nbb;
	const uint8_t *payload;
	uint64_t laddr;
	uint32_t lkey;
	uint64_t raddr;
	uint32_t rkey;
	/* progress */
	uint16_t pi;             /* producer WQEBB counter */
	uint16_t retired;        /* WQEBBs retired by CQEs */
	uint32_t cq_ci;          /* CQ consumer counter */
	uint32_t sig_out;        /* signaled WQEs without a CQE yet */
	uint64_t completed;      /* messages retired */
	uint64_t deadline_ns;    /* CLOCK_MONOTONIC_RAW; 0 = none (marrow_emu_bench_set_budget) */
	int cut_short;           /* run_rate stopped posting at deadline_ns */
	uint64_t doorbells;
	uint64_t cqes;
};

/* Checks qp/cq and the message, then waits (bounded) until the engine has
 * retired everything already posted to qp. */
int emu_bench_setup(struct bench *b, const char *fn, struct marrow_emu_qp *qp,
		    struct marrow_emu_cq *cq, uint32_t msg_size, uint32_t batch,
		    uint64_t local_addr, uint32_t lkey, uint64_t remote_addr, uint32_t rkey,
		    uint64_t timeout_ns);
/* Fails with the error CQE's fields in the message (cold path). */
int emu_bench_cqe_error(struct bench *b, const uint8_t *cqe);

/* What every WQE of a run shares, in registers for the posting loop: the
 * WQE stores (volatile, through uint32_t pointers) may alias the bench
 * struct, so fields read from it would be reloaded after every store. */
struct wqe_tmpl {
	uint8_t *sq;
	uint32_t sq_mask;
	uint32_t qpn;
	uint32_t ds;
	uint32_t len;
	int inl;
	const uint8_t *payload;
	uint64_t laddr;
	uint32_t lkey;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t sq_cnt;
};

static inline struct wqe_tmpl wqe_tmpl_of(const struct bench *b)
{
	struct wqe_tmpl m = {
		.sq = b->sq, .sq_mask = b->sq_mask, .qpn = b->qpn, .ds = b->ds, .len = b->len,
		.inl = b->inl, .payload = b->payload, .laddr = b->laddr, .lkey = b->lkey,
		.raddr = b->raddr, .rkey = b->rkey, .sq_cnt = b->sq_cnt,
	};
	return m;
}

/* Writes one RDMA WRITE WQE at producer counter c, with mlx5_wqe.h. */
static inline void put_wqe(const struct wqe_tmpl *m, uint16_t c, uint8_t fm_ce_se)
{
	uint8_t *w = m->sq + (size_t)(c & m->sq_mask) * MX_WQEBB_SIZE;

	mx_set_ctrl_seg(w, c, MX_OPCODE_RDMA_WRITE, 0, m->qpn, fm_ce_se, (uint8_t)m->ds, 0, 0);
	mx_set_raddr_seg(w + MX_CTRL_SEG_SIZE, m->raddr, m->rkey);
	if (!m->inl) {
		mx_set_data_seg(w + 32, m->len, m->lkey, m->laddr);
		return;
	}
	mx_set_inline_hdr(w + 32, m->len);
	if (m->len == 0 || m->payload == NULL)
		return;
	if (EMU_LIKELY(m->len == 8)) {
		/* The benchmarks' common size: one 8-byte load and store. */
		uint64_t v;

		__builtin_memcpy(&v, m->payload, 8);
		__builtin_memcpy(w + 36, &v, 8);
		return;
	}
	if (m->len <= MX_WQEBB_SIZE - 36) {
		/* Inside this WQEBB: cannot run past the ring end. */
		emu_copy_small(w + 36, m->payload, m->len);
		return;
	}
	/* The payload may run past the ring end: continue at slot 0. */
	size_t ring = (size_t)m->sq_cnt * MX_WQEBB_SIZE;
	size_t off = (size_t)(c & m->sq_mask) * MX_WQEBB_SIZE + 36;
	size_t first = m->len < ring - off ? m->len : ring - off;

	memcpy(m->sq + off, m->payload, first);
	if (first < m->len)
		memcpy(m->sq, m->payload + first, m->len - first);
}

/* The benchmarks' common WQE, 8 bytes inline in one WQEBB: the bytes
 * put_wqe writes for it, with the per-WQE tests of put_wqe decided once per
 * batch (post_batch). */
static inline void put_wqe_inl8(const struct wqe_tmpl *m, uint16_t c, uint8_t fm_ce_se)
{
	uint8_t *w = m->sq + (size_t)(c & m->sq_mask) * MX_WQEBB_SIZE;
	uint64_t v;

	mx_set_ctrl_seg(w, c, MX_OPCODE_RDMA_WRITE, 0, m->qpn, fm_ce_se, (uint8_t)m->ds, 0, 0);
	mx_set_raddr_seg(w + MX_CTRL_SEG_SIZE, m->raddr, m->rkey);
	mx_set_inline_hdr(w + 32, 8);
	__builtin_memcpy(&v, m->payload, 8);
	__builtin_memcpy(w + 36, &v, 8);
}

/* k WQEs, last one signaled, one dbrec update and one doorbell. */
static inline void post_batch(struct bench *b, uint32_t k)
{
	const struct wqe_tmpl m = wqe_tmpl_of(b);
	const uint32_t nbb = b->nbb;
	uint16_t c = b->pi;

	if (EMU_LIKELY(m.inl && m.len == 8 && m.payload != NULL)) {
		for (uint32_t i = 0; i + 1 < k; i++) {
			put_wqe_inl8(&m, c, 0);
			c = (uint16_t)(c + nbb);
		}
		put_wqe_inl8(&m, c, MX_CTRL_CQ_UPDATE);
		c = (uint16_t)(c + nbb);
	} else {
		for (uint32_t i = 0; i + 1 < k; i++) {
			put_wqe(&m, c, 0);
			c = (uint16_t)(c + nbb);
		}
		put_wqe(&m, c, MX_CTRL_CQ_UPDATE);
		c = (uint16_t)(c + nbb);
	}
	b->pi = c;
	b->sig_out++;
	/* WQEs before the dbrec (a release store: the order a release fence and
	 * a relaxed store give, in a form ThreadSanitizer checks). */
	__atomic_store_n(&b->dbrec[MX_DBR_SND], mx_dbrec_send_value(c), __ATOMIC_RELEASE);
	__atomic_store_n(b->uar, mx_doorbell_value(c, 0, m.qpn, 0), __ATOMIC_RELEASE);
	b->doorbells++;
}

/* Retires through a CQE naming WQE start wc, if it is one of ours. */
static inline int retire(struct bench *b, uint16_t wc)
{
	uint16_t outstanding = (uint16_t)(b->pi - b->retired);

	if ((uint16_t)(wc - b->retired) >= outstanding)
		return 0;   /* stale: from before this run */
	uint16_t upto = (uint16_t)(wc + b->nbb);

	uint16_t bbs = (uint16_t)(upto - b->retired);

	b->completed += b->nbb == 1 ? bbs : bbs / b->nbb;
	b->retired = upto;
	if (b->sig_out)
		b->sig_out--;
	return 1;
}

/* Consumes at most one CQE: 1 if one was there, 0 if none, <0 on error. */
static inline int poll_one(struct bench *b)
{
	const uint8_t *cqe;

	if (b->collapsed) {
		cqe = b->cqbuf;
		if (mx_cqe_opcode(cqe) == MX_CQE_INVALID)
			return 0;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint16_t wc = mx_cqe_wqe_counter(cqe);

		if (mx_cqe_qpn(cqe) != b->qpn ||
		    (uint16_t)(wc - b->retired) >= (uint16_t)(b->pi - b->retired))
			return 0;
		if (mx_cqe_opcode(cqe) != MX_CQE_REQ)
			return emu_bench_cqe_error(b, cqe);
		b->cqes++;
		retire(b, wc);
		return 1;
	}
	cqe = b->cqbuf + (size_t)(b->cq_ci & b->cq_mask) * MX_CQE_SIZE;
	if (!mx_cqe_is_valid(cqe, b->cq_ci, b->log_n))
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	b->cq_ci++;
	b->cqes++;
	__atomic_store_n(&b->cq_dbrec[0], mx_htobe32(b->cq_ci & 0xffffff), __ATOMIC_RELEASE);
	if (mx_cqe_opcode(cqe) != MX_CQE_REQ) {
		if (mx_cqe_opcode(cqe) == MX_CQE_REQ_ERR || mx_cqe_opcode(cqe) == MX_CQE_RESP_ERR)
			return emu_bench_cqe_error(b, cqe);
		return 1;   /* e.g. a receive CQE of a shared CQ */
	}
	if (mx_cqe_qpn(cqe) == b->qpn)
		retire(b, mx_cqe_wqe_counter(cqe));
	return 1;
}

#endif /* MARROW_EMU_PRODUCER_H */
