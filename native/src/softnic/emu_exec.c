/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The data path: discover new WQEs of one QP, copy them once into
 * engine-private memory (the NIC's DMA read), execute them in SQ order and
 * write CQEs.
 *
 * Producer discovery (mlx5-formats.md §2.5): the target is the SQ doorbell
 * record's send counter (BE32, low 16 bits, exclusive WQEBB counter), read
 * when a UAR mailbox change (a doorbell) is seen; the doorbell's own index is
 * never trusted. Like a ConnectX, the engine does not act on a dbrec that
 * moved without a doorbell: a producer whose dbrec store overtakes its WQE
 * stores is still safe if it orders the WQEs before the doorbell, and one
 * that never rings is never served. (Acting on the dbrec alone made correct
 * "fence before the doorbell" variants read stale WQEs.)
 *
 * Error model (what mlx5 reports):
 *   bad lkey / gather outside MR / other PD        -> LOCAL_PROT (0x04)
 *   bad rkey / outside MR / no REMOTE_WRITE        -> REMOTE_ACCESS (0x13)
 *   malformed WQE, unsupported opcode, SQ overflow -> LOCAL_QP_OP (0x02)
 *   inline > max_inline_data, message > 2^31       -> LOCAL_LENGTH (0x01)
 *   WRITE_IMM to a peer without RQ                 -> REMOTE_INVAL_REQ (0x12)
 *   peer destroyed or not in RTR/RTS               -> TRANSPORT_RETRY_EXC (0x15)
 * The failing WQE gets a REQ_ERR CQE (signaled or not); the QP goes to ERR
 * and every later WQE gets a REQ_ERR / WR_FLUSH CQE in order, as do posted
 * RQ WQEs (RESP_ERR / WR_FLUSH). Remote-side errors (REMOTE_ACCESS,
 * REMOTE_INVAL_REQ) also move a distinct peer QP to ERR (IB class C).
 * Everything is validated before the first byte moves, so a failing WQE
 * writes nothing. WRITE_IMM without a posted RQ WQE waits (RNR with
 * infinite retry); it is not an error.
 */
#include <string.h>

#include "emu_internal.h"

enum { RES_OK = 0, RES_WAIT = 1 };

/* Error result: syndrome in bits 15..8, vendor syndrome in bits 7..0. */
#define RES_ERR(synd, vsynd) (((uint32_t)(synd) << 8) | (uint32_t)(vsynd))

/* The slot of a live MR of pd with this key, or NULL. One table load. */
static inline const struct emu_mr_slot *mr_lookup(const struct marrow_emu_device *dev, uint32_t key,
						  const struct marrow_emu_pd *pd)
{
	uint32_t idx = key >> 8;
	const struct emu_mr_slot *s;

	if (EMU_UNLIKELY(idx >= dev->mr_cap))
		return NULL;
	s = &dev->mrs[idx];
	if (EMU_UNLIKELY(__atomic_load_n(&s->key, __ATOMIC_ACQUIRE) != key || s->pd != pd))
		return NULL;
	return s;
}

/* exec_ci is also read (for information) outside the engine thread. */
static inline void set_exec_ci(struct marrow_emu_qp *qp, uint16_t v)
{
	__atomic_store_n(&qp->exec_ci, v, __ATOMIC_RELEASE);
}

/* [addr, addr + len) inside the MR, without overflow. */
static inline int mr_covers(const struct emu_mr_slot *s, uint64_t addr, uint64_t len)
{
	return addr >= s->base && len <= s->len && addr - s->base <= s->len - len;
}

/* RDMA_WRITE / RDMA_WRITE_IMM: gather (pointer and/or inline segments),
 * validate everything, then place the bytes at the peer. */
static uint32_t exec_write(struct emu_thread *t, struct marrow_emu_qp *qp, const uint8_t *w,
			   uint32_t ds, int with_imm)
{
	const struct marrow_emu_device *dev = t->dev;
	const uint8_t *end = w + ds * MX_DS_SIZE;
	const uint8_t *seg = w + MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE;
	struct emu_piece *pc = t->pieces;
	uint64_t inl = 0, gat = 0, total;
	uint32_t n = 0, rq_ci = 0;
	struct marrow_emu_qp *peer;
	uint32_t pst;
	uint8_t *dst = NULL;

	if (EMU_UNLIKELY(ds < 2)) {
		CTR(t, wqe_sanity_fail)++;
		return RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_MALFORMED);
	}
	while (seg < end) {
		uint32_t bc = emu_be32(seg);

		if (bc & MX_INLINE_SEG_FLAG) {
			uint32_t len = bc & ~MX_INLINE_SEG_FLAG;
			uint32_t sz;

			inl += len;
			if (EMU_UNLIKELY(inl > qp->max_inline))
				return RES_ERR(MX_SYND_LOCAL_LENGTH, EMU_VSYND_INLINE_LEN);
			sz = (MX_INLINE_HDR_SIZE + len + 15u) & ~15u;
			if (EMU_UNLIKELY(sz > (uint32_t)(end - seg))) {
				CTR(t, wqe_sanity_fail)++;
				return RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_MALFORMED);
			}
			if (len) {
				pc[n].src = seg + MX_INLINE_HDR_SIZE;
				pc[n++].len = len;
			}
			seg += sz;
		} else {
			uint32_t lkey = emu_be32(seg + 4);
			uint64_t addr = emu_be64(seg + 8);
			const struct emu_mr_slot *s;

			seg += MX_DATA_SEG_SIZE;
			if (bc == 0)
				continue;   /* zero-length SGE: nothing to gather */
			s = mr_lookup(dev, lkey, qp->pd);
			if (EMU_UNLIKELY(s == NULL))
				return RES_ERR(MX_SYND_LOCAL_PROT, EMU_VSYND_BAD_LKEY);
			if (EMU_UNLIKELY(!mr_covers(s, addr, bc)))
				return RES_ERR(MX_SYND_LOCAL_PROT, EMU_VSYND_LKEY_RANGE);
			gat += bc;
			pc[n].src = (const uint8_t *)(uintptr_t)addr;
			pc[n++].len = bc;
		}
	}
	total = inl + gat;
	if (EMU_UNLIKELY(total > EMU_MSG_MAX))
		return RES_ERR(MX_SYND_LOCAL_LENGTH, EMU_VSYND_MSG_LEN);

	/* Responder checks, in rxe order: state, QP rights, RQ, rkey. */
	peer = qp->peer;
	pst = peer ? __atomic_load_n(&peer->state, __ATOMIC_ACQUIRE) : MARROW_QPS_RESET;
	if (EMU_UNLIKELY(pst != MARROW_QPS_RTS && pst != MARROW_QPS_RTR))
		return RES_ERR(MX_SYND_TRANSPORT_RETRY_EXC, EMU_VSYND_PEER_DOWN);
	if (EMU_UNLIKELY(!(peer->access & MARROW_ACCESS_REMOTE_WRITE)))
		return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_QP_RIGHTS);
	if (with_imm) {
		if (EMU_UNLIKELY(peer->rq_cnt == 0))
			return RES_ERR(MX_SYND_REMOTE_INVAL_REQ, EMU_VSYND_PEER_NO_RQ);
		uint16_t rq_pi = (uint16_t)mx_be32toh(__atomic_load_n(&peer->dbrec[MX_DBR_RCV],
								      __ATOMIC_ACQUIRE));
		rq_ci = __atomic_load_n(&peer->rq_ci, __ATOMIC_ACQUIRE);
		if ((uint16_t)(rq_pi - rq_ci) == 0)
			return RES_WAIT;
	}
	if (total) {
		/* A zero-length write carries no usable rkey (rxe skips it too). */
		uint64_t raddr = emu_be64(w + MX_CTRL_SEG_SIZE);
		uint32_t rkey = emu_be32(w + MX_CTRL_SEG_SIZE + 8);
		const struct emu_mr_slot *s = mr_lookup(dev, rkey, peer->pd);

		if (EMU_UNLIKELY(s == NULL))
			return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_BAD_RKEY);
		if (EMU_UNLIKELY(!(s->access & MARROW_ACCESS_REMOTE_WRITE)))
			return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_RKEY_RIGHTS);
		if (EMU_UNLIKELY(!mr_covers(s, raddr, total)))
			return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_RKEY_RANGE);
		dst = (uint8_t *)(uintptr_t)raddr;
	}
	if (with_imm) {
		/* Claim the RQ WQE; another requester of this peer may race. */
		while (!__atomic_compare_exchange_n(&peer->rq_ci, &rq_ci, rq_ci + 1, 0,
						    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			uint16_t rq_pi = (uint16_t)mx_be32toh(__atomic_load_n(&peer->dbrec[MX_DBR_RCV],
									      __ATOMIC_ACQUIRE));

			if ((uint16_t)(rq_pi - rq_ci) == 0)
				return RES_WAIT;
		}
	}

	for (uint32_t i = 0; i < n; i++) {
		memmove(dst, pc[i].src, pc[i].len);
		dst += pc[i].len;
	}
	CTR(t, inline_bytes) += inl;
	CTR(t, gather_bytes) += gat;
	CTR(t, payload_bytes_tx) += total;
	CTR(t, payload_bytes_rx) += total;
	if (with_imm)
		emu_cqe_post(t, peer->rcq, MX_CQE_RESP_WR_IMM, 0, peer->qpn, (uint16_t)rq_ci,
			     (uint32_t)total, mx_ctrl_imm_be(w), 0, 0);
	return RES_OK;
}

