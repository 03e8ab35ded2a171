/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The device engine's persistent kernel: the software NIC's execution core
 * (softnic/emu_exec_core.h) compiled for the GPU, twice (GPU-scope and
 * system-scope orderings), and the loop that runs it. One GPU thread plays
 * one CPU engine thread: it owns the QPs whose index % (engine threads) is
 * its engine index and polls each of them every pass, exactly as an engine
 * thread's active set does. Engine indexes go round the blocks first
 * (block b, thread i is engine i * blocks + b), so QPs 0, 1, 2, ... land
 * on different SMs before any SM gets a second one.
 * docs/design/device-engine.md.
 */
#ifndef MARROW_SNDEV_KERNEL_CUH
#define MARROW_SNDEV_KERNEL_CUH

#include "marrow/gpu_prims.h"
#include "softnic/emu_internal.h"

namespace sndev_gpu {
#define EMU_DEV_SYS 0
#include "softnic/emu_exec_core.h"
#undef EMU_DEV_SYS
} // namespace sndev_gpu

namespace sndev_sys {
#define EMU_DEV_SYS 1
#include "softnic/emu_exec_core.h"
#undef EMU_DEV_SYS
} // namespace sndev_sys

enum { SNDEV_MAX_BLOCKS = 1024 };
enum { SNDEV_EXIT_NONE = 0, SNDEV_EXIT_STOP = 1, SNDEV_EXIT_DEADLINE = 2 };

/* Control block in mapped pinned host memory: the host writes stop; the
 * kernel writes the rest (the host reads them while it runs). */
struct sndev_ctl {
	uint32_t stop;
	uint32_t exit_reason;
	uint32_t reserved0;     /* was a count of exited threads: nothing read it, and its system-scope
				 * atomic on pinned host memory is not allowed over PCIe (compute-sanitizer
				 * memcheck on the H200, docs/results/h200-compute-sanitizer.md) */
	uint32_t pad;
	unsigned long long passes0;        /* block 0 / thread 0 heartbeat */
	uint32_t smid[SNDEV_MAX_BLOCKS];   /* %smid + 1 of each block, 0 = not yet running */
};

struct sndev_kargs {
	struct marrow_emu_qp *qps;
	struct emu_thread *threads;
	struct sndev_ctl *ctl;             /* device pointer of the mapped control block */
	uint32_t nqps;
	uint32_t check_every;              /* passes between stop/deadline checks (power of two) */
	unsigned long long max_run_ns;
};

__device__ __forceinline__ uint32_t sndev_smid(void)
{
	uint32_t id;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	return id;
}

/* QPs per engine thread whose doorbell slots and quiet state stay in
 * registers (the rest are polled through emu_qp_poll on every pass). */
enum { SNDEV_FAST_QPS = 4 };

/* A doorbell slot, read without ordering anything: what a poll of memory
 * another agent writes needs, and no L1 invalidation (an acquire would
 * drop every line of the engine's objects on every pass). GPU scope for
 * queues in GPU memory; system scope where a CPU producer writes them. */
template <int SYS>
__device__ __forceinline__ uint64_t sndev_ld_slot(const uint64_t *p)
{
	return SYS ? gpu_ld_relaxed_sys_u64(p) : gpu_ld_relaxed_gpu_u64(p);
}

/* Whether emu_qp_poll on qp, with both doorbell slots empty, can do
 * nothing: no doorbell target beyond what ran or was acted on, nothing
 * fetched and not executed, no retry pending, and no RQ to flush. Then
 * emu_qp_poll returns 0 in every state: in RTS it skips sq_progress; in
 * ERR (which another engine thread may set by failing the peer)
 * sq_progress finds nothing to fetch, execute or flush and rq_flush has no
 * RQ. Only this engine thread writes these fields while the engine runs
 * (docs/design/device-engine.md §2). */
__device__ __forceinline__ bool sndev_qp_quiet(const struct marrow_emu_qp *qp)
{
	uint16_t ci = qp->exec_ci;

	return qp->db_target == ci && qp->last_target == ci && qp->fetch_pi == ci &&
	       qp->wait_kind == EMU_WAIT_NONE && qp->rq_cnt == 0;
}

template <int SYS>
__device__ __forceinline__ int sndev_poll(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	return SYS ? sndev_sys::emu_qp_poll(t, qp) : sndev_gpu::emu_qp_poll(t, qp);
}

