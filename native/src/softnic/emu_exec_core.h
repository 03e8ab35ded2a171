/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The software NIC's execution core: per-QP doorbell handling, WQE fetch,
 * WQE parsing and validation (ds, opcode, QPN, index), MR lkey/rkey and
 * bounds checks, the payload copy, CQE writing (error and flush CQEs
 * included), RQ flush and the counters. ONE copy of these rules, compiled
 * twice:
 *  - by the C compiler into emu_exec.c, for the CPU engine threads
 *    (emu_engine.c): every memory access below then expands to exactly the
 *    __atomic builtin the CPU engine always used;
 *  - by nvcc into the device engine (src/softnic_dev/), where one GPU
 *    thread plays one engine thread over queues in GPU memory or in mapped
 *    pinned host memory (docs/design/device-engine.md).
 * The rules themselves, and which ConnectX behaviour each follows, are in
 * docs/design/software-nic.md §4-§8 and docs/design/softnic-fidelity.md.
 *
 * The memory-access abstraction (what differs between the two targets):
 *   EMU_LD_ACQ / EMU_LD_RLX (p)          32/64-bit acquire / relaxed load
 *   EMU_ST_REL / EMU_ST_RLX (p, v)       release / relaxed store
 *   EMU_CAS (p, &expected, desired)      32-bit acq_rel compare-and-swap
 *   EMU_XCHG_ACQ / EMU_XCHG_REL (p, v)   exchange
 *   EMU_FADD_RLX (p, v)                  32-bit fetch-and-add
 *   EMU_MEMCPY / EMU_MEMMOVE / EMU_COPY_SMALL (d, s, n)
 *   EMU_NOW_NS() / EMU_CQE_CLOCK()       timers (ns; CQE timestamp clock)
 *   EMU_PUBLISH(t)                       publish t's counters before a CQE
 *   EMU_ACTIVATE(t, qp)                  tell t's scheduler qp has news
 *   EMU_RELAX()                          spin-wait hint
 * Device scope: the includer defines EMU_DEV_SYS (0: GPU scope, queues in
 * GPU memory; 1: system scope, queues in host memory a CPU also touches)
 * and includes this file once per scope inside its own namespace, so this
 * file has no include guard on the device side.
 *
 * Prerequisites: emu_internal.h (and, on the device, gpu_prims.h) are
 * included first.
 */
#if !defined(__CUDACC__)
#ifndef MARROW_EMU_EXEC_CORE_H
#define MARROW_EMU_EXEC_CORE_H
#include <string.h>

#define EMU_CORE_INLINE static inline
#define EMU_CORE_FN static
#define EMU_CORE_API
#define EMU_CORE_TABLE static const
#define EMU_LD_ACQ(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define EMU_LD_RLX(p) __atomic_load_n(p, __ATOMIC_RELAXED)
#define EMU_ST_REL(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define EMU_ST_RLX(p, v) __atomic_store_n(p, v, __ATOMIC_RELAXED)
#define EMU_CAS(p, e, d) __atomic_compare_exchange_n(p, e, d, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define EMU_XCHG_ACQ(p, v) __atomic_exchange_n(p, v, __ATOMIC_ACQUIRE)
#define EMU_XCHG_REL(p, v) __atomic_exchange_n(p, v, __ATOMIC_RELEASE)
#define EMU_FADD_RLX(p, v) __atomic_fetch_add(p, v, __ATOMIC_RELAXED)
#define EMU_MEMCPY(d, s, n) memcpy(d, s, n)
#define EMU_MEMMOVE(d, s, n) memmove(d, s, n)
#define EMU_COPY_SMALL(d, s, n) emu_copy_small(d, s, n)
#define EMU_NOW_NS() emu_now_ns()
#if defined(__x86_64__)
#define EMU_CQE_CLOCK() __builtin_ia32_rdtsc()
#else
#define EMU_CQE_CLOCK() emu_now_ns()
#endif
#define EMU_PUBLISH(t) emu_counters_publish(t)
#define EMU_ACTIVATE(t, qp) emu_engine_activate(t, qp)
#define EMU_RELAX() emu_cpu_relax()
/* A read hint for SQ lines a doorbell already covers (fast_run): the
 * producer does not write them again before they retire. */
#define EMU_PREFETCH_RD(p) __builtin_prefetch((p), 0, 2)
/* The wire model (emu_wire.c, docs/design/wire-model.md): account every
 * executed message; hold a successful CQE until its last byte left the port. */
#define EMU_CORE_WIRE_SENT(t, len, imm) EMU_WIRE_SENT(t, len, imm)
#define EMU_CORE_WIRE_HOLD(t, synd)                                        \
	do {                                                              \
		if (EMU_UNLIKELY((t)->dev->wire != NULL) && (synd) == 0) \
			emu_wire_hold(t);                                 \
	} while (0)
/* Whether a wire model is set: it changes only while the engine is parked. */
#define EMU_CORE_WIRE_ON(t) ((t)->dev->wire != NULL)
#define EMU_CORE_BODY 1
#endif /* MARROW_EMU_EXEC_CORE_H */

#else /* __CUDACC__: the device engine */

#ifndef EMU_DEV_SYS
#error "define EMU_DEV_SYS (0 = GPU scope, 1 = system scope) before including emu_exec_core.h"
#endif
#undef EMU_CORE_INLINE
#undef EMU_CORE_FN
#undef EMU_CORE_API
#undef EMU_CORE_TABLE
#define EMU_CORE_INLINE static __device__ __forceinline__
#define EMU_CORE_FN static __device__
#define EMU_CORE_API static __device__
#define EMU_CORE_TABLE static __device__ const

/* Scoped accesses from gpu_prims.h; RMWs are CUDA atomics with the
 * acquire / release half the CPU builtins have. */
static __device__ __forceinline__ uint32_t emu_d_ld_acq(const uint32_t *p)
{
	return EMU_DEV_SYS ? gpu_ld_acquire_sys_u32(p) : gpu_ld_acquire_gpu_u32(p);
}
static __device__ __forceinline__ uint64_t emu_d_ld_acq(const uint64_t *p)
{
	return EMU_DEV_SYS ? gpu_ld_acquire_sys_u64(p) : gpu_ld_acquire_gpu_u64(p);
}
static __device__ __forceinline__ uint32_t emu_d_ld_rlx(const uint32_t *p)
{
	return EMU_DEV_SYS ? gpu_ld_relaxed_sys_u32(p) : gpu_ld_relaxed_gpu_u32(p);
}
static __device__ __forceinline__ uint64_t emu_d_ld_rlx(const uint64_t *p)
{
	return EMU_DEV_SYS ? gpu_ld_relaxed_sys_u64(p) : gpu_ld_relaxed_gpu_u64(p);
}
static __device__ __forceinline__ void emu_d_st_rel(uint32_t *p, uint32_t v)
{
	if (EMU_DEV_SYS) gpu_st_release_sys_u32(p, v); else gpu_st_release_gpu_u32(p, v);
}
/* exec_ci: read only for information (snapshots of a stopped engine), so a
 * relaxed store at the engine's scope: a volatile store compiled to a
 * system-scope strong store (ST.E.U16.STRONG.SYS) on the WQE path, which the
 * CQE's release then had to wait for. */
static __device__ __forceinline__ void emu_d_st_rel(uint16_t *p, uint16_t v)
{
	if (EMU_DEV_SYS) gpu_st_relaxed_sys_u16(p, v); else gpu_st_relaxed_gpu_u16(p, v);
}
static __device__ __forceinline__ void emu_d_st_rlx(uint32_t *p, uint32_t v)
{
	if (EMU_DEV_SYS) gpu_st_relaxed_sys_u32(p, v); else gpu_st_relaxed_gpu_u32(p, v);
}
/* RMWs that carry their own ordering (atom.acquire / .release / .acq_rel,
 * PTX ISA 6.3, sm_70+): the acquire or release half the CPU builtin has,
 * without the separate fence.acq_rel around a relaxed atomic, which also
 * waited for every outstanding store of the thread (a full round trip to
 * L2 on each doorbell taken). Generic addresses: the slots live in GPU or
 * mapped host memory. */
#define EMU_D_ATOM_(SEM, OP, T, ...)                                                      \
	do {                                                                                     \
		if (EMU_DEV_SYS)                                                                 \
			asm volatile("atom." SEM ".sys." OP "." T " %0, [%1], " __VA_ARGS__          \
				     : "memory");                                                 \
		else                                                                             \
			asm volatile("atom." SEM ".gpu." OP "." T " %0, [%1], " __VA_ARGS__          \
				     : "memory");                                                 \
	} while (0)
static __device__ __forceinline__ bool emu_d_cas(uint32_t *p, uint32_t *expected, uint32_t desired)
{
	uint32_t want = *expected, old;

	EMU_D_ATOM_("acq_rel", "cas", "b32", "%2, %3;" : "=r"(old) : "l"(p), "r"(want), "r"(desired));
	if (old == want)
		return true;
	*expected = old;
	return false;
}
static __device__ __forceinline__ uint64_t emu_d_xchg_acq(uint64_t *p, uint64_t v)
{
	uint64_t old;

	EMU_D_ATOM_("acquire", "exch", "b64", "%2;" : "=l"(old) : "l"(p), "l"(v));
	return old;
}
static __device__ __forceinline__ uint32_t emu_d_xchg_acq(uint32_t *p, uint32_t v)
{
	uint32_t old;

	EMU_D_ATOM_("acquire", "exch", "b32", "%2;" : "=r"(old) : "l"(p), "r"(v));
	return old;
}
static __device__ __forceinline__ uint32_t emu_d_xchg_rel(uint32_t *p, uint32_t v)
{
	uint32_t old;

	EMU_D_ATOM_("release", "exch", "b32", "%2;" : "=r"(old) : "l"(p), "r"(v));
	return old;
}
#undef EMU_D_ATOM_
/* The acquire half of a doorbell taken by comparison (emu_dev_qp_poll_own):
 * after the relaxed load of the slot, an acquire fence makes that load an
 * acquire (gpu_prims.h: it does not wait for this thread's outstanding
 * stores, the last CQE or payload, as fence.acq_rel would). */
