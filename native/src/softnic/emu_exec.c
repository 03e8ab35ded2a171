/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The data path: take doorbells, copy new WQEs once into engine-private
 * memory (the NIC's DMA read), execute them in SQ order and write CQEs.
 * docs/design/softnic-fidelity.md states which ConnectX behaviour each rule
 * follows.
 *
 * Doorbells: a UAR doorbell store is an event carrying (WQE index, QPN, ds)
 * (the first 8 bytes of a ctrl segment). The engine empties the slot when it
 * takes the value, so the same value stored twice is two events unless both
 * stores land before the engine looks (then they merge, which loses nothing:
 * the index makes them idempotent). The QPN picks the QP among those on the
 * page; a doorbell naming none of them, or a QP in RESET, is dropped and
 * counted. The engine executes up to the index (rdma-core's inclusive
 * convention is turned exclusive with the doorbell's ds), never reading the
 * doorbell record on this path: like a ConnectX it serves DOCA's early
 * doorbell (before the DBR) and DBR-less producers, and it never acts on a
 * DBR that moved without a doorbell. The DBR is read by recovery only
 * (emu_qp_recover). A doorbell in INIT or RTR is remembered and its WQEs run
 * once the QP reaches RTS.
 *
 * Error model (what mlx5 reports):
 *   bad lkey / gather outside MR / other PD        -> LOCAL_PROT (0x04)
 *   bad rkey / outside MR / no REMOTE_WRITE        -> REMOTE_ACCESS (0x13)
 *   malformed WQE, unsupported opcode, SQ overflow -> LOCAL_QP_OP (0x02)
 *   message > 2^31                                 -> LOCAL_LENGTH (0x01)
 *   WRITE_IMM to a peer without RQ                 -> REMOTE_INVAL_REQ (0x12)
 *   peer destroyed or not in RTR/RTS, after
 *     (retry_cnt + 1) ack timeouts                 -> TRANSPORT_RETRY_EXC (0x15)
 *   WRITE_IMM, no receive WQE after rnr_retry
 *     RNR retries (7 = forever)                    -> RNR_RETRY_EXC (0x16)
 * max_inline_data is a posting-side check (the NIC only parses the WQE).
 * The failing WQE gets a REQ_ERR CQE (signaled or not); the QP goes to ERR
 * and every later WQE gets a REQ_ERR / WR_FLUSH CQE in order, as do posted
 * RQ WQEs (RESP_ERR / WR_FLUSH). Remote-side errors (REMOTE_ACCESS,
 * REMOTE_INVAL_REQ) also move a distinct peer QP to ERR (IB class C).
 * Everything is validated before the first byte moves, so a failing WQE
 * writes nothing.
 */
#include <string.h>

#include "emu_internal.h"
#include "emu_shmwire.h"

/* RES_WAIT_*: the WQE at exec_ci cannot run yet (EMU_WAIT_* kind). */
enum { RES_OK = 0, RES_WAIT_RNR = EMU_WAIT_RNR, RES_WAIT_ACK = EMU_WAIT_ACK };

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

/* [addr, addr + len) inside the MR, without overflow: an addr below base
 * wraps addr - base past any MR length. */
static inline int mr_covers(const struct emu_mr_slot *s, uint64_t addr, uint64_t len)
{
	return len <= s->len && addr - s->base <= s->len - len;
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

	/* A peer in another process: the wire checks and places (emu_shmwire.c). */
	if (EMU_UNLIKELY(qp->wire != NULL))
		return emu_shmwire_write(t, qp, w, pc, n, inl, gat, with_imm);
	/* Responder checks, in rxe order: state, QP rights, RQ, rkey. */
	peer = qp->peer;
	pst = peer ? __atomic_load_n(&peer->state, __ATOMIC_ACQUIRE) : MARROW_QPS_RESET;
	if (EMU_UNLIKELY(pst != MARROW_QPS_RTS && pst != MARROW_QPS_RTR))
		return RES_WAIT_ACK;   /* no ACK comes back: the requester times out */
	if (EMU_UNLIKELY(!(peer->access & MARROW_ACCESS_REMOTE_WRITE)))
		return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_QP_RIGHTS);
	if (with_imm) {
		if (EMU_UNLIKELY(peer->rq_cnt == 0))
			return RES_ERR(MX_SYND_REMOTE_INVAL_REQ, EMU_VSYND_PEER_NO_RQ);
		uint16_t rq_pi = (uint16_t)mx_be32toh(__atomic_load_n(&peer->dbrec[MX_DBR_RCV],
								      __ATOMIC_ACQUIRE));
		rq_ci = __atomic_load_n(&peer->rq_ci, __ATOMIC_ACQUIRE);
		if ((uint16_t)(rq_pi - rq_ci) == 0)
			return RES_WAIT_RNR;
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
				return RES_WAIT_RNR;
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
		emu_cqe_post(t, peer->rcq, MX_CQE_RESP_WR_IMM, 0, peer, (uint16_t)rq_ci,
			     (uint32_t)total, mx_ctrl_imm_be(w), 0, 0);
	return RES_OK;
}

/* The common case, an RDMA WRITE of one WQEBB whose only data segment is
 * one inline segment filling the WQE (ds 3 or 4, 1..28 bytes), to a peer
 * in RTR/RTS: the same checks as exec_write, without the gather list.
 * Returns 1 when the bytes were placed; 0 when anything is unusual, and then
 * writes nothing, so exec_write reaches the authoritative verdict. */
static inline int write_inline_1bb(struct emu_thread *t, const struct marrow_emu_qp *qp,
				   const uint8_t *w, uint32_t ds)
{
	uint32_t bc = emu_be32(w + MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE);
	uint32_t len = bc & ~MX_INLINE_SEG_FLAG;
	const struct marrow_emu_qp *peer = qp->peer;
	const struct emu_mr_slot *s;
	uint64_t raddr;
	uint32_t pst;

	if (!(bc & MX_INLINE_SEG_FLAG) || len == 0 ||
	    ((MX_INLINE_HDR_SIZE + len + 15u) & ~15u) != (ds - 2) * MX_DS_SIZE || peer == NULL)
		return 0;
	pst = __atomic_load_n(&peer->state, __ATOMIC_ACQUIRE);
	if (EMU_UNLIKELY((pst != MARROW_QPS_RTS && pst != MARROW_QPS_RTR) ||
			 !(peer->access & MARROW_ACCESS_REMOTE_WRITE)))
		return 0;
	raddr = emu_be64(w + MX_CTRL_SEG_SIZE);
	s = mr_lookup(t->dev, emu_be32(w + MX_CTRL_SEG_SIZE + 8), peer->pd);
	if (EMU_UNLIKELY(s == NULL || !(s->access & MARROW_ACCESS_REMOTE_WRITE) ||
			 !mr_covers(s, raddr, len)))
		return 0;
	emu_copy_small((uint8_t *)(uintptr_t)raddr,
		   w + MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE + MX_INLINE_HDR_SIZE, len);
	CTR(t, wqe_rdma_write)++;
	CTR(t, inline_bytes) += len;
	CTR(t, payload_bytes_tx) += len;
	CTR(t, payload_bytes_rx) += len;
	return 1;
}

/* First error of a QP: error CQE even if unsignaled, QP to ERR. */
static void qp_fail(struct emu_thread *t, struct marrow_emu_qp *qp, uint8_t opcode, uint16_t ci,
		    uint32_t res)
{
	uint8_t synd = (uint8_t)(res >> 8);
	struct marrow_emu_qp *peer = qp->peer;

	emu_cqe_post(t, qp->scq, MX_CQE_REQ_ERR, opcode, qp, ci, 0, 0, synd, (uint8_t)res);
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

	if (ds == 0)
		return 1;
	return nbb < avail ? nbb : avail;
}

/* IB RNR timer codes (min_rnr_timer) in units of 10 us; code 0 = 655.36 ms. */
static const uint32_t rnr_timer_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
};

uint64_t emu_rnr_timer_ns(const struct marrow_emu_device *dev, uint32_t code)
{
	return (uint64_t)rnr_timer_10us[code & 31] * 10000u / dev->time_divisor;
}

/* Local ACK timeout 4.096 us * 2^timeout; 0 means no timeout at all. */
uint64_t emu_ack_timeout_ns(const struct marrow_emu_device *dev, uint32_t timeout)
{
	if (timeout == 0)
		return UINT64_MAX / 4;
	return ((uint64_t)4096u << timeout) / dev->time_divisor;
}

/* The WQE at exec_ci could not run (no RQ WQE at the peer: RNR NAK; peer
 * silent: ACK timeout). Starts or continues the retry schedule the QP's
 * attributes give; returns RES_OK to keep waiting, or the error once the
 * retries are used up. Called at the first attempt and at each retry time. */
static uint32_t wait_or_fail(struct emu_thread *t, struct marrow_emu_qp *qp, uint32_t kind)
{
	const struct marrow_emu_device *dev = t->dev;
	uint64_t now = emu_now_ns();
	uint64_t gap = kind == EMU_WAIT_RNR ? emu_rnr_timer_ns(dev, qp->min_rnr_timer)
					    : emu_ack_timeout_ns(dev, qp->timeout);

	if (qp->wait_kind != kind) {
		/* First NAK / first silence for this WQE. */
		qp->wait_kind = (uint8_t)kind;
		qp->rnr_wait = 1;
		if (kind == EMU_WAIT_RNR) {
			CTR(t, rnr_waits)++;
			if (qp->rnr_retry == 0)
				goto fail;
			qp->tries_left = qp->rnr_retry;
		} else {
			qp->tries_left = (uint8_t)(qp->retry_cnt + 1);
		}
		qp->retry_at_ns = now + gap;
		return RES_OK;
	}
	if (kind == EMU_WAIT_RNR) {
		CTR(t, rnr_naks)++;
		if (qp->rnr_retry != 7 && --qp->tries_left == 0)
			goto fail;
	} else {
		CTR(t, ack_timeouts)++;
		if (--qp->tries_left == 0)
			goto fail;
	}
	/* Retries keep their schedule even when the engine looked late. */
	qp->retry_at_ns += gap;
	return RES_OK;
fail:
	qp->wait_kind = EMU_WAIT_NONE;
	qp->rnr_wait = 0;
	return kind == EMU_WAIT_RNR ? RES_ERR(MX_SYND_RNR_RETRY_EXC, EMU_VSYND_RNR)
				    : RES_ERR(MX_SYND_TRANSPORT_RETRY_EXC, EMU_VSYND_PEER_DOWN);
}

/* Executes fetched WQEs in order; in ERR, flushes them instead. */
static int execute(struct emu_thread *t, struct marrow_emu_qp *qp, uint32_t st)
{
	/* Nothing below moves fetch_pi or the rings; keep them in registers
	 * (the payload stores would otherwise force reloads). */
	const uint16_t fetch_pi = qp->fetch_pi;
	const uint8_t *const shadow = qp->shadow;
	const uint32_t sh_mask = qp->sh_mask, sq_cnt = qp->sq_cnt, qpn = qp->qpn;
	int work = 0;

	while (qp->exec_ci != fetch_pi) {
		uint16_t ci = qp->exec_ci;
		uint32_t avail = (uint16_t)(fetch_pi - ci);
		uint32_t slot = ci & sh_mask;
		const uint8_t *w = shadow + (size_t)slot * MX_WQEBB_SIZE;
		uint32_t w0 = emu_be32(w), w1 = emu_be32(w + 4);
		uint8_t opcode = (uint8_t)w0;
		uint32_t ds = w1 & 0x3f;   /* 6 bits, as a ConnectX reads it */
		uint32_t nbb = (ds + 3) / 4;
		uint32_t res;

		if (st == MARROW_QPS_ERR) {
			/* A whole WQE whose tail is not fetched yet (the shadow
			 * window or the doorbell cut it) waits as in RTS; flushing
			 * it early would flush its tail as further WQEs. */
			if (ds != 0 && ds <= EMU_MAX_DS && nbb <= qp->sq_cnt && nbb > avail)
				break;
			nbb = skip_bbs(ds, avail);
			emu_cqe_post(t, qp->scq, MX_CQE_REQ_ERR, opcode, qp, ci, 0, 0,
				     MX_SYND_WR_FLUSH, EMU_VSYND_FLUSH);
			set_exec_ci(qp, (uint16_t)(ci + nbb));
			qp->rnr_wait = 0;
			qp->wait_kind = EMU_WAIT_NONE;
			work = 1;
			continue;
		}
		if (EMU_UNLIKELY(ds == 0 || nbb > sq_cnt ||
				 (uint16_t)(w0 >> 8) != ci || (w1 >> 8) != qpn)) {
			CTR(t, wqe_sanity_fail)++;
			nbb = skip_bbs(ds, avail);
			set_exec_ci(qp, (uint16_t)(ci + nbb));
			qp_fail(t, qp, opcode, ci, RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_MALFORMED));
			st = MARROW_QPS_ERR;
			work = 1;
			continue;
		}
		/* One WQEBB is always complete and never waits for retries. */
		if (EMU_LIKELY(opcode == MX_OPCODE_RDMA_WRITE && nbb == 1 &&
			       qp->wait_kind == EMU_WAIT_NONE) &&
		    write_inline_1bb(t, qp, w, ds)) {
			set_exec_ci(qp, (uint16_t)(ci + 1));
			work = 1;
			if (mx_ctrl_fm_ce_se(w) & MX_CTRL_CQ_UPDATE)
				emu_cqe_post(t, qp->scq, MX_CQE_REQ, opcode, qp, ci, 0, 0, 0, 0);
			continue;
		}
		if (nbb > avail)
			break;   /* rest of this WQE not posted (or not fetched) yet */
		if (EMU_UNLIKELY(qp->wait_kind != EMU_WAIT_NONE) && emu_now_ns() < qp->retry_at_ns)
			break;   /* between two retries the requester sends nothing */
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
			if (res > RES_WAIT_ACK || res == RES_OK)
				CTR(t, wqe_rdma_write)++;
			break;
		case MX_OPCODE_RDMA_WRITE_IMM:
			res = exec_write(t, qp, w, ds, 1);
			if (res > RES_WAIT_ACK || res == RES_OK)
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
		if (EMU_UNLIKELY(res == RES_WAIT_RNR || res == RES_WAIT_ACK)) {
			res = wait_or_fail(t, qp, res);
			work = 1;
			if (res == RES_OK)
				break;
			/* retries exhausted: res is the error */
		}
		qp->rnr_wait = 0;
		qp->wait_kind = EMU_WAIT_NONE;
		set_exec_ci(qp, (uint16_t)(ci + nbb));
		work = 1;
		if (EMU_UNLIKELY(res != RES_OK)) {
			qp_fail(t, qp, opcode, ci, res);
			st = MARROW_QPS_ERR;
		} else if (mx_ctrl_fm_ce_se(w) & MX_CTRL_CQ_UPDATE) {
			emu_cqe_post(t, qp->scq, MX_CQE_REQ, opcode, qp, ci, 0, 0, 0, 0);
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
	qp->wait_kind = EMU_WAIT_NONE;
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
			emu_cqe_post(t, qp->rcq, MX_CQE_RESP_ERR, 0, qp, (uint16_t)ci, 0, 0,
				     MX_SYND_WR_FLUSH, EMU_VSYND_FLUSH);
			work = 1;
		}
	}
	return work;
}

