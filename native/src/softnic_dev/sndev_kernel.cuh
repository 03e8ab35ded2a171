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
		/* Pass counts stay in registers between checks: no global
		 * read-modify-write on every pass. */
		unsigned long long busy = 0, idle = 0;

		for (unsigned long long pass = 0;; pass++) {
			int work = 0;

			for (uint32_t q = g; q < a.nqps; q += nthr)
				work |= SYS ? sndev_sys::emu_qp_poll(t, &a.qps[q]) : sndev_gpu::emu_qp_poll(t, &a.qps[q]);
			busy += work != 0;
			idle += work == 0;
			if ((pass & (a.check_every - 1)) == 0) {
				CTR(t, busy_passes) += busy;
				CTR(t, idle_passes) += idle;
				busy = idle = 0;
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