static __device__ __forceinline__ void emu_d_fence_acq(void)
{
	if (EMU_DEV_SYS)
		gpu_fence_acquire_sys();
	else
		gpu_fence_acquire_gpu();
}
/* A hint that brings the line holding p into this SM's L1 (no value, no
 * ordering): issued right after the acquire, it refills in one round trip
 * the lines the acquire invalidated and the WQE path reads next. */
static __device__ __forceinline__ void emu_d_prefetch_l1(const void *p)
{
	asm volatile("prefetch.L1 [%0];" ::"l"(p));   /* generic: the lines may be GPU or mapped host memory */
}
static __device__ __forceinline__ uint32_t emu_d_fadd(uint32_t *p, uint32_t v)
{
	return EMU_DEV_SYS ? atomicAdd_system((unsigned int *)p, v) : atomicAdd((unsigned int *)p, v);
}

/* Copies with the widest access the alignment of both ends and the length
 * allow (a GPU faults on a misaligned access). Each round issues all of its
 * loads before any store: the stores may alias the source as far as the
 * compiler knows, so a load-store-load loop waits one global-memory round
 * trip per access. Up to EMU_D_ROUND accesses are in flight per round. On
 * the H200 this did not move put+completion (the step from one to two
 * WQEBBs is the general path's, not the copy's: docs/results/h200-gpu-resident.md,
 * "copyfix"); it is kept for long copies (pointer payloads). */
enum { EMU_D_ROUND = 8 };
template <typename W>
static __device__ __forceinline__ void emu_d_copy_w(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t i = 0;

	for (; i + EMU_D_ROUND * sizeof(W) <= n; i += EMU_D_ROUND * sizeof(W)) {
		W v[EMU_D_ROUND];
#pragma unroll
		for (int k = 0; k < EMU_D_ROUND; k++)
			v[k] = *(const W *)(s + i + k * sizeof(W));
#pragma unroll
		for (int k = 0; k < EMU_D_ROUND; k++)
			*(W *)(d + i + k * sizeof(W)) = v[k];
	}
	if (i < n) {
		const int m = (int)((n - i) / sizeof(W));   /* 1..EMU_D_ROUND - 1 */
		W v[EMU_D_ROUND];
#pragma unroll
		for (int k = 0; k < EMU_D_ROUND; k++)
			if (k < m)
				v[k] = *(const W *)(s + i + k * sizeof(W));
#pragma unroll
		for (int k = 0; k < EMU_D_ROUND; k++)
			if (k < m)
				*(W *)(d + i + k * sizeof(W)) = v[k];
	}
}
static __device__ __forceinline__ void emu_d_copy(void *dst, const void *src, size_t n)
{
	uintptr_t a = (uintptr_t)dst | (uintptr_t)src | (uintptr_t)n;
	uint8_t *d = (uint8_t *)dst;
	const uint8_t *s = (const uint8_t *)src;

	if ((a & 15) == 0)
		emu_d_copy_w<uint4>(d, s, n);
	else if ((a & 7) == 0)
		emu_d_copy_w<uint64_t>(d, s, n);
	else if ((a & 3) == 0)
		emu_d_copy_w<uint32_t>(d, s, n);
	else
		emu_d_copy_w<uint8_t>(d, s, n);
}
static __device__ __forceinline__ void emu_d_move(void *dst, const void *src, size_t n)
{
	uint8_t *d = (uint8_t *)dst;
	const uint8_t *s = (const uint8_t *)src;

	if (d + n <= s || s + n <= d || d == s) {
		if (d != s)
			emu_d_copy(d, s, n);
	} else if (d < s) {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	} else {
		for (size_t i = n; i-- > 0;)
			d[i] = s[i];
	}
}

#undef EMU_LD_ACQ
#undef EMU_LD_RLX
#undef EMU_ST_REL
#undef EMU_ST_RLX
#undef EMU_CAS
#undef EMU_XCHG_ACQ
#undef EMU_XCHG_REL
#undef EMU_FADD_RLX
#undef EMU_MEMCPY
#undef EMU_MEMMOVE
#undef EMU_COPY_SMALL
#undef EMU_NOW_NS
#undef EMU_CQE_CLOCK
#undef EMU_PUBLISH
#undef EMU_ACTIVATE
#undef EMU_RELAX
#define EMU_LD_ACQ(p) emu_d_ld_acq(p)
#define EMU_LD_RLX(p) emu_d_ld_rlx(p)
#define EMU_ST_REL(p, v) emu_d_st_rel(p, v)
#define EMU_ST_RLX(p, v) emu_d_st_rlx(p, v)
#define EMU_CAS(p, e, d) emu_d_cas(p, e, d)
#define EMU_XCHG_ACQ(p, v) emu_d_xchg_acq(p, v)
#define EMU_XCHG_REL(p, v) emu_d_xchg_rel(p, v)
#define EMU_FADD_RLX(p, v) emu_d_fadd(p, v)
#define EMU_MEMCPY(d, s, n) emu_d_copy(d, s, n)
#define EMU_MEMMOVE(d, s, n) emu_d_move(d, s, n)
#define EMU_COPY_SMALL(d, s, n) emu_d_copy(d, s, n)
#define EMU_NOW_NS() gpu_globaltimer_ns()
#define EMU_CQE_CLOCK() gpu_globaltimer_ns()
/* Device counters are read from a stopped engine (or as a live estimate). */
#define EMU_PUBLISH(t) ((void)(t))
/* The device engine polls every QP it owns on every pass. */
#define EMU_ACTIVATE(t, qp) ((void)(t), (void)(qp))
#define EMU_RELAX() __nanosleep(32)
/* The device engine has no wire model (docs/design/device-engine.md). */
#define EMU_CORE_WIRE_SENT(t, len, imm) ((void)0)
#define EMU_CORE_WIRE_HOLD(t, synd) ((void)0)
#undef EMU_CORE_WIRE_ON
#define EMU_CORE_WIRE_ON(t) ((void)(t), 0)
/* No prefetch hint on the device: its queues are read through L2 anyway. */
#undef EMU_PREFETCH_RD
#define EMU_PREFETCH_RD(p) ((void)(p))
/* Device names of the entry points: distinct from the CPU engine's
 * declarations in emu_internal.h, which argument-dependent lookup would
 * otherwise also find. */
#define emu_qp_poll emu_dev_qp_poll
#define emu_qp_recover emu_dev_qp_recover
#define emu_cqe_post emu_dev_cqe_post
#define emu_cqe_clock emu_dev_cqe_clock
#define emu_rnr_timer_ns emu_dev_rnr_timer_ns
#define emu_ack_timeout_ns emu_dev_ack_timeout_ns
#undef EMU_CORE_BODY
#define EMU_CORE_BODY 1
#endif /* __CUDACC__ */

/* Engine-side stage stamps (the device engine's stage profile,
 * docs/design/device-engine.md §2.1): EMU_STAGE(t, qp, k) marks stage k of
 * the WQE path of qp. The device includer defines it before including this
 * file; everywhere else it is nothing. */
#ifndef EMU_STAGE
#define EMU_STAGE(t, qp, k) ((void)0)
#endif
#if defined(EMU_CORE_BODY) && !defined(EMU_CORE_BODY_DONE_HOST)
#if !defined(__CUDACC__)
#define EMU_CORE_BODY_DONE_HOST 1
#endif

/* RES_WAIT_*: the WQE at exec_ci cannot run yet (EMU_WAIT_* kind). */
enum { RES_OK = 0, RES_WAIT_RNR = EMU_WAIT_RNR, RES_WAIT_ACK = EMU_WAIT_ACK };
/* The stages EMU_STAGE marks: doorbell slot seen non-zero (the device
 * engine's loop), doorbell taken, fetch done, WQE executed, CQE written. */
enum { EMU_STAGE_SEEN = 0, EMU_STAGE_TAKEN = 1, EMU_STAGE_FETCHED = 2, EMU_STAGE_EXECUTED = 3,
       EMU_STAGE_CQE = 4 };

#if defined(__CUDACC__)
/* The CPU engine has these declarations from emu_internal.h. */
EMU_CORE_API void emu_cqe_post(struct emu_thread *t, struct marrow_emu_cq *cq, uint8_t cqe_opcode,
			       uint8_t sop, const struct marrow_emu_qp *qp, uint16_t wqe_counter,
			       uint32_t byte_cnt, uint32_t imm_be, uint8_t synd, uint8_t vsynd);
#endif

EMU_CORE_FN void cqe_commit(struct emu_thread *t, struct marrow_emu_cq *cq, uint8_t *tmp,
			    uint8_t cqe_opcode, uint8_t synd);
EMU_CORE_INLINE void cqe_body(uint8_t *tmp, uint8_t sop, const struct marrow_emu_qp *qp,
			      uint16_t wqe_counter, uint32_t byte_cnt, uint32_t imm_be, uint8_t synd,
			      uint8_t vsynd);

/* Error result: syndrome in bits 15..8, vendor syndrome in bits 7..0. */
#define RES_ERR(synd, vsynd) (((uint32_t)(synd) << 8) | (uint32_t)(vsynd))

/* The slot of a live MR of pd with this key, or NULL. One table load. */
EMU_CORE_INLINE const struct emu_mr_slot *mr_lookup(const struct marrow_emu_device *dev, uint32_t key,
						  const struct marrow_emu_pd *pd)
{
	uint32_t idx = key >> 8;
	const struct emu_mr_slot *s;

	if (EMU_UNLIKELY(idx >= dev->mr_cap))
		return NULL;
	s = &dev->mrs[idx];
	if (EMU_UNLIKELY(EMU_LD_ACQ(&s->key) != key || s->pd != pd))
		return NULL;
	return s;
}

/* exec_ci is also read (for information) outside the engine thread. */
EMU_CORE_INLINE void set_exec_ci(struct marrow_emu_qp *qp, uint16_t v)
{
	EMU_ST_REL(&qp->exec_ci, v);
}

/* [addr, addr + len) inside the MR, without overflow: an addr below base
 * wraps addr - base past any MR length. */
EMU_CORE_INLINE int mr_covers(const struct emu_mr_slot *s, uint64_t addr, uint64_t len)
{
	return len <= s->len && addr - s->base <= s->len - len;
}