/* Routes one doorbell taken from u to the QP it names. */
static void doorbell(struct emu_thread *t, struct marrow_emu_qp *self, struct emu_uar *u,
		     uint64_t db)
{
	uint32_t qpn = mx_doorbell_qpn(db);
	struct marrow_emu_qp *qp = u->qps[0];
	uint16_t end;
	uint32_t ahead, cur;

	CTR(t, doorbells_observed)++;
	if (EMU_UNLIKELY(qp->qpn != qpn)) {
		qp = NULL;
		for (uint32_t i = 1; i < u->nqps; i++)
			if (u->qps[i]->qpn == qpn)
				qp = u->qps[i];
		if (qp == NULL) {
			CTR(t, doorbells_dropped)++;   /* no such QP on this page */
			return;
		}
	}
	if (EMU_UNLIKELY(__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) == MARROW_QPS_RESET)) {
		CTR(t, doorbells_dropped)++;
		return;
	}
	end = mx_doorbell_end(db);
	ahead = (uint16_t)(end - qp->exec_ci);
	cur = (uint16_t)(qp->db_target - qp->exec_ci);
	if (ahead <= cur)
		return;   /* the same or an older index: nothing new */
	if (ahead > 0x8000u) {
		CTR(t, doorbells_stale)++;   /* behind what already ran */
		return;
	}
	qp->db_target = end;   /* beyond the SQ size: sq_progress reports the overflow */
	if (qp != self)
		emu_engine_activate(t, qp);
}