/* First error of a QP: error CQE even if unsignaled, QP to ERR. */
static void qp_fail(struct emu_thread *t, struct marrow_emu_qp *qp, uint8_t opcode, uint16_t ci,
		    uint32_t res)
{
	uint8_t synd = (uint8_t)(res >> 8);
	struct marrow_emu_qp *peer = qp->peer;

	emu_cqe_post(t, qp->scq, MX_CQE_REQ_ERR, opcode, qp->qpn, ci, 0, 0, synd, (uint8_t)res);
	__atomic_store_n(&qp->state, MARROW_QPS_ERR, __ATOMIC_RELEASE);
	if ((synd == MX_SYND_REMOTE_ACCESS || synd == MX_SYND_REMOTE_INVAL_REQ) && peer && peer != qp) {
		uint32_t s = __atomic_load_n(&peer->state, __ATOMIC_ACQUIRE);

		while ((s == MARROW_QPS_RTR || s == MARROW_QPS_RTS) &&
		       !__atomic_compare_exchange_n(&peer->state, &s, MARROW_QPS_ERR, 0,
						    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			;
	}
}

/* Copies WQEBBs [fetch_pi, min(target, exec_ci + shadow size)) out of the
 * SQ ring, once; a run is one contiguous read of the ring. */
static void fetch(struct emu_thread *t, struct marrow_emu_qp *qp, uint16_t target)
{
	uint32_t want = (uint16_t)(target - qp->exec_ci);
	uint32_t have = (uint16_t)(qp->fetch_pi - qp->exec_ci);
	uint32_t n;
	uint16_t c = qp->fetch_pi;

	if (want > qp->sh_cnt)
		want = qp->sh_cnt;
	if (have >= want)
		return;
	n = want - have;
	CTR(t, wqebb_fetched) += n;
	CTR(t, fetch_runs) += ((c & qp->sq_mask) + n > qp->sq_cnt) ? 2 : 1;
	while (n) {
		uint32_t sq_slot = c & qp->sq_mask, sh_slot = c & qp->sh_mask;
		uint32_t k = n;

		if (k > qp->sq_cnt - sq_slot)
			k = qp->sq_cnt - sq_slot;
		if (k > qp->sh_cnt - sh_slot)
			k = qp->sh_cnt - sh_slot;
		memcpy(qp->shadow + (size_t)sh_slot * MX_WQEBB_SIZE,
		       qp->sq + (size_t)sq_slot * MX_WQEBB_SIZE, (size_t)k * MX_WQEBB_SIZE);
		c = (uint16_t)(c + k);
		n -= k;
	}
	qp->fetch_pi = c;
}

/* WQEBBs to skip for a WQE that is not executed: its ds if plausible,
 * else one WQEBB (the rest is parsed as the next WQE). */
static inline uint32_t skip_bbs(uint32_t ds, uint32_t avail)
{
	uint32_t nbb = (ds + 3) / 4;

	if (ds == 0 || ds > EMU_MAX_DS)
		return 1;
	return nbb < avail ? nbb : avail;
}

/* Executes fetched WQEs in order; in ERR, flushes them instead. */
static int execute(struct emu_thread *t, struct marrow_emu_qp *qp, uint32_t st)
{
	int work = 0;

	while (qp->exec_ci != qp->fetch_pi) {
		uint16_t ci = qp->exec_ci;
		uint32_t avail = (uint16_t)(qp->fetch_pi - ci);
		uint32_t slot = ci & qp->sh_mask;
		const uint8_t *w = qp->shadow + (size_t)slot * MX_WQEBB_SIZE;
		uint32_t w0 = emu_be32(w), w1 = emu_be32(w + 4);
		uint8_t opcode = (uint8_t)w0;
		uint32_t ds = w1 & 0xff;
		uint32_t nbb = (ds + 3) / 4;
		uint32_t res;

		if (st == MARROW_QPS_ERR) {
			/* A whole WQE whose tail is not fetched yet (the shadow
			 * window or the doorbell cut it) waits as in RTS; flushing
			 * it early would flush its tail as further WQEs. */
			if (ds != 0 && ds <= EMU_MAX_DS && nbb <= qp->sq_cnt && nbb > avail)
				break;
			nbb = skip_bbs(ds, avail);
			emu_cqe_post(t, qp->scq, MX_CQE_REQ_ERR, opcode, qp->qpn, ci, 0, 0,
				     MX_SYND_WR_FLUSH, EMU_VSYND_FLUSH);
			set_exec_ci(qp, (uint16_t)(ci + nbb));
			qp->rnr_wait = 0;
			work = 1;
			continue;
		}
		if (EMU_UNLIKELY(ds == 0 || ds > EMU_MAX_DS || nbb > qp->sq_cnt ||
				 (uint16_t)(w0 >> 8) != ci || (w1 >> 8) != qp->qpn)) {
			CTR(t, wqe_sanity_fail)++;
			nbb = skip_bbs(ds, avail);
			set_exec_ci(qp, (uint16_t)(ci + nbb));
			qp_fail(t, qp, opcode, ci, RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_MALFORMED));
			st = MARROW_QPS_ERR;
			work = 1;
			continue;
		}
		if (nbb > avail)
			break;   /* rest of this WQE not posted (or not fetched) yet */
		if (EMU_UNLIKELY(slot + nbb > qp->sh_cnt)) {
			/* WQE wraps the ring: make it contiguous for parsing. */
			uint32_t first = qp->sh_cnt - slot;

			memcpy(t->wrapbuf, w, (size_t)first * MX_WQEBB_SIZE);
			memcpy(t->wrapbuf + (size_t)first * MX_WQEBB_SIZE, qp->shadow,
			       (size_t)(nbb - first) * MX_WQEBB_SIZE);
			w = t->wrapbuf;
		}

		switch (opcode) {
		case MX_OPCODE_RDMA_WRITE:
			res = exec_write(t, qp, w, ds, 0);
			if (res != RES_WAIT)
				CTR(t, wqe_rdma_write)++;
			break;
		case MX_OPCODE_RDMA_WRITE_IMM:
			res = exec_write(t, qp, w, ds, 1);
			if (res != RES_WAIT)
				CTR(t, wqe_rdma_write_imm)++;
			break;
		case MX_OPCODE_NOP:
			res = RES_OK;
			CTR(t, wqe_nop)++;
			break;
		default:
			res = RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_BAD_OPCODE);
			CTR(t, wqe_other)++;
			break;
		}
		if (EMU_UNLIKELY(res == RES_WAIT)) {
			if (!qp->rnr_wait) {
				qp->rnr_wait = 1;
				CTR(t, rnr_waits)++;
				work = 1;
			}
			break;
		}
		qp->rnr_wait = 0;
		set_exec_ci(qp, (uint16_t)(ci + nbb));
		work = 1;
		if (EMU_UNLIKELY(res != RES_OK)) {
			qp_fail(t, qp, opcode, ci, res);
			st = MARROW_QPS_ERR;
		} else if (mx_ctrl_fm_ce_se(w) & MX_CTRL_CQ_UPDATE) {
			emu_cqe_post(t, qp->scq, MX_CQE_REQ, opcode, qp->qpn, ci, 0, 0, 0, 0);
		}
	}
	return work;
}