/* The data segments of a WRITE, [seg, end): pointer and/or inline, each
 * lkey checked in qp's PD. Fills t->pieces[0..*np) in order and the inline
 * and gathered byte counts; RES_OK or the local error. Shared by the RC
 * and the DC write (inlined into each). */
EMU_CORE_INLINE uint32_t gather_segs(struct emu_thread *t, const struct marrow_emu_qp *qp, const uint8_t *seg,
				     const uint8_t *end, uint32_t *np, uint64_t *inlp, uint64_t *gatp)
{
	const struct marrow_emu_device *dev = t->dev;
	struct emu_piece *pc = t->pieces;
	uint64_t inl = 0, gat = 0;
	uint32_t n = 0;

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
	*np = n;
	*inlp = inl;
	*gatp = gat;
	return RES_OK;
}

/* RDMA_WRITE / RDMA_WRITE_IMM: gather (pointer and/or inline segments),
 * validate everything, then place the bytes at the peer. */
EMU_CORE_FN uint32_t exec_write(struct emu_thread *t, struct marrow_emu_qp *qp, const uint8_t *w,
			   uint32_t ds, int with_imm)
{
	const struct marrow_emu_device *dev = t->dev;
	struct emu_piece *pc = t->pieces;
	uint64_t inl, gat, total;
	uint32_t n, rq_ci = 0, res;
	struct marrow_emu_qp *peer;
	uint32_t pst;
	uint8_t *dst = NULL;

	if (EMU_UNLIKELY(ds < 2)) {
		CTR(t, wqe_sanity_fail)++;
		return RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_MALFORMED);
	}
	res = gather_segs(t, qp, w + MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE, w + ds * MX_DS_SIZE, &n, &inl, &gat);
	if (EMU_UNLIKELY(res != RES_OK))
		return res;
	total = inl + gat;
	if (EMU_UNLIKELY(total > EMU_MSG_MAX))
		return RES_ERR(MX_SYND_LOCAL_LENGTH, EMU_VSYND_MSG_LEN);

#if defined(EMU_HAS_SHMWIRE) && !defined(__CUDA_ARCH__)
	/* A peer in another process: the wire checks and places (emu_shmwire.c).
	 * Host engine only; such a QP has no local peer, so fast_run never takes it. */
	if (EMU_UNLIKELY(qp->shmwire != NULL))
		return emu_shmwire_write(t, qp, w, pc, n, inl, gat, with_imm);
#endif
	/* Responder checks, in rxe order: state, QP rights, RQ, rkey. */
	peer = qp->peer;
	pst = peer ? EMU_LD_ACQ(&peer->state) : MARROW_QPS_RESET;
	if (EMU_UNLIKELY(pst != MARROW_QPS_RTS && pst != MARROW_QPS_RTR))
		return RES_WAIT_ACK;   /* no ACK comes back: the requester times out */
	if (EMU_UNLIKELY(!(peer->access & MARROW_ACCESS_REMOTE_WRITE)))
		return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_QP_RIGHTS);
	if (with_imm) {
		if (EMU_UNLIKELY(peer->rq_cnt == 0))
			return RES_ERR(MX_SYND_REMOTE_INVAL_REQ, EMU_VSYND_PEER_NO_RQ);
		uint16_t rq_pi = (uint16_t)mx_be32toh(EMU_LD_ACQ(&peer->dbrec[MX_DBR_RCV]));
		rq_ci = EMU_LD_ACQ(&peer->rq_ci);
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
		while (!EMU_CAS(&peer->rq_ci, &rq_ci, rq_ci + 1)) {
			uint16_t rq_pi = (uint16_t)mx_be32toh(EMU_LD_ACQ(&peer->dbrec[MX_DBR_RCV]));

			if ((uint16_t)(rq_pi - rq_ci) == 0)
				return RES_WAIT_RNR;
		}
	}

	for (uint32_t i = 0; i < n; i++) {
		EMU_MEMMOVE(dst, pc[i].src, pc[i].len);
		dst += pc[i].len;
	}
	CTR(t, inline_bytes) += inl;
	CTR(t, gather_bytes) += gat;
	CTR(t, payload_bytes_tx) += total;
	CTR(t, payload_bytes_rx) += total;
	EMU_CORE_WIRE_SENT(t, total, with_imm);
	if (with_imm)
		emu_cqe_post(t, peer->rcq, MX_CQE_RESP_WR_IMM, 0, peer, (uint16_t)rq_ci,
			     (uint32_t)total, mx_ctrl_imm_be(w), 0, 0);
	return RES_OK;
}

#if !defined(__CUDACC__)
/* The DCT of this device with number dctn, or NULL. A linear scan of the
 * device's DCT table (changed only while the engine is parked): enough for
 * the tens of DCTs of the tests and of a PE's peers; a connection-scaling
 * experiment with thousands of DCTs would want an indexed table. */
EMU_CORE_INLINE const struct marrow_emu_dct *dct_lookup(const struct marrow_emu_device *dev, uint32_t dctn)
{
	for (uint32_t i = 0; i < dev->dcts_len; i++)
		if (dev->dcts[i]->dctn == dctn)
			return dev->dcts[i];
	return NULL;
}

/* RDMA_WRITE of a DCI (docs/design/dc-transport.md): ctrl, the address
 * vector (16 bytes, or 48 with bit 31 of its DCT word set), raddr, data.
 * The AV names the target, so every WQE may go somewhere else. Checks in
 * the order a responder meets them: a DCT with that number (none: nothing
 * answers, the requester's ACK timer runs out), its DC access key, its
 * REMOTE_WRITE right, then the rkey in the DCT's PD; all before the first
 * byte moves, as for RC. WRITE_IMM over DC is not emulated (a DCT has no
 * receive queue here). Host engine only: the device engine (CUDA) has no
 * DCT table yet and fails a DCI's WRITE with LOCAL_QP_OP/BAD_OPCODE. */
EMU_CORE_FN uint32_t exec_dc_write(struct emu_thread *t, struct marrow_emu_qp *qp, const uint8_t *w,
				   uint32_t ds, int with_imm)
{
	const struct marrow_emu_device *dev = t->dev;
	const uint8_t *av = w + MX_CTRL_SEG_SIZE;
	const struct marrow_emu_dct *dct;
	struct emu_piece *pc = t->pieces;
	uint64_t inl, gat, total;
	uint32_t n, res, hdr;
	uint8_t *dst = NULL;

	if (EMU_UNLIKELY(with_imm))
		return RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_BAD_OPCODE);
	/* The AV's size is in its own DCT word: read that only when ds covers
	 * the base AV, then check that ds covers the whole header. */
	if (EMU_UNLIKELY(ds * MX_DS_SIZE < MX_CTRL_SEG_SIZE + MX_AV_BASE_SIZE + MX_RADDR_SEG_SIZE)) {
		CTR(t, wqe_sanity_fail)++;
		return RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_MALFORMED);
	}
	hdr = MX_CTRL_SEG_SIZE + mx_av_wqe_size(av) + MX_RADDR_SEG_SIZE;
	if (EMU_UNLIKELY(ds * MX_DS_SIZE < hdr)) {
		CTR(t, wqe_sanity_fail)++;
		return RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_MALFORMED);
	}
	res = gather_segs(t, qp, w + hdr, w + ds * MX_DS_SIZE, &n, &inl, &gat);
	if (EMU_UNLIKELY(res != RES_OK))
		return res;
	total = inl + gat;
	if (EMU_UNLIKELY(total > EMU_MSG_MAX))
		return RES_ERR(MX_SYND_LOCAL_LENGTH, EMU_VSYND_MSG_LEN);

	dct = dct_lookup(dev, mx_av_dctn(av));
	if (EMU_UNLIKELY(dct == NULL))
		return RES_WAIT_ACK;   /* no DCT answers: the requester times out */
	if (EMU_UNLIKELY(mx_av_dc_key(av) != dct->dc_key))
		return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_QP_RIGHTS);
	if (EMU_UNLIKELY(!(dct->access & MARROW_ACCESS_REMOTE_WRITE)))
		return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_QP_RIGHTS);
	if (total) {
		const uint8_t *ra = w + hdr - MX_RADDR_SEG_SIZE;
		uint64_t raddr = emu_be64(ra);
		uint32_t rkey = emu_be32(ra + 8);
		const struct emu_mr_slot *s = mr_lookup(dev, rkey, dct->pd);

		if (EMU_UNLIKELY(s == NULL))
			return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_BAD_RKEY);
		if (EMU_UNLIKELY(!(s->access & MARROW_ACCESS_REMOTE_WRITE)))
			return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_RKEY_RIGHTS);
		if (EMU_UNLIKELY(!mr_covers(s, raddr, total)))
			return RES_ERR(MX_SYND_REMOTE_ACCESS, EMU_VSYND_RKEY_RANGE);
		dst = (uint8_t *)(uintptr_t)raddr;
	}
	for (uint32_t i = 0; i < n; i++) {
		EMU_MEMMOVE(dst, pc[i].src, pc[i].len);
		dst += pc[i].len;
	}
	CTR(t, inline_bytes) += inl;
	CTR(t, gather_bytes) += gat;
	CTR(t, payload_bytes_tx) += total;
	CTR(t, payload_bytes_rx) += total;
	EMU_CORE_WIRE_SENT(t, total, 0);
	return RES_OK;
}
#endif /* !__CUDACC__ */

/* 8 bytes of a shadow WQEBB (8-byte aligned there). */
EMU_CORE_INLINE uint64_t fr_ld64(const uint8_t *p)
{
#if defined(__CUDA_ARCH__)
	return *(const uint64_t *)p;
#else
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
#endif
}

/* A big-endian 64-bit field of a shadow WQEBB: one load and one swap. */
EMU_CORE_INLINE uint64_t fr_be64(const uint8_t *p)
{
#if defined(__CUDA_ARCH__)
	return mx_be64toh(fr_ld64(p));
#else
	return __builtin_bswap64(fr_ld64(p));
#endif
}

