/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda posting path: ONE algorithm, compiled for CUDA device code (the
 * GPU kernels in src/gda/gda_kernels.cu) and for host C (the CPU executor in
 * src/gda/gda_cpu.c), so both targets run the same steps on the same mlx5 queues:
 *
 *   1. reserve a WQE slot (free-running WQEBB producer counter pi);
 *   2. build an RC RDMA_WRITE (inline up to the QP maximum, or one pointer
 *      data segment) with the shared encoders of mlx5_wqe.h;
 *   3. order (the variant, see below);
 *   4. store the SQ doorbell record (BE32 of pi & 0xffff);
 *   5. ring the doorbell: one ordered 8-byte store of the NVSHMEM/DOCA-style
 *      doorbell value (exclusive producer index, opcode 0, ds 0);
 *   6. poll the CQ by the owner bit (normal CQ) or by wqe_counter (collapsed).
 *
 * Every wait here is bounded by a nanosecond budget and returns
 * MARROW_ETIMEDOUT instead of spinning forever; error CQEs return MARROW_EIO
 * (never treated as "not yet", cf. NVIDIA/nccl#2383).
 *
 * ORDERING VARIANTS (Table 4 of the paper "GPU-Initiated Communication: Dissecting Down to the Bone"). `ord` is always a compile-time constant
 * at the call site (a template parameter of the kernel, a macro-instantiated
 * loop on the host), and every function here is force-inlined, so the switch
 * statements fold away and each variant compiles to its own straight line.
 *
 * The doorbell (DB) is always ONE st.mmio.relaxed.sys.global.b64 (gpu_prims.h
 * gpu_mmio_write64_db; DOCA rings with the same store); the release variants
 * put a fence of their scope right before it (fence + relaxed store is the
 * PTX release pattern: st.release cannot carry .mmio).
 *
 *  variant          steps 3-5 on the GPU (PTX emitted)                   orders, for observers of scope
 *  ---------------  ---------------------------------------------------  ----------------------------------
 *  none             DBR st.relaxed.sys.b32; DB                           nothing (unsafe control)
 *  gpu-fence        fence.acq_rel.gpu; DBR st.relaxed.sys; DB            WQE -> DBR, WQE -> DB; not DBR -> DB;
 *                   (DOCA / GDAKI: one fence, before the record)         GPU scope
 *  gpu-fence-dbrec  fence.acq_rel.gpu; DBR st.relaxed.sys;               WQE -> DBR, WQE+DBR -> DB; GPU scope
 *                   fence.acq_rel.gpu; DB (NVSHMEM's fenced DBR)
 *  release-gpu      DBR st.release.gpu.b32; fence.acq_rel.gpu; DB        WQE -> DBR, WQE+DBR -> DB; GPU scope
 *                   (DeepEP's release stores)
 *  threadfence      membar.gl (= fence.sc.gpu, __threadfence()); DBR;    WQE -> DBR, WQE+DBR -> DB; GPU scope
 *                   membar.gl; DB (NVSHMEM default)                      (sequentially consistent fences)
 *  release-sys      DBR st.release.sys.b32; fence.acq_rel.sys; DB        WQE -> DBR, WQE+DBR -> DB; system
 *  fence-sys        membar.sys (= fence.sc.sys, __threadfence_system()); WQE -> DBR, WQE -> DB; not DBR -> DB;
 *                   DBR st.relaxed.sys; DB                               system scope
 *
 * "WQE" includes every earlier store of the thread, so a pointer payload
 * written into the source buffer before the post is ordered with it, at the
 * same scope. gpu-fence and fence-sys do not order DBR -> DB: a ConnectX (and
 * the software NIC, docs/design/softnic-fidelity.md D6) takes the producer
 * index from the doorbell and reads the DBR only to recover, and the DBR
 * store is ordered after the WQEs, so a DBR read at any time finds them.
 * Before this order, gpu-fence and fence-sys stored the DBR *before* their
 * one fence (WQE -> DBR unordered); both references (NVSHMEM IBGDA, DOCA)
 * fence the WQEs before the record, and so do they now.
 *
 * CPU executor (C11): relaxed stores stay relaxed; fence.acq_rel.* is an
 * acq_rel fence, membar.gl / membar.sys a seq_cst fence, st.release.* a
 * release store; the doorbell is a relaxed store (after an acq_rel fence in
 * the release variants).
 *
 * The mapping of the paper's row names to these PTX forms is our reading of
 * the paper; docs/design/orderings.md sets out each variant and what it orders.
 * Every fence, ordered store and the doorbell store is gpu_prims.h's (host
 * C: C11 atomics); docs/design/gpu-primitives.md lists what each orders.
 * WQE stores are always the volatile 4-byte stores of mlx5_wqe.h
 * (st.volatile.global.b32 = STG.E.STRONG.SYS).
 *
 * CPU mapping notes: a CPU thread has no "GPU scope"; C11 orders for the
 * whole coherence domain, so gpu-fence and fence-sys differ only in the
 * fence strength (acq_rel vs seq_cst), release-gpu and release-sys compile
 * to identical code, and on x86-64 every fence except seq_cst is a compiler
 * barrier only (TSO keeps stores in order; seq_cst emits MFENCE). The
 * queues are ordinary write-back memory, so no SFENCE/WC flush is needed.
 *
 * WHAT CAN GO WRONG (why the unsafe variants are still measured): the
 * software NIC's queues, and the verbs QPs' queues on a ConnectX (placement
 * host), live in HOST memory. A GPU-scope fence or release orders the
 * thread's stores only for observers inside the GPU; the NIC (or the
 * software NIC's engine thread) is a system-scope observer, so with none /
 * gpu-fence / gpu-fence-dbrec / release-gpu / threadfence the PCIe writes of
 * the WQE and the doorbell are not formally ordered for it: the NIC may see
 * the doorbell before the WQE bytes and execute a stale WQE (the engine's
 * sanity check then reports a bad opcode / WQE index as an error CQE, or it
 * sends old payload bytes). On Hopper, posted PCIe writes from one SM are in
 * practice delivered in order, which is why these variants usually "work";
 * payload validation after every iteration is what would catch it. Only
 * release-sys and fence-sys are correct for host-resident queues (NVSHMEM
 * uses __threadfence_system() whenever NIC buffers are in host memory); on
 * a ConnectX, Marrow runs the GPU-scope variants there only when asked to
 * (--allow-unsafe-ordering) and marks their records
 * ordering_safe_on_hardware=false (docs/design/orderings.md §3).
 * The paper measures all seven the same way; so do we.
 *
 * STAGED POINTER PAYLOADS: the runners write each iteration's payload into
 * the registered source buffer (host memory) before the post, untimed. For
 * the variants whose post does not order earlier stores at system scope
 * (all but release-sys and fence-sys), gda_order_staged_payload() puts a
 * fence.acq_rel.sys after those stores, so the NIC reads this iteration's
 * bytes whatever the variant (the harness' payload is not what is measured).
 *
 * CQ POLLING: the poll load is always a system-scope relaxed load (one
 * ld.relaxed.sys.global.b64 of CQE bytes 56..63), because the CQE is
 * written by a CPU thread into host memory and a GPU-scope load gives no
 * guarantee of ever observing that write. The acquire that orders the rest
 * of the CQE (and, for round trip, the data) after the poll is at the
 * variant's scope: none -> nothing; gpu-fence, gpu-fence-dbrec, release-gpu
 * -> fence.acquire.gpu; threadfence -> membar.gl; release-sys ->
 * fence.acquire.sys; fence-sys -> membar.sys (before sm_90, fence.acq_rel
 * for fence.acquire). CPU: none -> nothing, threadfence and fence-sys ->
 * seq_cst, the others -> acquire.
 */
#ifndef MARROW_GDA_POST_H
#define MARROW_GDA_POST_H

#include <stdint.h>
#include "marrow/gpu_prims.h"
#include "marrow/marrow_abi.h"
#include "marrow/mlx5_wqe.h"

#if defined(__CUDACC__)
#define GDA_FN __device__ __forceinline__
#else
#include <sched.h>
#define GDA_FN static inline __attribute__((always_inline))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The seven Table-4 variants; values are part of the C ABI (marrow_gda.h). */
enum gda_ordering {
	GDA_ORD_NONE = 0,
	GDA_ORD_GPU_FENCE = 1,
	GDA_ORD_GPU_FENCE_DBREC = 2,
	GDA_ORD_RELEASE_GPU = 3,
	GDA_ORD_THREADFENCE = 4,
	GDA_ORD_RELEASE_SYS = 5,
	GDA_ORD_FENCE_SYS = 6,
	GDA_ORD_COUNT = 7,
};

/* A producer's private state of one SQ (one thread owns it). */
struct gda_sq {
	uint8_t *buf;          /* wqebb_cnt * 64 bytes */
	uint32_t *dbrec;       /* QP doorbell record, [1] = SQ counter (BE32) */
	uint64_t *uar;         /* doorbell register */
	uint32_t wqebb_cnt;    /* power of two */
	uint32_t qpn;
	uint32_t max_inline;   /* the QP's max_inline_data */
	uint32_t pi;           /* free-running WQEBB producer counter */
	uint32_t ci;           /* free-running: first WQEBB not known complete */
};

/* A poller's private state of one CQ. */
struct gda_cq {
	uint8_t *buf;          /* cqe_cnt * 64 bytes */
	uint32_t *dbrec;       /* [0] = consumer index (BE32, low 24 bits) */
	uint32_t log_cnt;
	uint32_t collapsed;    /* cc = 1: every CQE lands in slot 0 */
	uint32_t ci;           /* free-running consumer index (normal CQ) */
};

/* One RDMA WRITE. inline_words != NULL selects the inline form. */
struct gda_write {
	uint64_t raddr;
	uint32_t rkey;
	uint32_t len;
	const uint32_t *inline_words; /* ceil(len/4) words, copied into the WQE */
	uint64_t laddr;               /* pointer form: registered source */
	uint32_t lkey;
	uint32_t pad;
};

/* What a failed wait saw, for the error message Java shows. */
struct gda_err {
	int32_t status;
	uint32_t opcode;       /* CQE opcode (op_own >> 4) */
	uint32_t syndrome;
	uint32_t vendor_syndrome;
	uint32_t wqe_counter;  /* seen in the CQE */
	uint32_t expected;     /* WQE index waited for */
	/* A timed-out wait also records what it waited for and, for a CQE
	 * wait, the poster's counters at that moment (the watchdog dump,
	 * docs/design/watchdog.md). */
	uint32_t wait;         /* enum gda_wait_kind */
	uint32_t sq_pi;        /* free-running WQEBB producer counter */
	uint32_t sq_ci;        /* first WQEBB not known complete */
	uint32_t cq_ci;        /* the poller's consumer index */
};

enum gda_wait_kind { GDA_WAIT_NONE = 0, GDA_WAIT_CQE = 1, GDA_WAIT_WORD = 2 };

/* ---- clocks ----------------------------------------------------------------
 * Budgets for bounded waits (and the timing of the experiments) in ns:
 * %globaltimer on the GPU, CLOCK_MONOTONIC_RAW on the CPU (gpu_prims.h). */
GDA_FN uint64_t gda_now_ns(void) { return gpu_globaltimer_ns(); }
#if defined(__CUDACC__)
GDA_FN void gda_relax(uint32_t spins) { (void)spins; }
#else
/* Spin politely; after many spins also yield the core, so that a host with
 * fewer cores than spinning threads (poster, peer, NIC engine) still makes
 * progress instead of waiting for the scheduler's time slice. */
GDA_FN void gda_relax(uint32_t spins)
{
	if ((spins & 1023u) == 0u)
		sched_yield();
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}
#endif

/* Loads, stores and fences are gpu_prims.h's (host C: C11 atomics). */

/* Step 3+4+5: order, DBR, doorbell for variant ord (table above). */
GDA_FN void gda_publish(struct gda_sq *sq, int ord, uint32_t dbr_be, uint64_t db)
{
	uint32_t *dbr = &sq->dbrec[MX_DBR_SND];

	switch (ord) {
	case GDA_ORD_NONE:
		gpu_st_relaxed_sys_u32(dbr, dbr_be);
		gpu_mmio_write64_db(sq->uar, db);
		break;
	case GDA_ORD_GPU_FENCE:
		gpu_fence_acq_rel_gpu();
		gpu_st_relaxed_sys_u32(dbr, dbr_be);
		gpu_mmio_write64_db(sq->uar, db);
		break;
	case GDA_ORD_GPU_FENCE_DBREC:
		gpu_fence_acq_rel_gpu();
		gpu_st_relaxed_sys_u32(dbr, dbr_be);
		gpu_fence_acq_rel_gpu();
		gpu_mmio_write64_db(sq->uar, db);
		break;
	case GDA_ORD_RELEASE_GPU:
		gpu_st_release_gpu_u32(dbr, dbr_be);
		gpu_mmio_write64_db_release_gpu(sq->uar, db);
		break;
	case GDA_ORD_THREADFENCE:
		gpu_fence_sc_gpu();
		gpu_st_relaxed_sys_u32(dbr, dbr_be);
		gpu_fence_sc_gpu();
		gpu_mmio_write64_db(sq->uar, db);
		break;
	case GDA_ORD_RELEASE_SYS:
		gpu_st_release_sys_u32(dbr, dbr_be);
		gpu_mmio_write64_db_release_sys(sq->uar, db);
		break;
	default: /* GDA_ORD_FENCE_SYS: rdma-core's udma_to_device_barrier, before the record */
		gpu_udma_to_device_barrier();
		gpu_st_relaxed_sys_u32(dbr, dbr_be);
		gpu_mmio_write64_db(sq->uar, db);
		break;
	}
}

/* True for the variants whose post orders this thread's earlier stores
 * before the doorbell for system-scope observers (the NIC). */
GDA_FN int gda_orders_for_system(int ord)
{
	return ord == GDA_ORD_RELEASE_SYS || ord == GDA_ORD_FENCE_SYS;
}

/* After the untimed staging of a pointer payload in the source buffer
 * (host memory the NIC reads): make those stores visible to the NIC before
 * the post's doorbell, unless the variant's own post does that. */
GDA_FN void gda_order_staged_payload(int ord)
{
	if (!gda_orders_for_system(ord))
		gpu_fence_acq_rel_sys();
}

/* The acquire side of variant ord, after a poll load saw the awaited value.
 * The acq_rel variants take the acquire half alone, at their scope: the poll
 * then is an acquire, and the fence does not wait for this thread's
 * outstanding stores (the doorbell record, the doorbell) as fence.acq_rel
 * would, a round trip to L2 between the CQE seen and the caller going on
 * (docs/design/orderings.md, "The completion side"). threadfence and
 * fence-sys keep their sequentially consistent fence: those variants are
 * defined as that fence on both sides. */
GDA_FN void gda_acquire(int ord)
{
	switch (ord) {
	case GDA_ORD_NONE:
		break;
	case GDA_ORD_GPU_FENCE:
	case GDA_ORD_GPU_FENCE_DBREC:
	case GDA_ORD_RELEASE_GPU:
		gpu_fence_acquire_gpu();
		break;
	case GDA_ORD_THREADFENCE:
		gpu_fence_sc_gpu();
		break;
	case GDA_ORD_RELEASE_SYS:
		gpu_fence_acquire_sys();
		break;
	default:
		gpu_fence_sc_sys();
		break;
	}
}

/* ---- WQE construction ------------------------------------------------------- */

/* Address of byte off of the WQE starting at WQEBB counter base, wrapping at
 * the ring end (an inline WQE may wrap in the middle, as in rdma-core). */
GDA_FN uint8_t *gda_wqe_at(const struct gda_sq *sq, uint32_t base, uint32_t off)
{
	uint32_t ring_bytes = sq->wqebb_cnt * (uint32_t)MX_WQEBB_SIZE;
	return sq->buf + ((base * (uint32_t)MX_WQEBB_SIZE + off) & (ring_bytes - 1u));
}

/* ds of the WRITE, or 0 if inline len exceeds the QP maximum. */
GDA_FN uint32_t gda_write_ds(const struct gda_sq *sq, const struct gda_write *w)
{
	if (w->inline_words != 0) {
		if (w->len > sq->max_inline)
			return 0;
		return mx_ds_inline_write(w->len);
	}
	return mx_ds_pointer_write(1);
}

/* Steps 1-5: reserve, build, order, DBR, doorbell. Signaled (CQ_UPDATE).
 * *wqe_idx receives the WQE's start index for gda_wait_cqe. */
GDA_FN int gda_post_write(struct gda_sq *sq, int ord, const struct gda_write *w, uint32_t *wqe_idx)
{
	uint32_t ds = gda_write_ds(sq, w);
	uint32_t nbb, base;

	if (ds == 0)
		return MARROW_ERANGE;
	nbb = mx_wqebbs(ds);
	base = sq->pi;
	/* 1. reserve: the ring holds wqebb_cnt WQEBBs not yet completed */
	if (base + nbb - sq->ci > sq->wqebb_cnt)
		return MARROW_ENOSPC;
	/* 2. build. Segments start at 16-byte offsets < 64 of the first WQEBB,
	 * so only the inline payload can cross the ring end. */
	mx_set_ctrl_seg(gda_wqe_at(sq, base, 0), (uint16_t)base, MX_OPCODE_RDMA_WRITE, 0, sq->qpn,
			MX_CTRL_CQ_UPDATE, (uint8_t)ds, 0, 0);
	mx_set_raddr_seg(gda_wqe_at(sq, base, MX_CTRL_SEG_SIZE), w->raddr, w->rkey);
	if (w->inline_words != 0) {
		uint32_t off = MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE;
		uint32_t nw = (w->len + 3u) / 4u;
		mx_set_inline_hdr(gda_wqe_at(sq, base, off), w->len);
		/* Whole words: bytes past len stay inside the WQE's last 16-byte
		 * unit, which the NIC ignores. */
		for (uint32_t i = 0; i < nw; i++)
			mx_store32(gda_wqe_at(sq, base, off + MX_INLINE_HDR_SIZE + 4u * i), w->inline_words[i]);
	} else {
		mx_set_data_seg(gda_wqe_at(sq, base, MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE), w->len, w->lkey,
				w->laddr);
	}
	sq->pi = base + nbb;
	/* 3-5. */
	gda_publish(sq, ord, mx_dbrec_send_value(sq->pi),
		    mx_doorbell_value((uint16_t)sq->pi, 0, sq->qpn, 0));
	*wqe_idx = base;
	return MARROW_OK;
}

/* ---- completion ------------------------------------------------------------ */

/* True when v (bytes 56..63 of the CQE slot the poller is at) holds a CQE
 * for it: a valid opcode and, on a normal CQ, the owner bit of the
 * consumer's current lap; on a collapsed CQ (cc = 1, no owner rule) a
 * wqe_counter that has reached want. */
GDA_FN int gda_cqe_snapshot_ready(const struct gda_cq *cq, uint64_t v, uint16_t want)
{
	uint8_t oo = (uint8_t)(v >> 56);
	uint16_t seen = (uint16_t)((((v >> 32) & 0xffu) << 8) | ((v >> 40) & 0xffu));

	if ((oo >> 4) == MX_CQE_INVALID)
		return 0;
	if (cq->collapsed)
		return (uint16_t)(seen - want) < 0x8000u;
	return (oo & 1u) == ((cq->ci >> cq->log_cnt) & 1u);
}

/* Step 6: waits for the CQE of the WQE that started at WQEBB counter wqe_idx
 * (every WQE is signaled; completions are in order per SQ). On success the
 * SQ's ci moves past that WQE and, for a normal CQ, the CQ's consumer index
 * is published in its DBR (required when the CQ is not overrun-ignore). */
GDA_FN int gda_wait_cqe(struct gda_sq *sq, struct gda_cq *cq, int ord, uint32_t wqe_idx,
			uint64_t timeout_ns, struct gda_err *err)
{
	uint32_t n = 1u << cq->log_cnt;
	uint8_t *cqe = cq->collapsed ? cq->buf : cq->buf + (size_t)(cq->ci & (n - 1u)) * MX_CQE_SIZE;
	/* One aligned 8-byte load per poll covers bytes 56..63: sop_drop_qpn
	 * (BE32), wqe_counter (BE16), signature, op_own. The producer writes
	 * op_own last, so a snapshot holding a valid op_own holds the rest, and
	 * the success path needs no further read (each one is a PCIe round
	 * trip when the CQ is in host memory and the poller is a GPU). */
	const uint64_t *tail = (const uint64_t *)(cqe + MX_CQE_OFF_SOP_DROP_QPN);
	uint64_t deadline = 0, v;
	uint32_t spins = 0;
	uint16_t want = (uint16_t)wqe_idx, seen;
	uint8_t oo;

	for (;;) {
		v = gpu_ld_relaxed_sys_u64(tail);
		oo = (uint8_t)(v >> 56);
		seen = (uint16_t)((((v >> 32) & 0xffu) << 8) | ((v >> 40) & 0xffu));
		if (gda_cqe_snapshot_ready(cq, v, want))
			break;
		if ((++spins & 63u) == 1u) {
			uint64_t now = gda_now_ns();
			if (deadline == 0) {
				deadline = now + timeout_ns;
			} else if (now > deadline) {
				err->status = MARROW_ETIMEDOUT;
				err->opcode = oo >> 4;
				err->wqe_counter = seen;
				err->expected = want;
				err->wait = GDA_WAIT_CQE;
				err->sq_pi = sq->pi;
				err->sq_ci = sq->ci;
				err->cq_ci = cq->ci;
				return MARROW_ETIMEDOUT;
			}
		}
		gda_relax(spins);
	}
	gda_acquire(ord);
	{
		uint8_t op = oo >> 4;
		uint32_t qpn = mx_be32toh((uint32_t)v) & 0xffffffu;
		if (!cq->collapsed) {
			cq->ci++;
			gpu_st_relaxed_sys_u32(&cq->dbrec[0], mx_htobe32(cq->ci & 0xffffffu));
		}
		if (op != MX_CQE_REQ || (!cq->collapsed && seen != want) || qpn != sq->qpn) {
			err->status = op == MX_CQE_REQ ? MARROW_EPROTO : MARROW_EIO;
			err->opcode = op;
			err->syndrome = mx_cqe_syndrome(cqe);   /* error path only */
			err->vendor_syndrome = mx_cqe_vendor_syndrome(cqe);
			err->wqe_counter = seen;
			err->expected = want;
			return err->status;
		}
	}
	sq->ci = sq->pi;   /* at most one outstanding: everything posted is done */
	return MARROW_OK;
}

/* Doorbell-to-CQE probe: polls (bounded, like gda_wait_cqe) until the CQE
 * of WQE wqe_idx is visible in the slot, and returns WITHOUT consuming it,
 * so the caller can stamp the first observation; gda_wait_cqe then finds
 * it at once and consumes and checks it. */
GDA_FN int gda_poll_cqe_visible(const struct gda_cq *cq, uint32_t wqe_idx, uint64_t timeout_ns,
				struct gda_err *err)
{
	uint32_t n = 1u << cq->log_cnt;
	const uint8_t *cqe = cq->collapsed ? cq->buf : cq->buf + (size_t)(cq->ci & (n - 1u)) * MX_CQE_SIZE;
	const uint64_t *tail = (const uint64_t *)(cqe + MX_CQE_OFF_SOP_DROP_QPN);
	uint64_t deadline = 0;
	uint32_t spins = 0;

	while (!gda_cqe_snapshot_ready(cq, gpu_ld_relaxed_sys_u64(tail), (uint16_t)wqe_idx)) {
		if ((++spins & 63u) == 1u) {
			uint64_t now = gda_now_ns();
			if (deadline == 0) {
				deadline = now + timeout_ns;
			} else if (now > deadline) {
				err->status = MARROW_ETIMEDOUT;
				err->expected = wqe_idx;
				err->wait = GDA_WAIT_CQE;
				err->cq_ci = cq->ci;
				return MARROW_ETIMEDOUT;
			}
		}
		gda_relax(spins);
	}
	return MARROW_OK;
}

/* Responder delay (timer check): spins until delay_ns have passed since
 * t0 by this thread's own clock. */
GDA_FN void gda_spin_until(uint64_t t0, uint64_t delay_ns)
{
	uint32_t spins = 0;
	while (gda_now_ns() - t0 < delay_ns)
		gda_relax(++spins);
}

/* Round trip: waits until the 8-byte data word at p equals want. */
GDA_FN int gda_wait_word(const uint64_t *p, uint64_t want, int ord, uint64_t timeout_ns,
			 struct gda_err *err)
{
	uint64_t deadline = 0;
	uint32_t spins = 0;

	while (gpu_ld_relaxed_sys_u64(p) != want) {
		if ((++spins & 63u) == 1u) {
			uint64_t now = gda_now_ns();
			if (deadline == 0) {
				deadline = now + timeout_ns;
			} else if (now > deadline) {
				err->status = MARROW_ETIMEDOUT;
				err->wait = GDA_WAIT_WORD;
				return MARROW_ETIMEDOUT;
			}
		}
		gda_relax(spins);
	}
	gda_acquire(ord);
	return MARROW_OK;
}

/* ---- payload pattern -------------------------------------------------------
 * Word k of iteration it: distinct per iteration and never 0, so a stale or
 * missing write is always detected. The round-trip data word is word 0|1. */
GDA_FN uint32_t gda_pattern_word(uint64_t it, uint32_t k)
{
	uint32_t x = (uint32_t)(it * 0x9e3779b9u) ^ (k * 0x85ebca6bu) ^ 0x6d617272u;
	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x | 1u;
}

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_POST_H */