/* Producer more than the SQ size ahead (or behind): a software bug. The
 * ring content is not trustworthy, so report once and skip to target. */
static void sq_overflow(struct emu_thread *t, struct marrow_emu_qp *qp, uint16_t target,
			uint32_t st)
{
	CTR(t, sq_overflow)++;
	if (st != MARROW_QPS_ERR) {
		uint8_t opcode = qp->sq[(size_t)(qp->exec_ci & qp->sq_mask) * MX_WQEBB_SIZE + 3];

		qp_fail(t, qp, opcode, qp->exec_ci,
			RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_SQ_OVERFLOW));
	}
	set_exec_ci(qp, target);
	qp->fetch_pi = target;
	qp->rnr_wait = 0;
}

static int sq_progress(struct emu_thread *t, struct marrow_emu_qp *qp, uint32_t st)
{
	uint16_t target = qp->db_target;
	int work = 0;

	if (target != qp->last_target) {
		CTR(t, dbrec_advances)++;
		qp->last_target = target;
		work = 1;
	}
	if (EMU_UNLIKELY((uint16_t)(target - qp->exec_ci) > qp->sq_cnt)) {
		sq_overflow(t, qp, target, st);
		return 1;
	}
	fetch(t, qp, target);
	if (qp->exec_ci != qp->fetch_pi)
		work |= execute(t, qp, st);
	return work;
}