/* The shape of a fast WQE (fast_span and the device engine's lane path,
 * emu_exec_lane.h): control bytes 0..7 as stored (ctrl_lo, one
 * little-endian load) against the ds-3 pattern for index ci (ctrl_ds3:
 * opmod ignored, WQE index, RDMA WRITE, QPN, ds 3; a ds-4 WQE differs by
 * exactly 1 << 56), and the inline segment's byte_count word as stored
 * (inl_raw): one inline segment of 1..28 bytes whose padded size is exactly
 * the rest of the WQE (1..12 bytes with ds 3, 13..28 with ds 4). Returns
 * the payload length, or 0 for any other WQE. */
EMU_CORE_INLINE uint32_t fast_shape(uint64_t ctrl_lo, uint32_t inl_raw, uint64_t ctrl_ds3, uint16_t ci)
{
	uint64_t d = (ctrl_lo & ~(uint64_t)0xff) - (ctrl_ds3 | ((uint64_t)mx_htobe16(ci) << 8));
	uint32_t ds4 = (uint32_t)(d >> 56);
	uint32_t n = mx_be32toh(inl_raw) - MX_INLINE_SEG_FLAG;   /* flag clear: wraps to >= 2^31 */

	if (EMU_UNLIKELY((d & ~((uint64_t)1 << 56)) != 0 || n - 1u - 12u * ds4 > 11u + 4u * ds4))
		return 0;
	return n;
}

/* The remote checks of a fast WQE, as exec_write makes them: the rkey
 * names a live MR of the peer's PD with REMOTE_WRITE, and [raddr, raddr +
 * n) lies inside it. *key_be_ok, *base and *len cache the last MR that
 * passed (key as stored; no live MR has key 0, and len 0 fails every range
 * check): a WQE to the same rkey makes no table lookup. */
EMU_CORE_INLINE int fast_remote_ok(const struct marrow_emu_device *dev, const struct marrow_emu_pd *pd,
				   uint32_t rkey_be, uint64_t raddr, uint32_t n, uint32_t *key_be_ok, uint64_t *base,
				   uint64_t *len)
{
	if (EMU_UNLIKELY(rkey_be != *key_be_ok)) {
		const struct emu_mr_slot *s = mr_lookup(dev, mx_be32toh(rkey_be), pd);

		if (s == NULL || !(s->access & MARROW_ACCESS_REMOTE_WRITE))
			return 0;
		*key_be_ok = rkey_be;
		*base = s->base;
		*len = s->len;
	}
	return !EMU_UNLIKELY(n > *len || raddr - *base > *len - n);
}

/* A pointer WRITE that the device engine's lane path runs without the core
 * (emu_exec_lane.h, docs/design/device-engine.md §2.8): one WQEBB, ds 3 or
 * 4, that is one or two data segments (no inline segment). Its payload as
 * exec_write would gather it: n0 bytes from src0, then n1 from src1 (n1 0:
 * one piece), placed at raddr. */
struct fast_ptr_wqe {
	uint64_t raddr, src0, src1;
	uint32_t n0, n1;
};

/* The shape of a pointer fast WQE: control bytes 0..7 as fast_shape reads
 * them, and the byte_count words (as stored) of the first and, with ds 4,
 * the second data segment, neither inline. Returns the number of data
 * segments (1 or 2), or 0 for any other WQE. */
EMU_CORE_INLINE uint32_t fast_ptr_shape(uint64_t ctrl_lo, uint32_t bc0_raw, uint32_t bc1_raw, uint64_t ctrl_ds3,
					uint16_t ci)
{
	uint64_t d = (ctrl_lo & ~(uint64_t)0xff) - (ctrl_ds3 | ((uint64_t)mx_htobe16(ci) << 8));
	uint32_t ds4 = (uint32_t)(d >> 56);

	if (EMU_UNLIKELY((d & ~((uint64_t)1 << 56)) != 0))
		return 0;
	if ((mx_be32toh(bc0_raw) & MX_INLINE_SEG_FLAG) || (ds4 && (mx_be32toh(bc1_raw) & MX_INLINE_SEG_FLAG)))
		return 0;
	return 1 + ds4;
}

/* exec_write's check of one data segment's source: a live MR of the QP's
 * PD under lkey (no access right is needed to read a local MR) whose range
 * holds [addr, addr + n). Caches the last MR that passed as fast_remote_ok
 * does. n 0 passes (exec_write skips a zero-length segment). */
EMU_CORE_INLINE int fast_local_ok(const struct marrow_emu_device *dev, const struct marrow_emu_pd *pd,
				  uint32_t lkey_be, uint64_t addr, uint32_t n, uint32_t *key_be_ok, uint64_t *base,
				  uint64_t *len)
{
	if (n == 0)
		return 1;
	if (EMU_UNLIKELY(lkey_be != *key_be_ok)) {
		const struct emu_mr_slot *s = mr_lookup(dev, mx_be32toh(lkey_be), pd);

		if (s == NULL)
			return 0;
		*key_be_ok = lkey_be;
		*base = s->base;
		*len = s->len;
	}
	return !EMU_UNLIKELY(n > *len || addr - *base > *len - n);
}

/* [a, a + na) and [b, b + nb) share no byte (modular, as mr_covers; an
 * empty range shares none). */
EMU_CORE_INLINE int fast_disjoint(uint64_t a, uint64_t na, uint64_t b, uint64_t nb)
{
	return na == 0 || nb == 0 || (a - b >= nb && b - a >= na);
}

/* All of exec_write's checks of a pointer fast WQE but the peer's state
 * (the caller's): its shape (fast_ptr_shape, WQE index ci), each data
 * segment's lkey and range in the QP's PD pd (fast_local_ok), the total
 * (1 .. EMU_MSG_MAX; a zero-length WRITE is the core's) and the rkey, rights
 * and range in the peer's PD (fast_remote_ok). Also that no source overlaps
 * the destination, so the pieces can be copied in any order, by any number
 * of threads, and leave the bytes exec_write's memmoves in order leave (an
 * overlapping WQE is the core's). The WQE is given as the 32-bit words it
 * holds as stored: the control segment's first two, the remote address
 * segment's first three and both data segments' (s1 is ignored with ds 3).
 * Returns the payload length with *p filled, or 0: not a fast pointer WQE
 * (execute() then decides, with the authoritative checks). Host-compiled
 * too: the lane fuzzer (native/fuzz/lane_fuzz.c) holds it to exec_write. */
EMU_CORE_INLINE uint32_t fast_ptr_check(const struct marrow_emu_device *dev, const struct marrow_emu_pd *pd,
					const struct marrow_emu_pd *peer_pd, uint64_t ctrl_ds3, uint16_t ci,
					uint64_t ctrl_lo, uint32_t ra_hi, uint32_t ra_lo, uint32_t rkey_be,
					uint32_t s0_bc, uint32_t s0_key, uint32_t s0_hi, uint32_t s0_lo, uint32_t s1_bc,
					uint32_t s1_key, uint32_t s1_hi, uint32_t s1_lo, uint32_t *lkey_ok,
					uint64_t *lbase, uint64_t *llen, uint32_t *rkey_ok, uint64_t *rbase,
					uint64_t *rlen, struct fast_ptr_wqe *p)
{
	const uint32_t nseg = fast_ptr_shape(ctrl_lo, s0_bc, s1_bc, ctrl_ds3, ci);

	if (nseg == 0)
		return 0;
	p->n0 = mx_be32toh(s0_bc);
	p->n1 = nseg == 2 ? mx_be32toh(s1_bc) : 0u;
	p->src0 = ((uint64_t)mx_be32toh(s0_hi) << 32) | mx_be32toh(s0_lo);
	p->src1 = ((uint64_t)mx_be32toh(s1_hi) << 32) | mx_be32toh(s1_lo);
	p->raddr = ((uint64_t)mx_be32toh(ra_hi) << 32) | mx_be32toh(ra_lo);
	/* Both below 2^31 (no inline flag): the sum does not wrap. */
	const uint32_t total = p->n0 + p->n1;

	if (EMU_UNLIKELY(total == 0 || total > EMU_MSG_MAX))
		return 0;
	if (!fast_local_ok(dev, pd, s0_key, p->src0, p->n0, lkey_ok, lbase, llen) ||
	    !fast_local_ok(dev, pd, s1_key, p->src1, p->n1, lkey_ok, lbase, llen))
		return 0;
	if (!fast_remote_ok(dev, peer_pd, rkey_be, p->raddr, total, rkey_ok, rbase, rlen))
		return 0;
	if (!fast_disjoint(p->src0, p->n0, p->raddr, total) || !fast_disjoint(p->src1, p->n1, p->raddr, total))
		return 0;
	return total;
}

/* What fast_span needs: what is fixed for a run, and what one span hands
 * to the next (fast_span is inlined: these live in registers). */
struct fast_ctx {
	const uint8_t *shadow;
	uint64_t mr_base;
	const struct marrow_emu_qp *peer;
	uint64_t mr_len;
	uint64_t ctrl_ds3;         /* control bytes 0..7 of a ds-3 WQE with index 0, as stored */
	uint64_t bytes;            /* payload bytes executed, not yet counted */
	const uint8_t *pf;         /* next SQ line to prefetch */
	uint32_t sh_mask;
	uint32_t rkey_be_ok;       /* rkey (as stored) of the checked MR; 0: none */
	const uint8_t *pf_end;
	uint32_t last_len;         /* payload bytes of the last WQE executed */
	int signaled;              /* the last WQE executed asked for a CQE */
#if defined(__CUDACC__)
	uint32_t pst0;             /* the peer's state for the next WQE, read early; UINT32_MAX: none */
#endif
};

/* Executes fast WQEs from ci up to end, through the first signaled one;
 * returns the new ci. A loop without calls (the CQE path and the wire
 * model, which call out, are fast_run's): with a call inside, the compiler
 * kept the loop's values on the stack and reloaded them on every WQE. */
