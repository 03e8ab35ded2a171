/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Kernel cost: what linking GPU-initiated communication code into a kernel
 * costs that kernel's useful work (§4.3.2 "What does the enclosing kernel
 * pay?" of "GPU-Initiated Communication: Dissecting Down to the Bone").
 * Method: docs/design/methods.md §7.
 *
 * Two callers (a compute kernel of FMAs and a memory-bound streaming
 * kernel), each keeping `live` values per thread in registers across its
 * work, which is cut into MARROW_KCOST_SEGMENTS equal segments. Three
 * builds of each: without communication code (transport NONE), with the
 * mini-gda post + CQE poll inlined (GDA), with the mini-proxy descriptor
 * enqueue + completion-counter poll inlined (PROXY). The arms of the paper
 * are runtime arguments of ONE build, so registers and spills are those of
 * the same SASS in every arm:
 *   dormant            msgs = 0: the communication branch is guarded by a
 *                      kernel argument the compiler cannot prove zero;
 *   send-then-compute  msgs > 0, wait = 0: thread 0 of each block submits
 *                      after every (SEGMENTS / msgs)-th segment and its warp
 *                      computes on; completions are drained after the
 *                      timed launch by a separate, untimed kernel;
 *   send-wait-compute  msgs > 0, wait = 1: thread 0 waits for each
 *                      message's completion before computing on.
 * Other warps compute throughout.
 *
 * Library: libmarrow_cuda.so. MARROW_ENODEV without a GPU.
 */
#ifndef MARROW_KCOST_H
#define MARROW_KCOST_H

#include "marrow/marrow_abi.h"
#include "marrow/marrow_gda.h"

#ifdef __cplusplus
extern "C" {
#endif

struct marrow_proxy_cuda_ctx;

enum marrow_kcost_caller {
	MARROW_KCOST_CALLER_COMPUTE = 0,  /* FMA-bound: live values updated in registers */
	MARROW_KCOST_CALLER_STREAM = 1,   /* memory-bound: live values accumulate streamed loads */
};

enum marrow_kcost_transport {
	MARROW_KCOST_TRANSPORT_NONE = 0,  /* the kernel without communication code */
	MARROW_KCOST_TRANSPORT_GDA = 1,
	MARROW_KCOST_TRANSPORT_PROXY = 2,
};

enum {
	MARROW_KCOST_SEGMENTS = 16,       /* messages are sent after segment boundaries */
	MARROW_KCOST_MAX_MSGS = 16,       /* msgs must divide SEGMENTS: 0, 1, 2, 4, 8, 16 */
};

struct marrow_kcost_config {
	uint32_t size;              /* sizeof(struct marrow_kcost_config) */
	uint32_t comp_mask;         /* 0 */
	uint32_t caller;            /* enum marrow_kcost_caller */
	uint32_t transport;         /* enum marrow_kcost_transport */
	uint32_t live;              /* live values per thread: one of marrow_kcost_live_values() */
	uint32_t blocks;            /* grid size (>= 1) */
	uint32_t threads;           /* threads per block (32..1024, a multiple of 32) */
	uint32_t msgs;              /* messages per block per launch; 0 = dormant */
	uint32_t msg_size;          /* bytes per message (gda: <= 220 inline, else one pointer segment) */
	uint32_t wait;              /* 1: wait for each message's completion */
	uint32_t launches;          /* timed launches (>= 1) */
	uint32_t warmup;            /* untimed launches first */
	uint64_t work;              /* per thread: FMAs (compute) or streamed floats (stream) */
	uint64_t timeout_ns;        /* bound of every device-side wait (> 0) */
	int32_t cuda_device;
	uint32_t reserved;          /* 0 */
};

struct marrow_kcost_result {
	uint32_t size;              /* sizeof(struct marrow_kcost_result) */
	uint32_t comp_mask;
	int32_t regs_per_thread;    /* cudaFuncGetAttributes numRegs */
	int32_t local_bytes;        /* cudaFuncGetAttributes localSizeBytes (spills + stack) */
	int32_t blocks_per_sm;      /* cudaOccupancyMaxActiveBlocksPerMultiprocessor at `threads` */
	int32_t sm_count;
	int32_t max_threads_per_block;
	int32_t status;             /* 0 or the failing status */
	uint64_t messages;          /* messages submitted over all launches (warm-up included) */
	uint64_t completions;       /* completions observed (waits + drains) */
	uint64_t checksum;          /* bits of the sum of the kernel's outputs (keeps the work alive) */
	int32_t cuda_error;
	int32_t failed_block;       /* block whose device wait failed, or -1 */
};

/* Number of supported live-value counts, and the i-th (ascending). */
MARROW_API int marrow_kcost_live_count(void);
MARROW_API int marrow_kcost_live_value(int i);

/* Resources of one build (caller x transport x live) at cfg->threads:
 * fills regs_per_thread, local_bytes, blocks_per_sm, sm_count,
 * max_threads_per_block. Runs nothing; no NIC. */
MARROW_API int marrow_kcost_attributes(const struct marrow_kcost_config *cfg, struct marrow_kcost_result *res);

/* warmup + launches launches of the build; times_ms[0..launches) receives
 * each timed launch's cudaEvent time. Active arms of GDA need gda_eps: one
 * endpoint per block (its QP owned by that block's thread 0); active arms
 * of PROXY need px (marrow_proxy_cuda_open, baseline handoff: blocks share
 * rings, block b uses ring b % rings). Both may be NULL when msgs == 0. */
MARROW_API int marrow_kcost_run(const struct marrow_kcost_config *cfg,
				const struct marrow_gda_endpoint *gda_eps, uint32_t n_eps,
				struct marrow_proxy_cuda_ctx *px, float *times_ms,
				struct marrow_kcost_result *res);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_KCOST_H */