/* ERR: every posted RQ WQE completes with RESP_ERR / WR_FLUSH. */
static int rq_flush(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	uint16_t pi;
	int work = 0;

	if (qp->rq_cnt == 0)
		return 0;
	pi = (uint16_t)mx_be32toh(__atomic_load_n(&qp->dbrec[MX_DBR_RCV], __ATOMIC_ACQUIRE));
	for (;;) {
		uint32_t ci = __atomic_load_n(&qp->rq_ci, __ATOMIC_ACQUIRE);
		uint16_t n = (uint16_t)(pi - ci);

		if (n == 0)
			break;
		if (n > qp->rq_cnt) {
			/* Bogus receive counter: skip, nothing sensible to flush. */
			__atomic_compare_exchange_n(&qp->rq_ci, &ci, ci + n, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE);
			break;
		}
		if (__atomic_compare_exchange_n(&qp->rq_ci, &ci, ci + 1, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			emu_cqe_post(t, qp->rcq, MX_CQE_RESP_ERR, 0, qp->qpn, (uint16_t)ci, 0, 0,
				     MX_SYND_WR_FLUSH, EMU_VSYND_FLUSH);
			work = 1;
		}
	}
	return work;
}

int emu_qp_poll(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	uint64_t d0 = __atomic_load_n((const uint64_t *)qp->uar, __ATOMIC_ACQUIRE);
	uint64_t d1 = __atomic_load_n((const uint64_t *)(qp->uar + EMU_UAR_HALF), __ATOMIC_ACQUIRE);
	uint32_t st;
	int work = 0;

	if (d0 != qp->last_db[0] || d1 != qp->last_db[1]) {
		/* A kick: the QP is looked at now; the dbrec says how far. */
		CTR(t, doorbells_observed) += (d0 != qp->last_db[0]) + (d1 != qp->last_db[1]);
		qp->last_db[0] = d0;
		qp->last_db[1] = d1;
		/* acquire on the mailbox above orders this read after the doorbell */
		qp->db_target = (uint16_t)mx_be32toh(__atomic_load_n(&qp->dbrec[MX_DBR_SND],
								     __ATOMIC_ACQUIRE));
		work = 1;
	}
	st = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (st == MARROW_QPS_RTS) {
		work |= sq_progress(t, qp, st);
	} else if (st == MARROW_QPS_ERR) {
		work |= sq_progress(t, qp, st);
		work |= rq_flush(t, qp);
	}
	return work;
}
