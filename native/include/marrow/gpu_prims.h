/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * GPU primitives: the ONE place where Marrow's CUDA code spells a timer
 * read, an ordered load or store, a fence, or the NIC doorbell store in
 * inline PTX. mini-gda (gda_post.h and its kernels), the mini-proxy GPU
 * producers and the DSM kernels all use these; none keeps its own copy.
 * docs/design/gpu-primitives.md lists each one with the PTX it emits, what
 * it orders and for which observer (PTX ISA, "Memory Consistency Model").
 *
 * Names say what a primitive orders:
 *   gpu_{ld,st}_<sem>_<scope>_<width>   sem = relaxed | acquire (loads) |
 *                                       release (stores); scope = cta | gpu | sys
 *   gpu_fence_<sem>_<scope>             a fence of that strength and scope
 *   gpu_st_mmio_relaxed_sys_u64         a store to device memory (MMIO)
 *
 * Device code gets the PTX. Host C (the mini-gda CPU executor compiles
 * gda_post.h as C) gets C11 atomics for what gda_post.h uses: a CPU thread
 * has no "GPU scope", so gpu and sys collapse into one. Vector forms and
 * the cta scope exist on the device only.
 *
 * Every asm here is volatile with a "memory" clobber: volatile keeps it
 * from being deleted or merged; the clobber makes it a compiler barrier, so
 * no ordinary load or store is moved across it. For ordered accesses that
 * is what makes their ordering reach the compiler too; for timer reads it
 * keeps the timed region's loads and stores between its two stamps.
 */
#ifndef MARROW_GPU_PRIMS_H
#define MARROW_GPU_PRIMS_H

#include <stdint.h>

#if defined(__CUDACC__)
#define MARROW_GPU_FN __device__ __forceinline__
#else
#include <time.h>
#define MARROW_GPU_FN static inline __attribute__((always_inline))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- timers ----------------------------------------------------------------
 * %globaltimer: ns, shared by all SMs (its update step is coarse; the DSM
 * timer probe measures it). %clock64: this SM's cycle counter. The "memory"
 * clobber stops the compiler from hoisting or sinking the timed region's
 * memory accesses across a stamp (without it, nvcc may schedule a plain
 * load or store of the timed code on the other side of the read). It does
 * not make the SM wait for loads still in flight: a stamp that must follow
 * a load's completion needs a use of the loaded value before it, as every
 * timed wait loop here has (its exit condition reads the value). */
#if defined(__CUDACC__)
MARROW_GPU_FN uint64_t gpu_globaltimer_ns(void)
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) :: "memory");
	return t;
}

MARROW_GPU_FN uint64_t gpu_clock64(void)
{
	uint64_t c;
	asm volatile("mov.u64 %0, %%clock64;" : "=l"(c) :: "memory");
	return c;
}

/* %smid: the SM this thread runs on (benchmarks report where their blocks ran). */
MARROW_GPU_FN uint32_t gpu_smid(void)
{
	uint32_t id;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	return id;
}
#else
/* Host stand-in: a monotonic ns clock not slewed by NTP. */
MARROW_GPU_FN uint64_t gpu_globaltimer_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#endif

/* ---- fences ----------------------------------------------------------------
 * acq_rel: this thread's accesses before the fence are ordered before its
 * accesses after it, for observers within the scope (a release fence and an
 * acquire fence in one). sc (membar.gl / membar.sys, what __threadfence()
 * and __threadfence_system() emit): additionally sequentially consistent.
 * cta: threads of this block; cluster: this thread-block cluster (sm_90+);
 * gpu: every thread of this GPU; sys: the whole system, host CPUs, peer
 * GPUs and PCIe devices (the NIC) included. */
