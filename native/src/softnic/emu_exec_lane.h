/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The device engine's lane path (docs/design/device-engine.md §2.4): how an
 * engine thread that owns exactly one QP with a doorbell page of its own
 * serves it, with the QP's, its send CQ's and its peer's hot fields held in
 * registers (struct emu_lane) instead of re-read from global memory for
 * every doorbell. It handles what fast_run handles, the common case: a
 * doorbell naming the QP, in RTS, no retry pending, runs of one-WQEBB
 * inline RDMA WRITEs (fast_shape, fast_remote_ok: the checks fast_span
 * makes, shared with it) and their CQEs to a single-writer CQ. Anything
 * else it hands, untouched, to emu_dev_qp_poll_own (the core's rules,
 * counters and CQEs), then reloads its registers. The counters, CQE bytes
 * and the QP fields it writes are those the core writes for the same WQEs.
 *
 * What it saves against the core's path, per doorbell: the QP, CQ and peer
 * fields are not reloaded after the doorbell's acquire (which empties L1);
 * the fast WQEs run 32 at a time, one per lane of the engine warp (a GPU
 * thread runs this scalar code at one dependent instruction every few
 * cycles: one WQE per thread took ~0.5 us); the first WQEs' loads go out
 * with the two state reads (one round trip); the CQE is built from a
 * per-QP template in registers; one release per CQE orders the payloads
 * and the CQE body before the CQE's last word. The QP's and the CQ's own
 * fields (db_target, last_target, fetch_pi, exec_ci; the CQ's prod), which
 * only this engine thread and a stopped engine's snapshots read, are stored
 * after that release: before it, the release's membar also waited for the
 * acknowledgement of those two lines' stores (docs/design/device-engine.md
 * §2.7).
 *
 * Included by emu_exec_core.h, device builds only, once per scope (the
 * includer's namespace); uses the core's helpers and EMU_DEV_SYS.
 */

#if defined(__CUDACC__)


struct emu_lane {
	struct marrow_emu_qp *qp;
	const uint8_t *sq;
	struct marrow_emu_cq *cq;
	uint8_t *cqbuf;
	const struct marrow_emu_qp *peer;
	const struct marrow_emu_pd *peer_pd;
	uint64_t ctrl_ds3;          /* fast_shape's pattern for this QP */
	uint64_t mr_base, mr_len;   /* fast_remote_ok's cache */
	uint4 cqe[3];               /* CQE bytes 0..47 as cqe_body encodes them for this QP */
	uint32_t cqe_sop_qpn;       /* CQE bytes 56..59 */
	uint32_t key_be;
	uint32_t qpn, sq_mask, sq_cnt, sh_cnt;
	uint32_t cq_mask, cq_log_n, cq_check;   /* cq_check: overruns are checked */
	/* Mirrors of fields only this engine thread writes while it runs. */
	uint32_t prod, ci_seen, in_error;
	uint16_t ci, tgt, last, fpi;   /* exec_ci, db_target, last_target, fetch_pi */
	uint32_t core_only;            /* a retry wait or an RQ: the core polls every pass */
	int on;                        /* 0: the QP is not the lane path's */
	/* Counters not yet added to the engine thread's (emu_lane_flush): in
	 * registers, because a bump of the thread's counters is a load and a
	 * store of its private memory on every doorbell. */
	uint32_t n_observed, n_dbrec, n_fetched, n_runs, n_writes, n_cqes;
	uint64_t n_bytes;
};

/* The lane path's counters, none yet. */
EMU_CORE_INLINE void emu_lane_zero(struct emu_lane *L)
{
	L->n_observed = L->n_dbrec = L->n_fetched = L->n_runs = L->n_writes = L->n_cqes = 0;
	L->n_bytes = 0;
}

/* The lane path's counters into the engine thread's (which the engine loop
 * publishes): before each publication and at exit. */
EMU_CORE_INLINE void emu_lane_flush(struct emu_thread *t, struct emu_lane *L)
{
	CTR(t, doorbells_observed) += L->n_observed;
	CTR(t, dbrec_advances) += L->n_dbrec;
	CTR(t, wqebb_fetched) += L->n_fetched;
	CTR(t, fetch_runs) += L->n_runs;
	CTR(t, wqe_rdma_write) += L->n_writes;
	CTR(t, inline_bytes) += L->n_bytes;
	CTR(t, payload_bytes_tx) += L->n_bytes;
	CTR(t, payload_bytes_rx) += L->n_bytes;
	CTR(t, cqe_req) += L->n_cqes;
	emu_lane_zero(L);
}

/* The mirrors, from memory (at set-up, and after the core ran). */
EMU_CORE_INLINE void emu_lane_reload(struct emu_lane *L)
{
	const struct marrow_emu_qp *qp = L->qp;

	L->ci = qp->exec_ci;
	L->tgt = qp->db_target;
	L->last = qp->last_target;
	L->fpi = qp->fetch_pi;
	L->core_only = qp->wait_kind != EMU_WAIT_NONE || qp->rq_cnt != 0;
	L->prod = EMU_LD_RLX(&L->cq->prod);
	L->ci_seen = EMU_LD_RLX(&L->cq->ci_seen);
	L->in_error = EMU_LD_RLX(&L->cq->in_error);
}

/* Whether qp can be the lane path's: a page of its own, a send CQ this
 * thread alone writes (not collapsed), a peer that takes WRITEs. Everything
 * read here is fixed while the engine runs. */
EMU_CORE_INLINE void emu_lane_setup(struct emu_lane *L, struct marrow_emu_qp *qp)
{
	const struct marrow_emu_cq *cq = qp->scq;
	const struct marrow_emu_qp *peer = qp->peer;
	uint8_t tmp[MX_CQE_SIZE] __attribute__((aligned(16)));

	L->on = 0;
	L->qp = qp;
	if (qp->uar->nqps > 1 || cq == NULL || cq->multi_writer || (cq->flags & MARROW_EMU_CQ_COLLAPSED) ||
	    peer == NULL || !(peer->access & MARROW_ACCESS_REMOTE_WRITE))
		return;
	L->sq = qp->sq;
	L->cq = qp->scq;
	L->cqbuf = cq->buf;
	L->peer = peer;
	L->peer_pd = peer->pd;
	L->qpn = qp->qpn;
	L->ctrl_ds3 = ((uint64_t)mx_htobe32((qp->qpn << 8) | 3u) << 32) | ((uint64_t)MX_OPCODE_RDMA_WRITE << 24);
	L->key_be = 0;
	L->mr_base = L->mr_len = 0;
	L->sq_mask = qp->sq_mask;
	L->sq_cnt = qp->sq_cnt;
	L->sh_cnt = qp->sh_cnt;
	L->cq_mask = cq->mask;
	L->cq_log_n = cq->log_n;
	L->cq_check = !(cq->flags & MARROW_EMU_CQ_OVERRUN_IGNORE);
	/* The body fast_run's CQEs share (wqe_counter, timestamp and op_own
	 * are set per CQE). */
	cqe_body(tmp, MX_OPCODE_RDMA_WRITE, qp, 0, 0, 0, 0, 0);
	L->cqe[0] = *(const uint4 *)(tmp + 0);
	L->cqe[1] = *(const uint4 *)(tmp + 16);
	L->cqe[2] = *(const uint4 *)(tmp + 32);
	L->cqe_sop_qpn = *(const uint32_t *)(tmp + MX_CQE_OFF_SOP_DROP_QPN);
	L->on = 1;
	emu_lane_zero(L);
	emu_lane_reload(L);
}

/* Nothing to do unless a doorbell comes: what sndev_qp_quiet says of the
 * QP in memory, from the mirrors. */
EMU_CORE_INLINE bool emu_lane_quiet(const struct emu_lane *L)
{
	return !L->core_only && L->ci == L->tgt && L->tgt == L->last && L->fpi == L->ci;
}

/* The core's entry points as the lane path calls them: out of line, so
 * the kernel holds one copy of the core per call target, not one per call
 * site (each inlined copy is most of the kernel; compile time and the
 * instruction cache both pay for copies). The lane kernel's loop calls the
 * first one for its other QPs too. */
static __device__ __noinline__ int emu_lane_poll_own_call(struct emu_thread *t, struct marrow_emu_qp *qp, uint64_t v0,
							 uint64_t v1, uint32_t fresh)
{
	return emu_dev_qp_poll_own(t, qp, v0, v1, fresh);
}
static __device__ __noinline__ int emu_lane_poll_call(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	return emu_qp_poll(t, qp);
}
static __device__ __noinline__ int emu_lane_execute_call(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	return execute(t, qp, MARROW_QPS_RTS);
}

/* What emu_dev_lane_poll answers: 0 nothing done, 1 work done, or a
 * request that the core take over (emu_lane_core). The poll itself calls
 * nothing out of line: a call into the core (which uses every register)
 * anywhere in the loop that runs it made ptxas keep the loop's live values
 * in local memory, which the doorbell's acquire (CCTL.IVALL on sm_90)
 * empties from L1, so the reloads after it went to L2 on the WQE path
 * (docs/design/device-engine.md §2.6). */
enum {
	EMU_LANE_IDLE = 0,
	EMU_LANE_WORK = 1,
	EMU_LANE_CORE_POLL = 2,   /* the doorbell (or the pass), untouched: emu_dev_qp_poll_own */
	EMU_LANE_CORE_EXECUTE = 3, /* the fast WQEs ran; the rest of sq_progress is execute()'s */
	EMU_LANE_CORE_PTR = 4      /* as _EXECUTE, the WQE at exec_ci a pointer WRITE: emu_lane_ptr_run's */
};

/* A pointer WRITE's payload up to this many bytes is copied by lane 0
 * alone, with no shuffle between the WQE's checks and its CQE (the 8-byte
 * put+completion's case); a larger one by the whole warp. */
enum { EMU_LANE_SOLO_COPY = 64 };

/* n bytes from s to d (fast_ptr_check: not overlapping) by one thread, in
 * the widest accesses both alignments allow. */
EMU_CORE_INLINE void emu_lane_copy1(uint64_t d, uint64_t s, uint32_t n)
{
	uint8_t *const dp = (uint8_t *)(uintptr_t)d;
	const uint8_t *const sp = (const uint8_t *)(uintptr_t)s;
	uint32_t i = 0;

	if (((d | s) & 7) == 0) {
#pragma unroll 1
		for (; i + 8 <= n; i += 8)
			*(uint64_t *)(dp + i) = *(const uint64_t *)(sp + i);
	} else if (((d | s) & 3) == 0) {
#pragma unroll 1
		for (; i + 4 <= n; i += 4)
			*(uint32_t *)(dp + i) = *(const uint32_t *)(sp + i);
	}
#pragma unroll 1
	for (; i < n; i++)
		dp[i] = sp[i];
}

/* The T-sized part of an n-byte copy by the warp (lane: this lane's
 * index): each lane has up to four loads in flight before it stores, so a
 * 4 KiB payload in 16-byte pieces is two dependent round trips, not eight.
 * Returns the bytes copied (a multiple of sizeof(T)). */
template <typename T>
__device__ __forceinline__ uint32_t emu_lane_copy_w(uint8_t *d, const uint8_t *s, uint32_t n, uint32_t lane)
{
	const uint32_t cnt = n / (uint32_t)sizeof(T);
	T *const dp = (T *)d;
	const T *const sp = (const T *)s;

#pragma unroll 1
	for (uint32_t k = lane; k < cnt; k += 4 * 32) {
		T v[4];

#pragma unroll
		for (uint32_t j = 0; j < 4; j++)
			if (k + 32 * j < cnt)
				v[j] = sp[k + 32 * j];
#pragma unroll
		for (uint32_t j = 0; j < 4; j++)
			if (k + 32 * j < cnt)
				dp[k + 32 * j] = v[j];
	}
	return cnt * (uint32_t)sizeof(T);
}

/* n bytes from s to d (not overlapping) by the 32 lanes, in the widest
 * accesses both alignments allow, the tail byte by byte. */
EMU_CORE_INLINE void emu_lane_copy32(uint64_t d, uint64_t s, uint32_t n, uint32_t lane)
{
	uint8_t *const dp = (uint8_t *)(uintptr_t)d;
	const uint8_t *const sp = (const uint8_t *)(uintptr_t)s;
	const uint64_t al = d | s;
	uint32_t i;

	if ((al & 15) == 0)
		i = emu_lane_copy_w<uint4>(dp, sp, n, lane);
	else if ((al & 7) == 0)
		i = emu_lane_copy_w<unsigned long long>(dp, sp, n, lane);
	else if ((al & 3) == 0)
		i = emu_lane_copy_w<uint32_t>(dp, sp, n, lane);
	else
		i = 0;
#pragma unroll 1
	for (i += lane; i < n; i += 32)
		dp[i] = sp[i];
}

EMU_CORE_INLINE void emu_lane_cqe(struct emu_thread *t, struct emu_lane *L, uint16_t wc);
EMU_CORE_INLINE void emu_lane_share_cq(struct emu_lane *L);

/* The pointer WRITE at exec_ci (the lane poll stopped at it, with every
 * earlier WQE executed and the QP's fields stored), run on the lane path
 * (docs/design/device-engine.md §2.8): exec_write's checks for such a WQE
 * (fast_ptr_check, with the lane's rkey cache and the engine thread's lkey
 * cache), the payload copied by lane 0 or, when large, by the warp, then
 * lane 0's CQE (emu_lane_cqe, the same bytes as cqe_commit's), exec_ci and
 * the counters execute() would add. Returns false, with nothing changed,
 * when the WQE is not one it runs (then it is execute()'s). All 32 lanes,
 * converged; out of line and outside the lane loop (sndev_lane_serve calls
 * it through emu_lane_core): inlined there, it cost the loop's registers
 * (sndev_lane_run spilled 330 bytes, check_lane_registers). */
static __device__ __noinline__ bool emu_lane_ptr_run(struct emu_thread *t, struct emu_lane *L)
{
	const unsigned all = 0xffffffffu;
	const uint32_t lane = threadIdx.x & 31u;
	const uint16_t ci = L->ci;
	struct marrow_emu_qp *const qp = L->qp;
	struct fast_ptr_wqe pw;
	uint32_t n = 0, sig = 0;

	pw.raddr = pw.src0 = pw.src1 = 0;
	pw.n0 = pw.n1 = 0;
	if (lane == 0) {
		/* The WQE (the lane loop just loaded it: L1), the peer's state
		 * (relaxed, as the lane loop reads it), the QP's PD and the lkey
		 * cache: loads that do not depend on each other. */
		const uint4 *p = (const uint4 *)(L->sq + (size_t)(ci & L->sq_mask) * MX_WQEBB_SIZE);
		const uint4 q0 = p[0], q1 = p[1], q2 = p[2], q3 = p[3];
		const uint32_t pst = EMU_LD_RLX(&L->peer->state);
		const struct marrow_emu_pd *pd = qp->pd;
		struct emu_d_mr_cache *const lc = EMU_D_LKEY_CACHE(t);
		/* Another PD's MR is no MR: key 0 and length 0, which fail every
		 * check (fast_remote_ok's rule for an empty cache). */
		const bool same_pd = lc->pd == pd;
		uint32_t lkey = same_pd ? lc->key_be : 0u;
		uint64_t lbase = same_pd ? lc->base : 0u, llen = same_pd ? lc->len : 0u;

		if (pst == MARROW_QPS_RTS || pst == MARROW_QPS_RTR)
			n = fast_ptr_check(t->dev, pd, L->peer_pd, L->ctrl_ds3, ci,
					   (uint64_t)q0.x | ((uint64_t)q0.y << 32), q1.x, q1.y, q1.z, q2.x, q2.y, q2.z,
					   q2.w, q3.x, q3.y, q3.z, q3.w, &lkey, &lbase, &llen, &L->key_be, &L->mr_base,
					   &L->mr_len, &pw);
		if (n != 0) {
			if (lkey != 0) {
				lc->key_be = lkey;
				lc->pd = pd;
				lc->base = lbase;
				lc->len = llen;
			}
			sig = ((q0.z >> 24) & MX_CTRL_CQ_UPDATE) != 0;
			if (n <= EMU_LANE_SOLO_COPY) {
				emu_lane_copy1(pw.raddr, pw.src0, pw.n0);
				emu_lane_copy1(pw.raddr + pw.n0, pw.src1, pw.n1);
				EMU_STAGE(t, qp, EMU_STAGE_EXECUTED);
				if (sig)
					emu_lane_cqe(t, L, ci);
				EMU_STAGE(t, qp, EMU_STAGE_CQE);
			}
		}
	}
	n = __shfl_sync(all, n, 0);
	if (n == 0)
		return false;
	sig = __shfl_sync(all, sig, 0);
	if (n > EMU_LANE_SOLO_COPY) {
		const uint64_t d = __shfl_sync(all, (unsigned long long)pw.raddr, 0);
		const uint32_t n0 = __shfl_sync(all, pw.n0, 0);

		emu_lane_copy32(d, __shfl_sync(all, (unsigned long long)pw.src0, 0), n0, lane);
		emu_lane_copy32(d + n0, __shfl_sync(all, (unsigned long long)pw.src1, 0), __shfl_sync(all, pw.n1, 0),
				lane);
		/* Every lane's bytes before lane 0's CQE releases (as in a
		 * round of the lane loop). */
		__syncwarp();
		if (lane == 0) {
			EMU_STAGE(t, qp, EMU_STAGE_EXECUTED);
			if (sig)
				emu_lane_cqe(t, L, ci);
			EMU_STAGE(t, qp, EMU_STAGE_CQE);
		}
	}
	if (lane == 0) {
		CTR(t, wqe_rdma_write)++;
		CTR(t, gather_bytes) += n;
		CTR(t, payload_bytes_tx) += n;
		CTR(t, payload_bytes_rx) += n;
		emu_d_st_rel(&qp->exec_ci, (uint16_t)(ci + 1));
	}
	L->ci = (uint16_t)(ci + 1);
	if (sig)
		emu_lane_share_cq(L);
	return true;
}

/* The core takes over, as the lane poll asked (request EMU_LANE_CORE_*),
 * and the registers follow what it did; returns what the pass did (0 or
 * 1). Called by all 32 lanes, converged, from outside the loop that runs
 * the poll. For CORE_POLL it is the same call the engine loop makes for a
 * QP that is not the lane path's, with the pass's slot values. For
 * CORE_EXECUTE the WQE the fast run stopped at is execute()'s, as in the
 * core (which reads the shadow: where the shadow is not the SQ itself, the
 * WQEs are first copied into it, the copy fetch() would have made). */
EMU_CORE_INLINE int emu_lane_core(struct emu_thread *t, struct emu_lane *L, int request, uint64_t v0, uint64_t v1,
				  uint32_t fresh)
{
	struct marrow_emu_qp *const qp = L->qp;
	int work = 1;

	/* Lane 0 is the engine thread; the barrier orders its writes before
	 * the other lanes' reloads. */
	if (request == EMU_LANE_CORE_PTR) {
		if (emu_lane_ptr_run(t, L)) {
			__syncwarp();
			emu_lane_reload(L);
			return 1;
		}
		request = EMU_LANE_CORE_EXECUTE;   /* not one it runs: execute()'s */
	}
	if ((threadIdx.x & 31u) == 0) {
		if (request == EMU_LANE_CORE_POLL) {
			work = emu_lane_poll_own_call(t, qp, v0, v1, fresh);
		} else {
			if (qp->shadow != qp->sq)
				shadow_fill(qp, L->ci, (uint16_t)(L->fpi - L->ci));
			(void)emu_lane_execute_call(t, qp);
		}
	}
	__syncwarp();
	emu_lane_reload(L);
	return __shfl_sync(0xffffffffu, work, 0);
}

/* Word k (0..6) of w, without indexing (an indexed array would live in
 * local memory). */
EMU_CORE_INLINE uint32_t emu_lane_word(const uint4 &a, const uint4 &b, uint32_t k)
{
	return k == 0 ? a.y : k == 1 ? a.z : k == 2 ? a.w : k == 3 ? b.x : k == 4 ? b.y : k == 5 ? b.z : b.w;
}

/* Stores the n (1..28) payload bytes of an inline segment at raddr: the
 * segment's data is WQE bytes 36..63, the words a.y..a.w (quarter 2) and
 * b.x..b.w (quarter 3) as loaded (little-endian). The widest stores
 * raddr's alignment allows; short loops, not unrolled (code size). */
EMU_CORE_INLINE void emu_lane_store(uint64_t raddr, const uint4 &a, const uint4 &b, uint32_t n)
{
	uint8_t *const d = (uint8_t *)(uintptr_t)raddr;

	if ((raddr & 7) == 0 && n == 8) {
		*(uint64_t *)d = (uint64_t)a.y | ((uint64_t)a.z << 32);
		return;
	}
	uint32_t i = 0;

	if ((raddr & 3) == 0) {
#pragma unroll 1
		for (; i + 4 <= n; i += 4)
			*(uint32_t *)(d + i) = emu_lane_word(a, b, i / 4);
	}
#pragma unroll 1
	for (; i < n; i++)
		d[i] = (uint8_t)(emu_lane_word(a, b, i / 4) >> (8 * (i % 4)));
}

/* The CQE of the signaled fast WQE wc: what cqe_commit does for a
 * single-writer CQ that is not collapsed, with the CQ's prod stored after
 * the CQE's release (only this thread moves it). */
EMU_CORE_INLINE void emu_lane_cqe(struct emu_thread *t, struct emu_lane *L, uint16_t wc)
{
	struct marrow_emu_cq *cq = L->cq;
	const uint32_t p = L->prod;

	if (EMU_UNLIKELY(L->in_error))
		return;
	L->prod = p + 1;
	/* The core's overrun rule (cqe_commit), with the mask and the
	 * consumer index seen last in registers. */
	if (L->cq_check && EMU_UNLIKELY(!cq_room(cq, L->cq_mask, p, &L->ci_seen))) {
		EMU_ST_RLX(&cq->prod, p + 1);
		L->in_error = 1;
		cq_overrun(t, cq);
		return;
	}
	uint8_t *cqe = L->cqbuf + (size_t)(p & L->cq_mask) * MX_CQE_SIZE;
	const uint64_t ts_be = mx_htobe64(emu_cqe_clock());

	*(uint4 *)(cqe + 0) = L->cqe[0];
	*(uint4 *)(cqe + 16) = L->cqe[1];
	*(uint4 *)(cqe + 32) = L->cqe[2];
	*(uint2 *)(cqe + MX_CQE_OFF_TIMESTAMP) = make_uint2((uint32_t)ts_be, (uint32_t)(ts_be >> 32));
	*(uint32_t *)(cqe + MX_CQE_OFF_SOP_DROP_QPN) = L->cqe_sop_qpn;
	L->n_cqes++;
	/* wqe_counter, signature 0, op_own: one release store, as cqe_commit
	 * publishes them (the payloads and bytes 0..59 before it). */
	EMU_ST_REL((uint32_t *)(cqe + MX_CQE_OFF_WQE_COUNTER),
		   (uint32_t)mx_htobe16(wc) |
			   ((uint32_t)mx_cqe_op_own_value(MX_CQE_REQ, (p >> L->cq_log_n) & 1u) << 24));
	EMU_ST_RLX(&cq->prod, p + 1);
}

/* One WQE's four 16-byte quarters. */
struct emu_lane_wqe {
	uint4 q[4];
};

/* The lane's WQE ci when on (the lane has one this round), else zeros:
 * a lane without a WQE must not keep the previous round's values, which
 * would have to live in memory across the conditional load (a home in
 * local memory, which the doorbell's acquire empties from L1). */
EMU_CORE_INLINE void emu_lane_load(const struct emu_lane *L, uint16_t ci, bool on, struct emu_lane_wqe *w)
{
	const uint4 *p = (const uint4 *)(L->sq + (size_t)(ci & L->sq_mask) * MX_WQEBB_SIZE);

#pragma unroll
	for (int k = 0; k < 4; k++)
		w->q[k] = on ? p[k] : make_uint4(0, 0, 0, 0);
}

/* fast_span's checks of one WQE (quarters q, index ci; the peer's state
 * pst), as exec_write makes them: whether it is a fast WQE, with its
 * payload length *n, remote address *raddr and whether it asks for a CQE. */
EMU_CORE_INLINE bool emu_lane_fast(struct emu_lane *L, const struct marrow_emu_device *dev, const uint4 *q,
				   uint16_t ci, uint32_t pst, uint32_t *n, uint64_t *raddr, bool *sig)
{
	*n = fast_shape((uint64_t)q[0].x | ((uint64_t)q[0].y << 32), q[2].x, L->ctrl_ds3, ci);
	*raddr = ((uint64_t)mx_be32toh(q[1].x) << 32) | mx_be32toh(q[1].y);
	const bool ok = *n != 0 && (pst == MARROW_QPS_RTS || pst == MARROW_QPS_RTR) &&
			fast_remote_ok(dev, L->peer_pd, q[1].z, *raddr, *n, &L->key_be, &L->mr_base, &L->mr_len);

	/* fm_ce_se is control byte 11. */
	*sig = ok && ((q[0].z >> 24) & MX_CTRL_CQ_UPDATE) != 0;
	return ok;
}

/* Whether WQE ci (quarters q) has a pointer WRITE's shape
 * (fast_ptr_shape): the lane path's (emu_lane_ptr_run) when its checks
 * pass. Register work only. */
EMU_CORE_INLINE bool emu_lane_ptr_shape(const struct emu_lane *L, const uint4 *q, uint16_t ci)
{
	return fast_ptr_shape((uint64_t)q[0].x | ((uint64_t)q[0].y << 32), q[2].x, q[3].x, L->ctrl_ds3, ci) != 0;
}

/* The signaled fast WQE wc executed (its payload stored, ordered before
 * this): its CQE (exec_ci is stored once, when emu_dev_lane_poll returns).
 * Lane 0. */
EMU_CORE_INLINE void emu_lane_complete(struct emu_thread *t, struct emu_lane *L, uint16_t wc)
{
	EMU_STAGE(t, L->qp, EMU_STAGE_EXECUTED);
	emu_lane_cqe(t, L, wc);
	EMU_STAGE(t, L->qp, EMU_STAGE_CQE);
}

/* Lane 0 wrote CQEs: the CQ mirrors and the CQE count, from lane 0 to the
 * warp. */
EMU_CORE_INLINE void emu_lane_share_cq(struct emu_lane *L)
{
	const unsigned all = 0xffffffffu;

	L->prod = __shfl_sync(all, L->prod, 0);
	L->ci_seen = __shfl_sync(all, L->ci_seen, 0);
	L->in_error = __shfl_sync(all, L->in_error, 0);
	L->n_cqes = __shfl_sync(all, L->n_cqes, 0);
}

/* The engine loop's call for the lane QP, made by all 32 lanes of the
 * engine warp together (converged), with the slot values lane 0 loaded and
 * which are doorbells not yet taken (as emu_dev_qp_poll_own). Does what
 * emu_dev_qp_poll_own would: take the doorbell (doorbell_own), then one
 * sq_progress (one fetch, then execute). Every lane keeps the same struct
 * emu_lane (they make the same loads and the same register updates); lane 0
 * alone writes the QP's and the CQ's fields and the CQEs. The fast WQEs run
 * 32 at a time, lane i taking WQE exec_ci + i: its loads, fast_span's
 * checks (fast_shape, fast_remote_ok) and its payload store; the run ends
 * before the first WQE that fails a check. Returns EMU_LANE_IDLE or _WORK,
 * or asks for the core (EMU_LANE_CORE_POLL: before anything was changed;
 * EMU_LANE_CORE_EXECUTE: for the WQE the run stopped at, untouched), which
 * the caller then gives it with emu_lane_core. */
EMU_CORE_INLINE int emu_dev_lane_poll(struct emu_thread *t, struct emu_lane *L, uint64_t v0, uint64_t v1,
				      uint32_t fresh)
{
	const unsigned all = 0xffffffffu;
	const uint32_t lane = threadIdx.x & 31u;
	const bool lead = lane == 0;
	struct marrow_emu_qp *const qp = L->qp;
	const struct marrow_emu_device *dev = t->dev;
	uint16_t ci = L->ci, tgt = L->tgt;

	if (fresh == 3u || L->core_only || L->in_error)
		return EMU_LANE_CORE_POLL;
	if (fresh == 0 && emu_lane_quiet(L))
		return EMU_LANE_IDLE;   /* the core would not call sq_progress either */
	if (fresh != 0) {
		const uint64_t db = fresh == 1u ? v0 : v1;
		const uint16_t end = mx_doorbell_end(db);
		const uint32_t ahead = (uint16_t)(end - ci);

		/* The acquire half of taking the doorbell (emu_dev_qp_poll_own),
		 * on every lane: each lane loaded the slot, and each lane's WQE
		 * loads follow its own acquire. */
		emu_d_fence_acq();
		EMU_STAGE(t, qp, EMU_STAGE_TAKEN);
		/* Another QPN, nothing new, stale or beyond the SQ: the core's
		 * counters and reports. */
		if (mx_doorbell_qpn(db) != L->qpn || ahead <= (uint16_t)(tgt - ci) || ahead > L->sq_cnt)
			return EMU_LANE_CORE_POLL;
		tgt = end;
	}
	/* fetch(): up to the shadow window past exec_ci, once per call. */
	uint32_t want = (uint16_t)(tgt - ci);
	const uint32_t have = (uint16_t)(L->fpi - ci);

	if (want > L->sh_cnt)
		want = L->sh_cnt;
	const uint16_t fpi = have < want ? (uint16_t)(ci + want) : L->fpi;
	/* The first WQEs (one per lane), the QP's state and the peer's state in
	 * one round trip (relaxed state reads, as emu_dev_qp_poll_own and
	 * fast_span make them). */
	uint32_t m = (uint16_t)(fpi - ci);
	struct emu_lane_wqe w;

	if (m > 32)
		m = 32;
	emu_lane_load(L, (uint16_t)(ci + lane), lane < m, &w);
	const uint32_t st = EMU_LD_RLX(&qp->state);
	uint32_t pst = EMU_LD_RLX(&L->peer->state);

	if (EMU_UNLIKELY(st != MARROW_QPS_RTS))
		return EMU_LANE_CORE_POLL;
	/* Committed: from here on this is the core's RTS path. */
	if (fresh != 0)
		L->n_observed++;
	if (tgt != L->last) {
		L->n_dbrec++;
		L->last = tgt;
	}
	if (have < want) {
		const uint32_t n = want - have;

		L->n_fetched += n;
		L->n_runs += ((L->fpi & L->sq_mask) + n > L->sq_cnt) ? 2 : 1;
	}
	EMU_STAGE(t, qp, EMU_STAGE_FETCHED);
	L->tgt = tgt;
	L->fpi = fpi;

	bool stop = false;
	/* Where a run stops: execute()'s WQE, or a pointer WRITE (§2.8). */
	int req = EMU_LANE_CORE_EXECUTE;

	if (m == 1) {
		/* One WQE (put+completion's case): lane 0 runs it alone, with no
		 * warp round, whose votes and shuffles would sit between the
		 * WQE's loads and its CQE (docs/design/device-engine.md §2.6).
		 * The same checks, store and CQE as a round of one. */
		uint32_t n = 0;
		uint64_t raddr = 0;
		bool ok = false, sig = false, psh = false;

		if (lead) {
			ok = emu_lane_fast(L, dev, w.q, ci, pst, &n, &raddr, &sig);
			if (ok) {
				emu_lane_store(raddr, w.q[2], w.q[3], n);
				if (sig)
					emu_lane_complete(t, L, ci);
			} else {
				psh = emu_lane_ptr_shape(L, w.q, ci);   /* §2.8 */
			}
		}
		if (__shfl_sync(all, (uint32_t)ok, 0)) {
			L->n_writes++;
			L->n_bytes += __shfl_sync(all, n, 0);
			ci = (uint16_t)(ci + 1);
			if (__shfl_sync(all, (uint32_t)sig, 0))
				emu_lane_share_cq(L);
		} else {
			stop = true;
			if (__shfl_sync(all, (uint32_t)psh, 0))
				req = EMU_LANE_CORE_PTR;
		}
	}
	while (!stop && ci != fpi) {
		/* Lane i: WQE ci + i (i < m), loaded above or at the end of the
		 * previous round. */
		const uint4 *q = w.q;
		uint32_t n = 0;
		uint64_t raddr = 0;
		bool ok = false, sig = false;

		if (lane < m)
			ok = emu_lane_fast(L, dev, q, (uint16_t)(ci + lane), pst, &n, &raddr, &sig);
		/* A WQE the round stops at may be a pointer WRITE (§2.8). */
		const bool psh = !ok && emu_lane_ptr_shape(L, q, (uint16_t)(ci + lane));
		const uint32_t bad = __ballot_sync(all, lane < m && !ok);
		const uint32_t k = bad ? (uint32_t)(__ffs(bad) - 1) : m;   /* WQEs this round executes */
		const bool mine = lane < k;

		/* The payloads, as WQEs executed in order would leave them: where
		 * the k ranges are all the same (the rate benchmarks' one slot
		 * per QP), the last WQE's bytes; where each ends before the next
		 * begins, all at once; otherwise one lane after the other. */
		const uint64_t lo0 = __shfl_sync(all, (unsigned long long)raddr, 0);
		const uint32_t n0 = __shfl_sync(all, n, 0);
		const uint64_t next_lo = __shfl_down_sync(all, (unsigned long long)raddr, 1);

		if (__all_sync(all, !mine || (raddr == lo0 && n == n0))) {
			if (k != 0 && lane == k - 1)
				emu_lane_store(raddr, q[2], q[3], n);
		} else if (__all_sync(all, !(lane + 1 < k) || raddr + n <= next_lo)) {
			if (mine)
				emu_lane_store(raddr, q[2], q[3], n);
		} else {
			for (uint32_t j = 0; j < k; j++) {
				if (lane == j)
					emu_lane_store(raddr, q[2], q[3], n);
				__syncwarp();
			}
		}
		/* Every lane's payload before lane 0's CQE releases (the barrier
		 * orders them; a release is cumulative over what is ordered
		 * before it). */
		__syncwarp();
		uint32_t sigs = __ballot_sync(all, mine && sig);
		const uint32_t bytes = __reduce_add_sync(all, mine ? n : 0u);

		L->n_writes += k;
		L->n_bytes += bytes;
		if (sigs != 0) {
			if (lead) {
				while (sigs != 0) {
					const uint32_t s = (uint32_t)(__ffs(sigs) - 1);

					sigs &= sigs - 1;
					emu_lane_complete(t, L, (uint16_t)(ci + s));
				}
			}
			emu_lane_share_cq(L);
		}
		if (k < m) {
			stop = true;
			if (__shfl_sync(all, (uint32_t)psh, k))
				req = EMU_LANE_CORE_PTR;
			ci = (uint16_t)(ci + k);
			break;
		}
		ci = (uint16_t)(ci + k);
		m = (uint16_t)(fpi - ci);
		if (m > 32)
			m = 32;
		emu_lane_load(L, (uint16_t)(ci + lane), lane < m, &w);
		pst = EMU_LD_RLX(&L->peer->state);
	}
	/* The QP's fields, after the CQEs' releases (see the top of this
	 * file): the core reads them when it has the QP next. */
	if (lead) {
		qp->db_target = L->tgt;
		qp->last_target = L->tgt;
		qp->fetch_pi = L->fpi;
		emu_d_st_rel(&qp->exec_ci, ci);
	}
	L->ci = ci;
	/* A WQE fast_span would stop at: the rest of sq_progress is
	 * execute()'s (emu_lane_core). */
	return stop ? req : EMU_LANE_WORK;
}

#endif /* __CUDACC__ */