#ifndef __CUDA_ARCH__
__attribute__((always_inline))
#endif
EMU_CORE_INLINE uint16_t fast_span(const struct marrow_emu_device *dev, struct fast_ctx *c, uint16_t ci,
			       uint16_t end)
{
	const uint8_t *const shadow = c->shadow;
	const struct marrow_emu_qp *const peer = c->peer;
	const uint64_t ctrl_ds3 = c->ctrl_ds3;
	const uint32_t sh_mask = c->sh_mask;
	uint32_t rkey_be_ok = c->rkey_be_ok;
	uint64_t mr_base = c->mr_base, mr_len = c->mr_len, bytes = c->bytes;
	const uint8_t *pf = c->pf;
	const uint8_t *const pf_end = c->pf_end;
	uint32_t len = 0;
	int signaled = 0;
#if defined(__CUDACC__)
	uint32_t pst0 = c->pst0;
#endif

	while (ci != end) {
#if defined(__CUDACC__)
		/* Relaxed on the device, and issued before the WQE's loads: the
		 * two round trips overlap. Nothing published with a state change
		 * is read after it (docs/design/device-engine.md §2.2), and an
		 * acquire would empty L1 before the WQE's own reads. The first
		 * WQE after a doorbell uses the value emu_dev_qp_poll_own read
		 * right after its acquire (§2.3). */
		const uint32_t pst_early = pst0 != UINT32_MAX ? pst0 : EMU_LD_RLX(&peer->state);

		pst0 = UINT32_MAX;
#endif
		const uint8_t *w = shadow + (size_t)(ci & sh_mask) * MX_WQEBB_SIZE;
		uint32_t n = fast_shape(fr_ld64(w), emu_ld32(w + MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE), ctrl_ds3, ci);
		uint32_t rkey_be, pst;
		uint64_t raddr;

		if (n == 0)
			break;
#if defined(__CUDACC__)
		pst = pst_early;
#else
		pst = EMU_LD_ACQ(&peer->state);
#endif
		if (EMU_UNLIKELY(pst != MARROW_QPS_RTS && pst != MARROW_QPS_RTR))
			break;
		raddr = fr_be64(w + MX_CTRL_SEG_SIZE);
		rkey_be = emu_ld32(w + MX_CTRL_SEG_SIZE + 8);
		if (!fast_remote_ok(dev, peer->pd, rkey_be, raddr, n, &rkey_be_ok, &mr_base, &mr_len))
			break;
#if !defined(__CUDA_ARCH__)
		if (EMU_LIKELY(n == 8)) {
			/* The rate benchmarks' size: one load and one store. */
			uint64_t v;

			__builtin_memcpy(&v, w + MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE + MX_INLINE_HDR_SIZE, 8);
			__builtin_memcpy((uint8_t *)(uintptr_t)raddr, &v, 8);
		} else
#endif
		{
			EMU_COPY_SMALL((uint8_t *)(uintptr_t)raddr,
				       w + MX_CTRL_SEG_SIZE + MX_RADDR_SEG_SIZE + MX_INLINE_HDR_SIZE, n);
		}
		bytes += n;
		len = n;
		if (pf != pf_end) {
			EMU_PREFETCH_RD(pf);
			pf += MX_WQEBB_SIZE;
		}
		ci++;
		if (mx_ctrl_fm_ce_se(w) & MX_CTRL_CQ_UPDATE) {
			signaled = 1;
			break;
		}
	}
	c->rkey_be_ok = rkey_be_ok;
	c->mr_base = mr_base;
	c->mr_len = mr_len;
	c->bytes = bytes;
	c->pf = pf;
	c->last_len = len;
	c->signaled = signaled;
#if defined(__CUDACC__)
	c->pst0 = pst0;
#endif
	return ci;
}

/* The common case: a run of RDMA WRITEs of one WQEBB whose only data
 * segment is one inline segment filling the WQE (ds 3 or 4, 1..28 bytes),
 * to a peer in RTR/RTS, with no retry pending. Executes such WQEs from
 * exec_ci on, with the checks of exec_write, and stops at the first WQE that
 * is anything else (malformed ones included), which execute() then handles
 * with the authoritative checks; a WQE it stops at is left untouched.
 * Returns the number of WQEs executed.
 *
 * Why a loop of its own: the general loop is too large to keep its state
 * in registers, and the payload stores (which may alias anything) force
 * reloads of whatever lives in memory. Here everything that holds for the
 * whole run is loaded once: the peer pointer, its rights and PD, the MR
 * table and the wire model change only while the engine is parked
 * (emu_internal.h), and a live MR slot keeps its key, base, length and
 * rights until a deregistration, which parks the engine too; so the last
 * rkey's checked slot is reused. The peer's state is read for every WQE
 * (another engine thread may move it to ERR). Counters and exec_ci are
 * written before every CQE (a poller that sees a CQE sees counters and
 * exec_ci that include it) and at the end of the run; the run's CQEs share
 * one encoded body that differs only in wqe_counter and the timestamp
 * (docs/design/software-nic.md section 6.1).
 *
 * While it executes, it prefetches the SQ lines the next fetch() will copy,
 * one per WQE executed, but only lines a doorbell already covers (up to
 * db_target): the producer wrote those before it rang and writes them again
 * only after they retire, so the hint moves no line the producer owns and
 * the copy itself stays the one read of each WQE. */
#ifndef __CUDA_ARCH__
__attribute__((noinline))
#endif
EMU_CORE_FN uint32_t fast_run(struct emu_thread *t, struct marrow_emu_qp *qp, uint16_t fetch_pi)
{
	const struct marrow_emu_device *dev = t->dev;
	const int wire = EMU_CORE_WIRE_ON(t);
	const uint16_t start = qp->exec_ci;
	uint16_t ci = start, counted = start;
	uint32_t sq_slot = fetch_pi & qp->sq_mask;
	uint32_t pf_left = (uint16_t)(qp->db_target - fetch_pi);
	uint8_t cqe_tmpl[MX_CQE_SIZE] __attribute__((aligned(16)));
	int have_tmpl = 0;
	struct fast_ctx c;

	if (qp->peer == NULL || !(qp->peer->access & MARROW_ACCESS_REMOTE_WRITE))
		return 0;
#if defined(__CUDACC__)
	struct emu_d_mr_cache *const mrc = EMU_D_MR_CACHE(t);
	const struct marrow_emu_pd *const peer_pd = qp->peer->pd;
#endif
#if defined(__CUDACC__) && !EMU_DEV_SYS
	/* GPU-resident queues: the fast loop reads the fetched WQEs where the
	 * producer wrote them, in the SQ ring, not in the shadow copy. fetch()
	 * just loaded those lines, so they are in this SM's L1, while the
	 * shadow lines it stored are not; and every WQE here lies in
	 * [exec_ci, fetch_pi), covered by a rung doorbell and not retired, so
	 * the producer does not write its slot before it retires: the bytes
	 * are the shadow's (docs/design/device-engine.md §2.2). */
	c.shadow = qp->sq;
#else
	c.shadow = qp->shadow;
#endif
	c.peer = qp->peer;
	/* Control segment bytes 0..7 as stored, loaded as one little-endian
	 * word: opmod (byte 0, ignored as in execute()), WQE index (BE16),
	 * opcode, then BE32(qpn << 8 | ds). */
	c.ctrl_ds3 = ((uint64_t)mx_htobe32((qp->qpn << 8) | 3u) << 32) |
		     ((uint64_t)MX_OPCODE_RDMA_WRITE << 24);
#if defined(__CUDACC__) && !EMU_DEV_SYS
	c.sh_mask = qp->sq_mask;   /* with c.shadow: the SQ ring */
#else
	c.sh_mask = qp->sh_mask;
#endif
	/* No live MR has key 0, and mr_len 0 fails every range check: a WQE
	 * with rkey 0 stops the run without a table lookup. */
	c.rkey_be_ok = 0;
	c.mr_base = c.mr_len = c.bytes = 0;
#if defined(__CUDACC__)
	/* The device engine's MR table is fixed while it runs: the MR the last
	 * run checked for this PD is still good (emu_d_mr_cache), and a run to
	 * the same rkey makes no table lookup. */
	if (mrc->pd == peer_pd) {
		c.rkey_be_ok = mrc->key_be;
		c.mr_base = mrc->base;
		c.mr_len = mrc->len;
	}
	/* The peer's state emu_dev_qp_poll_own read after the doorbell's
	 * acquire serves the run's first WQE (once: it is dropped here). */
	{
		struct emu_d_early *const ea = EMU_D_EARLY(t);

		c.pst0 = ea->peer == qp->peer ? ea->peer_state : UINT32_MAX;
		ea->peer = nullptr;
	}
#endif
	/* Prefetch window: from fetch_pi up to the doorbell's target, stopping
	 * at the ring's end (the next run continues from there). */
	if (pf_left > qp->sq_cnt)
		pf_left = 0;   /* an overflowing doorbell: sq_progress reports it */
	if (pf_left > qp->sq_cnt - sq_slot)
		pf_left = qp->sq_cnt - sq_slot;
	c.pf = qp->sq + (size_t)sq_slot * MX_WQEBB_SIZE;
	c.pf_end = c.pf + (size_t)pf_left * MX_WQEBB_SIZE;
	while (ci != fetch_pi) {
		/* With a wire model, one WQE per span: it accounts each message. */
		uint16_t end = EMU_UNLIKELY(wire) ? (uint16_t)(ci + 1) : fetch_pi;
		uint16_t next = fast_span(dev, &c, ci, end);

		if (next == ci)
			break;   /* a WQE for execute() */
		ci = next;
		if (EMU_UNLIKELY(wire))
			EMU_CORE_WIRE_SENT(t, c.last_len, 0);
		if (c.signaled) {
			uint16_t wc_be = mx_htobe16((uint16_t)(ci - 1));

			set_exec_ci(qp, ci);
			CTR(t, wqe_rdma_write) += (uint16_t)(ci - counted);
			CTR(t, inline_bytes) += c.bytes;
			CTR(t, payload_bytes_tx) += c.bytes;
			CTR(t, payload_bytes_rx) += c.bytes;
			counted = ci;
			c.bytes = 0;
			/* The bytes emu_cqe_post(.., MX_CQE_REQ, MX_OPCODE_RDMA_WRITE,
			 * qp, ci - 1, 0, 0, 0, 0) writes; a run's CQEs share the body. */
			if (!have_tmpl) {
				cqe_body(cqe_tmpl, MX_OPCODE_RDMA_WRITE, qp, 0, 0, 0, 0, 0);
				have_tmpl = 1;
			}
			EMU_STAGE(t, qp, EMU_STAGE_EXECUTED);
			EMU_MEMCPY(cqe_tmpl + MX_CQE_OFF_WQE_COUNTER, &wc_be, 2);
			cqe_commit(t, qp->scq, cqe_tmpl, MX_CQE_REQ, 0);
			EMU_STAGE(t, qp, EMU_STAGE_CQE);
		}
	}
	if (ci != counted) {
		set_exec_ci(qp, ci);
		CTR(t, wqe_rdma_write) += (uint16_t)(ci - counted);
		CTR(t, inline_bytes) += c.bytes;
		CTR(t, payload_bytes_tx) += c.bytes;
		CTR(t, payload_bytes_rx) += c.bytes;
	}
#if defined(__CUDACC__)
	if (c.rkey_be_ok != 0) {
		mrc->key_be = c.rkey_be_ok;
		mrc->pd = peer_pd;
		mrc->base = c.mr_base;
		mrc->len = c.mr_len;
	}
#endif
	return (uint16_t)(ci - start);
}

