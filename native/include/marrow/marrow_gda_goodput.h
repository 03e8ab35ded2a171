/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda pipelined goodput (Fig. 8 of "GPU-Initiated Communication: Dissecting Down to the Bone", for mini-gda):
 * one poster thread keeps a window of pointer-payload RDMA WRITEs
 * outstanding on each of `qps` QPs (round robin: message i goes to QP
 * i % qps), signals every signal_every-th WQE of a QP (and its last), and
 * reclaims SQ space as those CQEs arrive. What is timed:
 * docs/design/methods.md ("Pipelined goodput").
 *
 * The source buffer is split into slots of msg_size bytes, staged once
 * (untimed) with a pattern; the slots are cut into `qps` equal slices, QP q
 * owns slice q, and its j-th message reads source slot j % (slots per QP)
 * of its slice and writes the same slot of the destination (cleared first).
 * After the run every written destination slot is compared with its source
 * slot. With qps > 1, `ep` is an array of qps endpoints (each its own QP and
 * CQ, typically sharded over several software NIC engine threads) that
 * name the SAME source and destination (addresses, lengths, keys).
 *
 * Runners: marrow_gda_goodput_cpu_run (libmarrow_host.so, the calling
 * thread posts) and marrow_gda_goodput_cuda_run (libmarrow_cuda.so, one GPU
 * thread posts; the host memory of the views is mapped per run). Both run
 * gda_window.h. Every wait is bounded by cfg->timeout_ns.
 */
#ifndef MARROW_GDA_GOODPUT_H
#define MARROW_GDA_GOODPUT_H

#include "marrow/marrow_gda.h"

#ifdef __cplusplus
extern "C" {
#endif

struct marrow_gda_goodput_config {
	uint32_t size;              /* sizeof(struct marrow_gda_goodput_config) */
	uint32_t comp_mask;         /* 0 */
	uint32_t ordering;          /* enum marrow_gda_ordering */
	uint32_t msg_size;          /* bytes per WRITE (pointer payload, >= 1) */
	uint32_t window;            /* most WQEs outstanding PER QP (1 .. SQ WQEBBs) */
	uint32_t signal_every;      /* every Nth WQE of a QP is signaled (1 .. window) */
	uint64_t messages;          /* timed WRITEs over all QPs (>= 1) */
	uint64_t warmup;            /* untimed WRITEs first */
	uint64_t timeout_ns;        /* bound of every single wait (> 0) */
	int32_t cuda_device;        /* CUDA ordinal (cuda runner only) */
	uint32_t qps;               /* endpoints in ep[] (0 or 1: one; at most MARROW_GDA_GOODPUT_MAX_QPS) */
};

#define MARROW_GDA_GOODPUT_MAX_QPS 16

struct marrow_gda_goodput_result {
	uint32_t size;              /* sizeof(struct marrow_gda_goodput_result) */
	uint32_t comp_mask;
	uint64_t messages_done;     /* WRITEs known complete, warm-up included */
	uint64_t timed_messages;
	uint64_t timed_bytes;       /* payload bytes of the timed WRITEs */
	uint64_t timed_ns;          /* first timed post .. last timed CQE */
	uint64_t doorbells;         /* one per WQE */
	uint64_t cqes;              /* signaled completions consumed */
	uint64_t payload_errors;    /* destination slots whose bytes were wrong */
	uint64_t fail_message;      /* message whose wait failed (status != 0; global index) */
	uint32_t slots;             /* source/destination slots used (all QPs) */
	int32_t status;
	uint32_t cqe_opcode;        /* what a failed wait saw */
	uint32_t cqe_syndrome;
	uint32_t cqe_vendor_syndrome;
	uint32_t cqe_wqe_counter;
	uint32_t expected_wqe_counter;
	int32_t cuda_error;         /* cudaError_t of a failed CUDA call (cuda runner) */
};

/* MARROW_EINVAL before anything is posted (bad sizes, window larger than the
 * SQ, more outstanding signaled CQEs than the CQ holds, a remote-destination
 * endpoint, qps above the maximum, endpoints naming different buffers, a
 * buffer with fewer slots than qps); MARROW_ETIMEDOUT / MARROW_EIO / MARROW_EPROTO from the run;
 * MARROW_EPROTO with payload_errors > 0 when bytes were wrong. *res is
 * filled in every case. */
MARROW_API int marrow_gda_goodput_cpu_run(const struct marrow_gda_goodput_config *cfg,
					  const struct marrow_gda_endpoint *ep,
					  struct marrow_gda_goodput_result *res);
/* Same on a GPU: block 0 / thread 0 posts. MARROW_ENODEV without a GPU. */
MARROW_API int marrow_gda_goodput_cuda_run(const struct marrow_gda_goodput_config *cfg,
					   const struct marrow_gda_endpoint *ep,
					   struct marrow_gda_goodput_result *res);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_GDA_GOODPUT_H */