/* A slot holds the last 8-byte doorbell stored to it; the engine empties it
 * (one locked exchange, only when it is non-zero). A doorbell value is
 * never 0: it carries a QPN >= EMU_QPN_BASE. The acquire orders the WQE
 * reads after the doorbell, as the producer ordered them before it. */
static inline int take(struct emu_thread *t, struct marrow_emu_qp *qp, struct emu_uar *u,
		       uint64_t *slot)
{
	uint64_t db;

	if (EMU_LIKELY(__atomic_load_n(slot, __ATOMIC_RELAXED) == 0))
		return 0;
	db = __atomic_exchange_n(slot, 0, __ATOMIC_ACQUIRE);
	doorbell(t, qp, u, db);
	return 1;
}

int emu_qp_poll(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	struct emu_uar *u = qp->uar;
	uint32_t st;
	int work;

	work = take(t, qp, u, (uint64_t *)u->page);
	work |= take(t, qp, u, (uint64_t *)(u->page + EMU_UAR_HALF));
	st = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (EMU_LIKELY(st == MARROW_QPS_RTS)) {
		if (qp->db_target != qp->exec_ci || qp->db_target != qp->last_target)
			work |= sq_progress(t, qp, st);
	} else if (st == MARROW_QPS_ERR) {
		work |= sq_progress(t, qp, st);
		work |= rq_flush(t, qp);
	}
	return work;
}