/* First error of a QP: error CQE even if unsignaled, QP to ERR. */
EMU_CORE_FN void qp_fail(struct emu_thread *t, struct marrow_emu_qp *qp, uint8_t opcode, uint16_t ci,
		    uint32_t res)
{
	uint8_t synd = (uint8_t)(res >> 8);
	struct marrow_emu_qp *peer = qp->peer;

	emu_cqe_post(t, qp->scq, MX_CQE_REQ_ERR, opcode, qp, ci, 0, 0, synd, (uint8_t)res);
	EMU_ST_REL(&qp->state, MARROW_QPS_ERR);
	if ((synd == MX_SYND_REMOTE_ACCESS || synd == MX_SYND_REMOTE_INVAL_REQ) && peer && peer != qp) {
		uint32_t s = EMU_LD_ACQ(&peer->state);

		while ((s == MARROW_QPS_RTR || s == MARROW_QPS_RTS) &&
		       !EMU_CAS(&peer->state, &s, MARROW_QPS_ERR))
			;
	}
}

/* WQEBBs [c, c + n) of the SQ ring into the shadow, one copy per piece that
 * is contiguous in both rings: fetch()'s copy, and the device engine's lane
 * path's when it hands fetched WQEs to execute() (emu_exec_lane.h). */
EMU_CORE_INLINE void shadow_fill(struct marrow_emu_qp *qp, uint16_t c, uint32_t n)
{
	while (n) {
		uint32_t sq_slot = c & qp->sq_mask, sh_slot = c & qp->sh_mask;
		uint32_t k = n;

		if (k > qp->sq_cnt - sq_slot)
			k = qp->sq_cnt - sq_slot;
		if (k > qp->sh_cnt - sh_slot)
			k = qp->sh_cnt - sh_slot;
#if defined(__CUDACC__)
		/* GPU-resident queues whose shadow is the SQ ring itself (the
		 * device control path makes it so when both have one size):
		 * sh_slot is sq_slot and the copy would store each byte onto
		 * itself. The WQEs in [exec_ci, fetch_pi) are covered by a rung
		 * doorbell and not retired, so the producer does not write them
		 * again before they retire (docs/design/device-engine.md §2.3).
		 * Their lines are brought into L1 together instead, as the
		 * copy's loads did: the fast loop's and execute()'s reads then
		 * hit, rather than missing one WQE after the other behind each
		 * payload store. Every 32-byte sector: the hint may fetch less
		 * than a line. */
		if (qp->shadow == qp->sq) {
			const uint8_t *const p = qp->sq + (size_t)sq_slot * MX_WQEBB_SIZE;

			for (uint32_t b = 0; b < k * MX_WQEBB_SIZE; b += 32)
				emu_d_prefetch_l1(p + b);
		} else
#endif
		EMU_MEMCPY(qp->shadow + (size_t)sh_slot * MX_WQEBB_SIZE,
		       qp->sq + (size_t)sq_slot * MX_WQEBB_SIZE, (size_t)k * MX_WQEBB_SIZE);
		c = (uint16_t)(c + k);
		n -= k;
	}
}

/* Copies WQEBBs [fetch_pi, min(target, exec_ci + shadow size)) out of the
 * SQ ring, once; a run is one contiguous read of the ring. */
EMU_CORE_FN void fetch(struct emu_thread *t, struct marrow_emu_qp *qp, uint16_t target)
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
	shadow_fill(qp, c, n);
	qp->fetch_pi = (uint16_t)(c + n);
}

/* WQEBBs to skip for a WQE that is not executed: its ds if plausible,
 * else one WQEBB (the rest is parsed as the next WQE). */
EMU_CORE_INLINE uint32_t skip_bbs(uint32_t ds, uint32_t avail)
{
	uint32_t nbb = (ds + 3) / 4;

	if (ds == 0)
		return 1;
	return nbb < avail ? nbb : avail;
}

/* IB RNR timer codes (min_rnr_timer) in units of 10 us; code 0 = 655.36 ms. */
EMU_CORE_TABLE uint32_t rnr_timer_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
};

EMU_CORE_API uint64_t emu_rnr_timer_ns(const struct marrow_emu_device *dev, uint32_t code)
{
	return (uint64_t)rnr_timer_10us[code & 31] * 10000u / dev->time_divisor;
}

/* Local ACK timeout 4.096 us * 2^timeout; 0 means no timeout at all. */
EMU_CORE_API uint64_t emu_ack_timeout_ns(const struct marrow_emu_device *dev, uint32_t timeout)
{
	if (timeout == 0)
		return UINT64_MAX / 4;
	return ((uint64_t)4096u << timeout) / dev->time_divisor;
}

/* The WQE at exec_ci could not run (no RQ WQE at the peer: RNR NAK; peer
 * silent: ACK timeout). Starts or continues the retry schedule the QP's
 * attributes give; returns RES_OK to keep waiting, or the error once the
 * retries are used up. Called at the first attempt and at each retry time. */