template <int SYS>
__global__ void __launch_bounds__(1024) sndev_engine_kernel(sndev_kargs a)
{
	const uint32_t g = threadIdx.x * gridDim.x + blockIdx.x;   /* engine index */
	const uint32_t nthr = gridDim.x * blockDim.x;
	struct emu_thread *t = &a.threads[g];
	const unsigned long long t0 = gpu_globaltimer_ns();
	uint32_t reason = SNDEV_EXIT_NONE;

	if (threadIdx.x == 0)
		gpu_st_relaxed_sys_u32(&a.ctl->smid[blockIdx.x], sndev_smid() + 1u);
	if (g < a.nqps) {
		/* The engine thread's state in private memory: the counters the
		 * core bumps on every WQE (CTR) and its scratch (gather pieces,
		 * wrap buffer). A counter bump is then an L1 access, not a global
		 * load and store on the WQE path; the counters reach t->local every
		 * check_every passes (a live estimate, as before) and at exit
		 * (exact once stopped). */
		struct emu_thread lt;
		/* Pass counts stay in registers between checks. */
		unsigned long long busy = 0, idle = 0;
		/* The first SNDEV_FAST_QPS owned QPs: doorbell slots and whether
		 * the QP is quiet, in registers. A pass over a quiet QP whose
		 * slots are empty is two relaxed loads issued together, with no
		 * pointer chase and no acquire. */
		const uint64_t *slot0[SNDEV_FAST_QPS], *slot1[SNDEV_FAST_QPS];
		uint32_t quiet = 0;   /* bit k: fast QP k is quiet; the first pass polls every QP in full */
		uint32_t own_page = 0;   /* bit k: fast QP k's doorbell page is its own */

		lt.dev = t->dev;
		lt.index = t->index;
		for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
			lt.local[i] = t->local[i];
#pragma unroll
		for (int k = 0; k < SNDEV_FAST_QPS; k++) {
			uint32_t q = g + (uint32_t)k * nthr;

			slot0[k] = slot1[k] = nullptr;
			if (q < a.nqps) {
				const struct emu_uar *u = a.qps[q].uar;

				slot0[k] = (const uint64_t *)u->page;
				slot1[k] = (const uint64_t *)(u->page + EMU_UAR_HALF);
				/* On a shared page another QP's poll may take this QP's
				 * doorbell: such a QP is never skipped (the device
				 * engine gives every QP its own page; this keeps the
				 * skip right if that changes). */
				if (u->nqps <= 1)
					own_page |= 1u << k;
			}
		}
		for (unsigned long long pass = 0;; pass++) {
			uint64_t db[SNDEV_FAST_QPS][2];
			uint32_t skip = 0;   /* bit k: fast QP k has nothing to do this pass */
			int work = 0;

			/* Every slot load is issued before any is tested: one round
			 * trip per pass, however many QPs this thread owns. */
#pragma unroll
			for (int k = 0; k < SNDEV_FAST_QPS; k++) {
				db[k][0] = db[k][1] = 0;
				if (slot0[k] != nullptr) {
					db[k][0] = sndev_ld_slot<SYS>(slot0[k]);
					db[k][1] = sndev_ld_slot<SYS>(slot1[k]);
				}
			}
#pragma unroll
			for (int k = 0; k < SNDEV_FAST_QPS; k++)
				if ((db[k][0] | db[k][1]) == 0)
					skip |= 1u << k;
			skip &= quiet;
			/* One call site of the core (its code is large: one copy keeps
			 * the persistent loop in the instruction cache). */
			uint32_t k = 0;
			for (uint32_t q = g; q < a.nqps; q += nthr, k++) {
				if (k < SNDEV_FAST_QPS && ((skip >> k) & 1u))
					continue;
				struct marrow_emu_qp *qp = &a.qps[q];

				work |= sndev_poll<SYS>(&lt, qp);
				if (k < SNDEV_FAST_QPS)
					quiet = (quiet & ~(1u << k)) | (((uint32_t)sndev_qp_quiet(qp) << k) & own_page);
			}
			busy += work != 0;
			idle += work == 0;
			if ((pass & (a.check_every - 1)) == 0) {
				CTR(&lt, busy_passes) += busy;
				CTR(&lt, idle_passes) += idle;
				busy = idle = 0;
				for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
					t->local[i] = lt.local[i];
				if (gpu_ld_relaxed_sys_u32(&a.ctl->stop)) {
					reason = SNDEV_EXIT_STOP;
					break;
				}
				if (gpu_globaltimer_ns() - t0 > a.max_run_ns) {
					reason = SNDEV_EXIT_DEADLINE;
					break;
				}
				if (g == 0)
					gpu_st_relaxed_sys_u64((uint64_t *)&a.ctl->passes0, pass);
			}
		}
		/* Counters and QP state reach memory before the exit reason is stored. */
		gpu_fence_sc_sys();
		if (reason == SNDEV_EXIT_DEADLINE)
			gpu_st_relaxed_sys_u32(&a.ctl->exit_reason, SNDEV_EXIT_DEADLINE);
		else if (g == 0)
			gpu_st_relaxed_sys_u32(&a.ctl->exit_reason, reason);
	}
}

#endif /* MARROW_SNDEV_KERNEL_CUH */