/* Doorbell recovery. Two QPs storing to one shared slot before the engine
 * looks leave only the second doorbell: the first is lost, as a ConnectX
 * loses doorbells it cannot queue. Like the NIC's recovery, the engine then
 * reads the DBR: on a full sweep, a QP on a shared page whose DBR send
 * counter is ahead of every doorbell and unchanged since the previous sweep
 * is served up to the DBR. QPs with a page of their own never need it. */
int emu_qp_recover(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	uint32_t st = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	uint16_t dbr;
	uint32_t ahead;

	if (qp->uar->nqps < 2 || (st != MARROW_QPS_RTS && st != MARROW_QPS_ERR))
		return 0;
	dbr = (uint16_t)mx_be32toh(__atomic_load_n(&qp->dbrec[MX_DBR_SND], __ATOMIC_ACQUIRE));
	ahead = (uint16_t)(dbr - qp->exec_ci);
	if (ahead == 0 || ahead > qp->sq_cnt || ahead <= (uint16_t)(qp->db_target - qp->exec_ci)) {
		qp->dbr_seen = 0;
		return 0;
	}
	if (qp->dbr_seen != (0x10000u | dbr)) {
		qp->dbr_seen = 0x10000u | dbr;   /* look again at the next sweep */
		return 0;
	}
	qp->dbr_seen = 0;
	qp->db_target = dbr;
	CTR(t, doorbell_recoveries)++;
	return 1;
}