#if defined(__CUDACC__)
MARROW_GPU_FN void gpu_fence_acq_rel_cta(void) { asm volatile("fence.acq_rel.cta;" ::: "memory"); }
MARROW_GPU_FN void gpu_fence_acq_rel_cluster(void) { asm volatile("fence.acq_rel.cluster;" ::: "memory"); }
MARROW_GPU_FN void gpu_fence_acq_rel_gpu(void) { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
MARROW_GPU_FN void gpu_fence_acq_rel_sys(void) { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
/* __threadfence(): fence.sc.gpu, spelled membar.gl as the CUDA headers do. */
MARROW_GPU_FN void gpu_fence_sc_gpu(void) { asm volatile("membar.gl;" ::: "memory"); }
/* __threadfence_system(): fence.sc.sys, spelled membar.sys. */
MARROW_GPU_FN void gpu_fence_sc_sys(void) { asm volatile("membar.sys;" ::: "memory"); }
/* The acquire half alone: after a relaxed load that observed a release, it
 * orders this thread's later accesses after that load (PTX: a relaxed read
 * followed by an acquire fence is an acquire pattern). The lightweight fence
 * (PTX ISA 8.6, sm_90+) does not wait for this thread's outstanding stores as
 * fence.acq_rel does; before sm_90, fence.acq_rel. */
#if __CUDA_ARCH__ >= 900
MARROW_GPU_FN void gpu_fence_acquire_gpu(void) { asm volatile("fence.acquire.gpu;" ::: "memory"); }
MARROW_GPU_FN void gpu_fence_acquire_sys(void) { asm volatile("fence.acquire.sys;" ::: "memory"); }
#else
MARROW_GPU_FN void gpu_fence_acquire_gpu(void) { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
MARROW_GPU_FN void gpu_fence_acquire_sys(void) { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
#endif
#else
/* C11 fences order for every thread of the process; x86-64 emits MFENCE for
 * seq_cst only (TSO keeps stores in order), everything else is a compiler
 * barrier. */
MARROW_GPU_FN void gpu_fence_acq_rel_gpu(void) { __atomic_thread_fence(__ATOMIC_ACQ_REL); }
MARROW_GPU_FN void gpu_fence_acq_rel_sys(void) { __atomic_thread_fence(__ATOMIC_ACQ_REL); }
MARROW_GPU_FN void gpu_fence_sc_gpu(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
MARROW_GPU_FN void gpu_fence_sc_sys(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
MARROW_GPU_FN void gpu_fence_acquire_gpu(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
MARROW_GPU_FN void gpu_fence_acquire_sys(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
#endif

/* ---- ordered loads and stores to global memory -------------------------------
 * relaxed: a strong access (PTX ISA: it is "morally strong" with other
 * strong accesses in scope) that orders nothing else; it is what a poll of
 * memory another agent writes must use, since a weak ld may keep returning
 * a cached stale value. acquire: later
 * accesses of this thread stay after it. release: earlier accesses of this
 * thread stay before it. The scope names which observers the guarantee is
 * for. Widths: u32 (.b32), u64 (.b64), v2u32 (8 bytes, .v2.b32), v2u64 and
 * v4u32 (16 bytes, .v2.b64 / .v4.b32; 16-byte aligned, one access); relaxed
 * stores also u16 (.b16: the software NIC's 16-bit queue indexes). */
#if defined(__CUDACC__)
#define GPU_LDST_SCALAR_(SEM_LD, SEM_ST, SCOPE)                                                         \
	MARROW_GPU_FN uint32_t gpu_ld_##SEM_LD##_##SCOPE##_u32(const uint32_t *p)                               \
	{                                                                                                \
		uint32_t v;                                                                              \
		asm volatile("ld." #SEM_LD "." #SCOPE ".global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); \
		return v;                                                                                \
	}                                                                                                \
	MARROW_GPU_FN uint64_t gpu_ld_##SEM_LD##_##SCOPE##_u64(const uint64_t *p)                               \
	{                                                                                                \
		uint64_t v;                                                                              \
		asm volatile("ld." #SEM_LD "." #SCOPE ".global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); \
		return v;                                                                                \
	}                                                                                                \
	MARROW_GPU_FN void gpu_st_##SEM_ST##_##SCOPE##_u32(uint32_t *p, uint32_t v)                             \
	{                                                                                                \
		asm volatile("st." #SEM_ST "." #SCOPE ".global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); \
	}                                                                                                \
	MARROW_GPU_FN void gpu_st_##SEM_ST##_##SCOPE##_u64(uint64_t *p, uint64_t v)                             \
	{                                                                                                \
		asm volatile("st." #SEM_ST "." #SCOPE ".global.b64 [%0], %1;" :: "l"(p), "l"(v) : "memory"); \
	}

#define GPU_LDST_VECTOR_(SEM_LD, SEM_ST, SCOPE)                                                         \
	MARROW_GPU_FN void gpu_ld_##SEM_LD##_##SCOPE##_v2u32(const uint32_t *p, uint32_t *a, uint32_t *b)       \
	{                                                                                                \
		asm volatile("ld." #SEM_LD "." #SCOPE ".global.v2.b32 {%0, %1}, [%2];"                   \
			     : "=r"(*a), "=r"(*b) : "l"(p) : "memory");                                  \
	}                                                                                                \
	MARROW_GPU_FN void gpu_ld_##SEM_LD##_##SCOPE##_v2u64(const uint64_t *p, uint64_t *a, uint64_t *b)       \
	{                                                                                                \
		asm volatile("ld." #SEM_LD "." #SCOPE ".global.v2.b64 {%0, %1}, [%2];"                   \
			     : "=l"(*a), "=l"(*b) : "l"(p) : "memory");                                  \
	}                                                                                                \
	MARROW_GPU_FN void gpu_ld_##SEM_LD##_##SCOPE##_v4u32(const uint32_t *p, uint32_t *a, uint32_t *b,       \
						      uint32_t *c, uint32_t *d)                          \
	{                                                                                                \
		asm volatile("ld." #SEM_LD "." #SCOPE ".global.v4.b32 {%0, %1, %2, %3}, [%4];"           \
			     : "=r"(*a), "=r"(*b), "=r"(*c), "=r"(*d) : "l"(p) : "memory");              \
	}                                                                                                \
	MARROW_GPU_FN void gpu_st_##SEM_ST##_##SCOPE##_v2u32(uint32_t *p, uint32_t a, uint32_t b)               \
	{                                                                                                \
		asm volatile("st." #SEM_ST "." #SCOPE ".global.v2.b32 [%0], {%1, %2};"                   \
			     :: "l"(p), "r"(a), "r"(b) : "memory");                                      \
	}                                                                                                \
	MARROW_GPU_FN void gpu_st_##SEM_ST##_##SCOPE##_v2u64(uint64_t *p, uint64_t a, uint64_t b)               \
	{                                                                                                \
		asm volatile("st." #SEM_ST "." #SCOPE ".global.v2.b64 [%0], {%1, %2};"                   \
			     :: "l"(p), "l"(a), "l"(b) : "memory");                                      \
	}                                                                                                \
	MARROW_GPU_FN void gpu_st_##SEM_ST##_##SCOPE##_v4u32(uint32_t *p, uint32_t a, uint32_t b, uint32_t c,   \
						      uint32_t d)                                        \
	{                                                                                                \
		asm volatile("st." #SEM_ST "." #SCOPE ".global.v4.b32 [%0], {%1, %2, %3, %4};"           \
			     :: "l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");                      \
	}

/* relaxed loads and stores; acquire loads and release stores. */
GPU_LDST_SCALAR_(relaxed, relaxed, cta)
GPU_LDST_SCALAR_(relaxed, relaxed, gpu)
GPU_LDST_SCALAR_(relaxed, relaxed, sys)
GPU_LDST_SCALAR_(acquire, release, cta)
GPU_LDST_SCALAR_(acquire, release, gpu)
GPU_LDST_SCALAR_(acquire, release, sys)
GPU_LDST_VECTOR_(relaxed, relaxed, cta)
GPU_LDST_VECTOR_(relaxed, relaxed, gpu)
GPU_LDST_VECTOR_(relaxed, relaxed, sys)
GPU_LDST_VECTOR_(acquire, release, cta)
GPU_LDST_VECTOR_(acquire, release, gpu)
GPU_LDST_VECTOR_(acquire, release, sys)
MARROW_GPU_FN void gpu_st_relaxed_gpu_u16(uint16_t *p, uint16_t v)
{
	asm volatile("st.relaxed.gpu.global.b16 [%0], %1;" :: "l"(p), "h"(v) : "memory");
}
MARROW_GPU_FN void gpu_st_relaxed_sys_u16(uint16_t *p, uint16_t v)
{
	asm volatile("st.relaxed.sys.global.b16 [%0], %1;" :: "l"(p), "h"(v) : "memory");
}
#undef GPU_LDST_SCALAR_
#undef GPU_LDST_VECTOR_
#else
#define GPU_LDST_HOST_(SEM_LD, SEM_ST, SCOPE, LD_ORDER, ST_ORDER)                                       \
	MARROW_GPU_FN uint32_t gpu_ld_##SEM_LD##_##SCOPE##_u32(const uint32_t *p) { return __atomic_load_n(p, LD_ORDER); } \
	MARROW_GPU_FN uint64_t gpu_ld_##SEM_LD##_##SCOPE##_u64(const uint64_t *p) { return __atomic_load_n(p, LD_ORDER); } \
	MARROW_GPU_FN void gpu_st_##SEM_ST##_##SCOPE##_u32(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, ST_ORDER); } \
	MARROW_GPU_FN void gpu_st_##SEM_ST##_##SCOPE##_u64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, ST_ORDER); }

GPU_LDST_HOST_(relaxed, relaxed, gpu, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
GPU_LDST_HOST_(relaxed, relaxed, sys, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
GPU_LDST_HOST_(acquire, release, gpu, __ATOMIC_ACQUIRE, __ATOMIC_RELEASE)
GPU_LDST_HOST_(acquire, release, sys, __ATOMIC_ACQUIRE, __ATOMIC_RELEASE)
#undef GPU_LDST_HOST_
MARROW_GPU_FN void gpu_st_relaxed_gpu_u16(uint16_t *p, uint16_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
MARROW_GPU_FN void gpu_st_relaxed_sys_u16(uint16_t *p, uint16_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#endif

/* ---- MMIO stores --------------------------------------------------------------
 * st.mmio.relaxed.sys (PTX ISA 8.2, sm_70+): a relaxed system-scope store
 * that the memory system must perform exactly once, as issued: it is never
 * merged with, split into or elided by another store, which is what a
 * device register (the NIC's UAR) needs. It orders nothing of its own; a
 * fence before it does that. Host C: a relaxed atomic store. */
#if defined(__CUDACC__)
MARROW_GPU_FN void gpu_st_mmio_relaxed_sys_u64(uint64_t *p, uint64_t v)
{
	asm volatile("st.mmio.relaxed.sys.global.b64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
}
#else
MARROW_GPU_FN void gpu_st_mmio_relaxed_sys_u64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#endif

/* ---- the NIC doorbell ----------------------------------------------------------
 * In rdma-core's habit, a barrier is named by what it orders:
 *
 * gpu_udma_to_device_barrier(): this thread's earlier stores to memory the
 *   NIC reads by DMA (WQEs, the doorbell record, a pointer payload) become
 *   visible to the NIC before its later stores, the doorbell included. The
 *   NIC is a system-scope observer, so this is fence.sc.sys (membar.sys, the
 *   fence NVSHMEM uses when NIC buffers are in host memory); on the host, a
 *   seq_cst fence.
 *
 * gpu_mmio_write64_db(): the 8-byte doorbell store itself: the value of
 *   mx_doorbell_value() to the UAR (a BlueFlame register mapped into the GPU
 *   with cudaHostRegisterIoMemory, or the software NIC's mailbox in host
 *   memory), as one st.mmio.relaxed.sys.global.b64 (the store DOCA GPUNetIO
 *   rings with). It orders nothing of its own: what must precede it is
 *   ordered by a fence before it.
 *
 * gpu_mmio_write64_db_release_{gpu,sys}(): a release at that scope, then the
 *   MMIO store: fence.acq_rel.<scope> followed by the relaxed store is the
 *   PTX model's release pattern, so the doorbell keeps the release semantics
 *   of the ordering variants release-gpu / release-sys (this thread's
 *   earlier accesses are ordered before it for observers in the scope). A
 *   release *store* cannot carry .mmio, hence the separate fence. */
MARROW_GPU_FN void gpu_udma_to_device_barrier(void) { gpu_fence_sc_sys(); }
MARROW_GPU_FN void gpu_mmio_write64_db(uint64_t *uar, uint64_t db) { gpu_st_mmio_relaxed_sys_u64(uar, db); }
MARROW_GPU_FN void gpu_mmio_write64_db_release_gpu(uint64_t *uar, uint64_t db)
{
	gpu_fence_acq_rel_gpu();
	gpu_st_mmio_relaxed_sys_u64(uar, db);
}
MARROW_GPU_FN void gpu_mmio_write64_db_release_sys(uint64_t *uar, uint64_t db)
{
	gpu_fence_acq_rel_sys();
	gpu_st_mmio_relaxed_sys_u64(uar, db);
}

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GPU_PRIMS_H */