EMU_CORE_FN uint32_t wait_or_fail(struct emu_thread *t, struct marrow_emu_qp *qp, uint32_t kind)
{
	const struct marrow_emu_device *dev = t->dev;
	uint64_t now = EMU_NOW_NS();
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

/* A DCI's WRITE: the host engine executes it (exec_dc_write); the device
 * engine has no DCT table yet and refuses it as an opcode it does not run. */
#if !defined(__CUDACC__)
#define EMU_DC_WRITE(t, qp, w, ds, imm) exec_dc_write(t, qp, w, ds, imm)
#else
#define EMU_DC_WRITE(t, qp, w, ds, imm) RES_ERR(MX_SYND_LOCAL_QP_OP, EMU_VSYND_BAD_OPCODE)
#endif

/* Executes fetched WQEs in order; in ERR, flushes them instead. */
EMU_CORE_FN int execute(struct emu_thread *t, struct marrow_emu_qp *qp, uint32_t st)
{
	/* Nothing below moves fetch_pi or the rings; keep them in registers
	 * (the payload stores would otherwise force reloads). */
	const uint16_t fetch_pi = qp->fetch_pi;
	const uint8_t *const shadow = qp->shadow;
	const uint32_t sh_mask = qp->sh_mask, sq_cnt = qp->sq_cnt, qpn = qp->qpn;
	int work = 0;

	while (qp->exec_ci != fetch_pi) {
		/* One WQEBB is always complete and never waits for retries. */
		if (EMU_LIKELY(st == MARROW_QPS_RTS && qp->wait_kind == EMU_WAIT_NONE) &&
		    fast_run(t, qp, fetch_pi)) {
			work = 1;
			if (qp->exec_ci == fetch_pi)
				break;
		}
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
		if (nbb > avail)
			break;   /* rest of this WQE not posted (or not fetched) yet */
		if (EMU_UNLIKELY(qp->wait_kind != EMU_WAIT_NONE) && EMU_NOW_NS() < qp->retry_at_ns)
			break;   /* between two retries the requester sends nothing */
		if (EMU_UNLIKELY(slot + nbb > qp->sh_cnt)) {
			/* WQE wraps the ring: make it contiguous for parsing. */
			uint32_t first = qp->sh_cnt - slot;

			EMU_MEMCPY(t->wrapbuf, w, (size_t)first * MX_WQEBB_SIZE);
			EMU_MEMCPY(t->wrapbuf + (size_t)first * MX_WQEBB_SIZE, qp->shadow,
			       (size_t)(nbb - first) * MX_WQEBB_SIZE);
			w = t->wrapbuf;
		}

		switch (opcode) {
		case MX_OPCODE_RDMA_WRITE:
			res = EMU_UNLIKELY(qp->dci) ? EMU_DC_WRITE(t, qp, w, ds, 0) : exec_write(t, qp, w, ds, 0);
			if (res > RES_WAIT_ACK || res == RES_OK)
				CTR(t, wqe_rdma_write)++;
			break;
		case MX_OPCODE_RDMA_WRITE_IMM:
			res = EMU_UNLIKELY(qp->dci) ? EMU_DC_WRITE(t, qp, w, ds, 1) : exec_write(t, qp, w, ds, 1);
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
			EMU_STAGE(t, qp, EMU_STAGE_EXECUTED);
			emu_cqe_post(t, qp->scq, MX_CQE_REQ, opcode, qp, ci, 0, 0, 0, 0);
			EMU_STAGE(t, qp, EMU_STAGE_CQE);
		}
	}
	return work;
}

/* Producer more than the SQ size ahead (or behind): a software bug. The
 * ring content is not trustworthy, so report once and skip to target. */
EMU_CORE_FN void sq_overflow(struct emu_thread *t, struct marrow_emu_qp *qp, uint16_t target,
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

EMU_CORE_FN int sq_progress(struct emu_thread *t, struct marrow_emu_qp *qp, uint32_t st)
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
	EMU_STAGE(t, qp, EMU_STAGE_FETCHED);
	/* The common pass is one run of the fast loop: skip execute()'s set-up. */
	if (EMU_LIKELY(st == MARROW_QPS_RTS && qp->wait_kind == EMU_WAIT_NONE) &&
	    qp->exec_ci != qp->fetch_pi && fast_run(t, qp, qp->fetch_pi))
		work = 1;
	if (qp->exec_ci != qp->fetch_pi)
		work |= execute(t, qp, st);
	return work;
}

/* ERR: every posted RQ WQE completes with RESP_ERR / WR_FLUSH. */
EMU_CORE_FN int rq_flush(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	uint16_t pi;
	int work = 0;

	if (qp->rq_cnt == 0)
		return 0;
	pi = (uint16_t)mx_be32toh(EMU_LD_ACQ(&qp->dbrec[MX_DBR_RCV]));
	for (;;) {
		uint32_t ci = EMU_LD_ACQ(&qp->rq_ci);
		uint16_t n = (uint16_t)(pi - ci);

		if (n == 0)
			break;
		if (n > qp->rq_cnt) {
			/* Bogus receive counter: skip, nothing sensible to flush. */
			EMU_CAS(&qp->rq_ci, &ci, ci + n);
			break;
		}
		if (EMU_CAS(&qp->rq_ci, &ci, ci + 1)) {
			emu_cqe_post(t, qp->rcq, MX_CQE_RESP_ERR, 0, qp, (uint16_t)ci, 0, 0,
				     MX_SYND_WR_FLUSH, EMU_VSYND_FLUSH);
			work = 1;
		}
	}
	return work;
}

/* A doorbell routed to qp (not in RESET): its end index becomes qp's
 * target when it is ahead of the current one (exec_ci and db_target are
 * qp's, as the caller loaded them). */
#ifndef __CUDA_ARCH__
__attribute__((always_inline))
#endif
EMU_CORE_INLINE void doorbell_target(struct emu_thread *t, struct marrow_emu_qp *self, struct marrow_emu_qp *qp,
				     uint64_t db, uint16_t exec_ci, uint16_t db_target)
{
	uint16_t end;
	uint32_t ahead, cur;

	end = mx_doorbell_end(db);
	ahead = (uint16_t)(end - exec_ci);
	cur = (uint16_t)(db_target - exec_ci);
	if (ahead <= cur)
		return;   /* the same or an older index: nothing new */
	if (ahead > 0x8000u) {
		CTR(t, doorbells_stale)++;   /* behind what already ran */
		return;
	}
	qp->db_target = end;   /* beyond the SQ size: sq_progress reports the overflow */
	if (qp != self)
		EMU_ACTIVATE(t, qp);
}

/* Routes one doorbell taken from u to the QP it names. */
EMU_CORE_FN void doorbell(struct emu_thread *t, struct marrow_emu_qp *self, struct emu_uar *u,
		     uint64_t db)
{
	uint32_t qpn = mx_doorbell_qpn(db);
	struct marrow_emu_qp *qp = u->qps[0];

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
	if (EMU_UNLIKELY(EMU_LD_ACQ(&qp->state) == MARROW_QPS_RESET)) {
		CTR(t, doorbells_dropped)++;
		return;
	}
	doorbell_target(t, self, qp, db, qp->exec_ci, qp->db_target);
}

#if defined(__CUDACC__)
/* The device engine's doorbell() for a QP alone on its page (u->qps[0] is
 * qp), with the state and the QP fields the caller read: the same checks
 * and counters. The caller loads qpn, exec_ci and db_target before its
 * acquire (emu_dev_qp_poll_own says why they cannot change), so nothing
 * here waits on memory. */
EMU_CORE_INLINE void doorbell_own(struct emu_thread *t, struct marrow_emu_qp *qp, uint64_t db, uint32_t st,
				  uint32_t qpn, uint16_t exec_ci, uint16_t db_target)
{
	CTR(t, doorbells_observed)++;
	if (EMU_UNLIKELY(qpn != mx_doorbell_qpn(db) || st == MARROW_QPS_RESET)) {
		CTR(t, doorbells_dropped)++;
		return;
	}
	doorbell_target(t, qp, qp, db, exec_ci, db_target);
}
#endif

/* A slot holds the last 8-byte doorbell stored to it; the engine empties it
 * (one locked exchange, only when it is non-zero). A doorbell value is
 * never 0: it carries a QPN >= EMU_QPN_BASE. The acquire orders the WQE
 * reads after the doorbell, as the producer ordered them before it. */
EMU_CORE_INLINE int take(struct emu_thread *t, struct marrow_emu_qp *qp, struct emu_uar *u,
		       uint64_t *slot)
{
	uint64_t db;

	if (EMU_LIKELY(EMU_LD_RLX(slot) == 0))
		return 0;
	db = EMU_XCHG_ACQ(slot, 0);
	EMU_STAGE(t, qp, EMU_STAGE_TAKEN);
	doorbell(t, qp, u, db);
	return 1;
}

EMU_CORE_API int emu_qp_poll(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	struct emu_uar *u = qp->uar;
	uint32_t st;
	int work;

	work = take(t, qp, u, (uint64_t *)u->page);
	work |= take(t, qp, u, (uint64_t *)(u->page + EMU_UAR_HALF));
	st = EMU_LD_ACQ(&qp->state);
	if (EMU_LIKELY(st == MARROW_QPS_RTS)) {
		if (qp->db_target != qp->exec_ci || qp->db_target != qp->last_target)
			work |= sq_progress(t, qp, st);
	} else if (st == MARROW_QPS_ERR) {
		work |= sq_progress(t, qp, st);
		work |= rq_flush(t, qp);
	}
	return work;
}

#if defined(__CUDACC__)
/* The device engine's emu_qp_poll for a QP alone on its doorbell page
 * (docs/design/device-engine.md §2.2-2.3). The engine loop loads (relaxed)
 * both slots of the page on every pass and keeps the last value it acted
 * on per slot in registers; fresh (bit 0: slot 0, bit 1: slot 1) says
 * which of v0 / v1 differ from it: those are doorbells not yet taken.
 * Against emu_qp_poll:
 *  - a doorbell is taken by comparison, not by an exchange that empties
 *    the slot: the slot holds the last doorbell stored to it, an mlx5
 *    doorbell carries the producer's index, so a value seen again is the
 *    same doorbell (a producer that stores it twice rings once). The
 *    acquire is one fence.acquire after the loop's relaxed load, only when
 *    a slot is fresh: no atomic, no second load of the slot;
 *  - the QP's state is read once, relaxed, before the acquire, and serves
 *    both doorbell()'s RESET check and the RTS / ERR choice: the device
 *    engine moves no QP into or out of RESET while it runs (connect only
 *    while stopped), and the one change that can race, RTS -> ERR by
 *    another engine thread, is seen at this pass or the next as with
 *    emu_qp_poll. No data is published with a state change that this
 *    thread then reads (it owns every field sq_progress touches; rq_flush
 *    orders its own reads), so the read needs no acquire;
 *  - qpn, exec_ci and db_target are read before the acquire, in the same
 *    round trip as the state, and carried across it in registers: while
 *    the engine runs only this engine thread writes exec_ci and db_target
 *    (the QP's owner; the control path writes them only while it is
 *    stopped) and nobody writes qpn, so the values after the acquire are
 *    these (plain loads: L1 hits while the QP idles, since no acquire runs
 *    between two doorbells);
 *  - right after the acquire, which empties L1, the lines the WQE path
 *    reads next are prefetched together: the QP's hot fields, the SQ line
 *    at fetch_pi (the first WQE the doorbell covers; read after the
 *    acquire, as the fetch would), the peer's and the send CQ's
 *    (their pointers, like sq and fetch_pi, are fixed while the engine
 *    runs or written only by this thread, so they too come from before the
 *    acquire). One round trip then serves what were several dependent
 *    misses.
 * Same doorbell checks, counters and CQEs as emu_qp_poll; what differs
 * (a repeated store of one doorbell value is counted once) is in
 * docs/design/device-engine.md §2.3. */
EMU_CORE_API int emu_dev_qp_poll_own(struct emu_thread *t, struct marrow_emu_qp *qp, uint64_t v0, uint64_t v1,
				     uint32_t fresh)
{
	const uint32_t st = EMU_LD_RLX(&qp->state);
	int work = 0;

	if (fresh != 0) {
		const uint32_t qpn = qp->qpn;
		const uint16_t exec_ci = qp->exec_ci;
		const uint16_t db_target = qp->db_target;
		const uint16_t fetch_pi = qp->fetch_pi;
		const uint8_t *const sq = qp->sq;
		const uint32_t sq_mask = qp->sq_mask;
		const struct marrow_emu_qp *const peer = qp->peer;
		const struct marrow_emu_cq *const scq = qp->scq;

		emu_d_fence_acq();
		EMU_STAGE(t, qp, EMU_STAGE_TAKEN);
		emu_d_prefetch_l1(qp);
		emu_d_prefetch_l1((const uint8_t *)qp + 128);
		emu_d_prefetch_l1(sq + (size_t)(fetch_pi & sq_mask) * MX_WQEBB_SIZE);
		if (peer != NULL)
			emu_d_prefetch_l1(peer);
		if (peer != NULL)
			emu_d_prefetch_l1((const uint8_t *)peer + 128);
		emu_d_prefetch_l1(scq);
		{
			/* The relaxed reads the first fast WQE and its CQE make,
			 * issued now beside the prefetches (emu_d_early). */
			struct emu_d_early *const ea = EMU_D_EARLY(t);

			if (peer != NULL) {
				ea->peer_state = EMU_LD_RLX(&peer->state);
				ea->peer = peer;
			}
			if (scq != NULL) {
				ea->cq_in_error = EMU_LD_RLX(&scq->in_error);
				ea->cq_prod = EMU_LD_RLX(&scq->prod);
				ea->cq_ci_seen = EMU_LD_RLX(&scq->ci_seen);
				ea->cq = scq;
			}
		}
		if (fresh & 1u)
			doorbell_own(t, qp, v0, st, qpn, exec_ci, db_target);
		if (fresh & 2u)
			doorbell_own(t, qp, v1, st, qpn, exec_ci, (fresh & 1u) ? qp->db_target : db_target);
		work = 1;
	}
	if (EMU_LIKELY(st == MARROW_QPS_RTS)) {
		if (qp->db_target != qp->exec_ci || qp->db_target != qp->last_target)
			work |= sq_progress(t, qp, st);
	} else if (st == MARROW_QPS_ERR) {
		work |= sq_progress(t, qp, st);
		work |= rq_flush(t, qp);
	}
	/* Early values serve this doorbell's first WQE and CQE only. */
	EMU_D_EARLY(t)->cq = nullptr;
	EMU_D_EARLY(t)->peer = nullptr;
	return work;
}
#endif

/* Doorbell recovery. Two QPs storing to one shared slot before the engine
 * looks leave only the second doorbell: the first is lost, as a ConnectX
 * loses doorbells it cannot queue. Like the NIC's recovery, the engine then
 * reads the DBR: on a full sweep, a QP on a shared page whose DBR send
 * counter is ahead of every doorbell and unchanged since the previous sweep
 * is served up to the DBR. QPs with a page of their own never need it. */
EMU_CORE_API int emu_qp_recover(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	uint32_t st = EMU_LD_ACQ(&qp->state);
	uint16_t dbr;
	uint32_t ahead;

	if (qp->uar->nqps < 2 || (st != MARROW_QPS_RTS && st != MARROW_QPS_ERR))
		return 0;
	dbr = (uint16_t)mx_be32toh(EMU_LD_ACQ(&qp->dbrec[MX_DBR_SND]));
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

/* ---- writing CQEs (docs/design/software-nic.md §8) ---- */

EMU_CORE_FN void count_cqe(struct emu_thread *t, uint8_t opcode, uint8_t synd)
{
	switch (opcode) {
	case MX_CQE_REQ: CTR(t, cqe_req)++; return;
	case MX_CQE_RESP_WR_IMM: CTR(t, cqe_resp_wr_imm)++; return;
	case MX_CQE_REQ_ERR: CTR(t, cqe_req_err)++; break;
	case MX_CQE_RESP_ERR: CTR(t, cqe_resp_err)++; break;
	default: return;
	}
	switch (synd) {
	case MX_SYND_LOCAL_LENGTH: CTR(t, synd_local_length)++; break;
	case MX_SYND_LOCAL_QP_OP: CTR(t, synd_local_qp_op)++; break;
	case MX_SYND_LOCAL_PROT: CTR(t, synd_local_prot)++; break;
	case MX_SYND_WR_FLUSH: CTR(t, synd_wr_flush)++; break;
	case MX_SYND_REMOTE_ACCESS: CTR(t, synd_remote_access)++; break;
	case MX_SYND_REMOTE_INVAL_REQ: CTR(t, synd_remote_inval_req)++; break;
	case MX_SYND_RNR_RETRY_EXC: CTR(t, synd_rnr_retry_exc)++; break;
	case MX_SYND_TRANSPORT_RETRY_EXC: CTR(t, synd_transport_retry_exc)++; break;
	default: break;
	}
}

/* The CQE timestamp clock. */
EMU_CORE_API uint64_t emu_cqe_clock(void)
{
	return EMU_CQE_CLOCK();
}

/* Bytes 0..62 of a CQE in private memory tmp, all but the timestamp
 * (cqe_commit writes it) and op_own. fast_run builds this once per run and
 * patches only wqe_counter for each of its CQEs. */
EMU_CORE_INLINE void cqe_body(uint8_t *tmp, uint8_t sop, const struct marrow_emu_qp *qp,
			      uint16_t wqe_counter, uint32_t byte_cnt, uint32_t imm_be, uint8_t synd,
			      uint8_t vsynd)
{
	/* What an rdma-core poller with CQE version 1 reads: the QP's user
	 * index in srqn_uidx (low 24 bits) and, in a good CQE, a free-running
	 * BE64 clock (an error CQE keeps its syndromes in bytes 52..55). */
	uint32_t uidx_be = mx_htobe32(qp->uidx & 0xffffffu);

	mx_cqe_fill_body(tmp, sop, qp->qpn, wqe_counter, byte_cnt, imm_be, synd, vsynd);
	EMU_MEMCPY(tmp + MX_CQE_OFF_SRQN_UIDX, &uidx_be, 4);
}

/* Writes the CQE encoded in tmp (cqe_body) into the next slot of cq:
 * timestamp, counters, release-ordered tail with op_own. With several
 * engine threads, several may post to one CQ: the slot then comes from an
 * atomic counter, and a collapsed CQ (one slot for everybody) is guarded by
 * a spinlock; with one thread neither is needed. */
/* Whether CQE p has room in a CQ of mask + 1 entries, given the consumer
 * index *ci seen last (updated). The consumer index only grows, so a value
 * that already shows room is good enough; the dbrec (a cache line the
 * poller keeps writing) is re-read, and cached in ci_seen, only when it
 * does not. */
EMU_CORE_INLINE int cq_room(struct marrow_emu_cq *cq, uint32_t mask, uint32_t p, uint32_t *ci)
{
	if (((p - *ci) & 0xffffff) >= mask + 1u) {
		*ci = mx_be32toh(EMU_LD_ACQ(&cq->dbrec[0])) & 0xffffff;
		EMU_ST_RLX(&cq->ci_seen, *ci);
	}
	return ((p - *ci) & 0xffffff) < mask + 1u;
}

/* CQE p found no room: the CQ goes into error (counted once). */
EMU_CORE_INLINE void cq_overrun(struct emu_thread *t, struct marrow_emu_cq *cq)
{
	if (!EMU_XCHG_REL(&cq->in_error, 1))
		CTR(t, cq_overruns)++;
}

EMU_CORE_FN void cqe_commit(struct emu_thread *t, struct marrow_emu_cq *cq, uint8_t *tmp,
			    uint8_t cqe_opcode, uint8_t synd)
{
	int collapsed = cq->flags & MARROW_EMU_CQ_COLLAPSED;
	int locked = collapsed && cq->multi_writer;
	uint32_t p, tail;
	uint8_t *cqe;
#if defined(__CUDACC__)
	/* The device issues the three loads together (one round trip, not
	 * three dependent ones): the producer counter as one writer reads it
	 * and the cached consumer index are used only as below, and reading
	 * them before the in_error test changes neither (this thread alone
	 * moves prod when it is the only writer; ci_seen only grows and is a
	 * hint that the dbrec re-read corrects). */
	struct emu_d_early *const ea = EMU_D_EARLY(t);
	uint32_t in_error, prod_early, ci_early;

	if (ea->cq == cq) {
		/* Loaded by emu_dev_qp_poll_own right after its acquire, and
		 * no CQE was written to cq since (this is the first): the same
		 * reads, one round trip earlier (docs/design/device-engine.md §2.3). */
		in_error = ea->cq_in_error;
		prod_early = ea->cq_prod;
		ci_early = ea->cq_ci_seen;
		ea->cq = nullptr;
	} else {
		in_error = EMU_LD_RLX(&cq->in_error);
		prod_early = EMU_LD_RLX(&cq->prod);
		ci_early = EMU_LD_RLX(&cq->ci_seen);
	}

	if (EMU_UNLIKELY(in_error))
		return;
#else
	if (EMU_UNLIKELY(EMU_LD_RLX(&cq->in_error)))
		return;
#endif
	EMU_CORE_WIRE_HOLD(t, synd);
	if (locked)
		while (EMU_XCHG_ACQ(&cq->lock, 1))
			EMU_RELAX();
	if (cq->multi_writer) {
		p = EMU_FADD_RLX(&cq->prod, 1);
	} else {
		/* One engine thread: no read-modify-write needed. */
#if defined(__CUDACC__)
		p = prod_early;
#else
		p = EMU_LD_RLX(&cq->prod);
#endif
		EMU_ST_RLX(&cq->prod, p + 1);
	}
	if (!(cq->flags & MARROW_EMU_CQ_OVERRUN_IGNORE)) {
#if defined(__CUDACC__)
		uint32_t ci = locked ? EMU_LD_RLX(&cq->ci_seen) : ci_early;
#else
		uint32_t ci = EMU_LD_RLX(&cq->ci_seen);
#endif

		if (EMU_UNLIKELY(!cq_room(cq, cq->mask, p, &ci))) {
			cq_overrun(t, cq);
			goto out;
		}
	}
	cqe = cq->buf + (size_t)(collapsed ? 0 : (p & cq->mask)) * MX_CQE_SIZE;
	/* Encoded in private memory: copy bytes 0..59, then publish 60..63
	 * (wqe_counter, signature, op_own) with one 32-bit store after the
	 * release fence: an rdma-core poller (op_own first) and an NVSHMEM
	 * collapsed-CQ poller (wqe_counter and opcode) both see either the old
	 * or the new CQE, never a mix, and never before its data. */
	if (cqe_opcode != MX_CQE_REQ_ERR && cqe_opcode != MX_CQE_RESP_ERR) {
		uint64_t ts_be = mx_htobe64(emu_cqe_clock());

		EMU_MEMCPY(tmp + MX_CQE_OFF_TIMESTAMP, &ts_be, 8);
	}
	tmp[MX_CQE_OFF_OP_OWN] = mx_cqe_op_own_value(cqe_opcode, (p >> cq->log_n) & 1u);
	EMU_MEMCPY(cqe, tmp, MX_CQE_OFF_WQE_COUNTER);
	EMU_MEMCPY(&tail, tmp + MX_CQE_OFF_WQE_COUNTER, 4);
	count_cqe(t, cqe_opcode, synd);
	/* A poller that sees this CQE also sees counters that include it. */
	EMU_PUBLISH(t);
	/* A release store, not a release fence and a relaxed store: the same
	 * ordering for this one store, and one that ThreadSanitizer can see. */
	EMU_ST_REL((uint32_t *)(cqe + MX_CQE_OFF_WQE_COUNTER), tail);
out:
	if (locked)
		EMU_ST_REL(&cq->lock, 0);
}

EMU_CORE_API void emu_cqe_post(struct emu_thread *t, struct marrow_emu_cq *cq, uint8_t cqe_opcode,
		  uint8_t sop, const struct marrow_emu_qp *qp, uint16_t wqe_counter,
		  uint32_t byte_cnt, uint32_t imm_be, uint8_t synd, uint8_t vsynd)
{
	uint8_t tmp[MX_CQE_SIZE] __attribute__((aligned(16)));

	if (EMU_UNLIKELY(EMU_LD_RLX(&cq->in_error)))
		return;
	cqe_body(tmp, sop, qp, wqe_counter, byte_cnt, imm_be, synd, vsynd);
	cqe_commit(t, cq, tmp, cqe_opcode, synd);
}

#if defined(__CUDACC__)
#include "softnic/emu_exec_lane.h"
#endif

#endif /* EMU_CORE_BODY */
