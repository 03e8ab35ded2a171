/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy GPU producers, internal: what the host code (proxy_cuda.cu)
 * and the kernels (proxy_cuda_kernels.cu) share: the device view of the
 * rings, the kernels' arguments and the launchers.
 */
#ifndef MARROW_PROXY_CUDA_CUH
#define MARROW_PROXY_CUDA_CUH

#include <stdint.h>
#include <cuda_runtime_api.h>

/* Device view of the rings and counters. */
struct dev_rings {
	uint8_t *arena;                  /* device pointer of the arena */
	uint8_t *buf;                    /* device pointer of the experiment buffer */
	uint32_t rings;
	uint32_t log_slots;
	uint32_t handoff;
	uint32_t half;                   /* PE 1 offset in the buffer */
	unsigned long long *head;        /* baseline: device-memory reservation counters */
	uint64_t *prod;                  /* tuned: per ring {head, cached tail} kept across launches */
	uint64_t *cpl;                   /* tuned: counters the GPU polls, 8 words per ring; NULL = arena */
	uint64_t *cpl_expect;            /* rate: per ring completion count to wait for */
	uint64_t timeout_ns;
};

/* Where a device-side wait gave up (mapped pinned, read by the host). */
enum dev_wait_code {
	DEV_OK = 0,
	DEV_WAIT_SLOT = 1,               /* a free ring slot */
	DEV_WAIT_CPL = 2,                /* a completion */
	DEV_WAIT_REPLY = 3,              /* PE 1's reply */
};

struct dev_status {
	int32_t code;                    /* enum dev_wait_code */
	uint32_t ring;
	uint64_t pos;
	uint64_t seen;
};

struct lat_args {
	uint64_t total;
	uint64_t warmup;
	uint32_t do_rtt;
	uint64_t first_value;            /* value of iteration 0 (prefilled source) */
	long long *cycles;               /* 3 per sample: issue, putc, rtt */
	uint64_t *calib;                 /* globaltimer, clock64 at start and end */
};

enum { MAX_RINGS_PER_THREAD = 32 };

struct rate_args {
	uint32_t producers;
	uint32_t msg_size;
	uint64_t messages;
	uint64_t *t_start;               /* per producer, globaltimer */
	uint64_t *t_end;
};

/* Launch the kernels on the default stream; return cudaGetLastError(). */
cudaError_t proxy_launch_latency(const dev_rings &d, const lat_args &a, dev_status *st);
cudaError_t proxy_launch_rate(const dev_rings &d, const rate_args &a, dev_status *st);

/* The rings' device view, status block and GPU of an open context. */
struct marrow_proxy_cuda_ctx;
int proxy_cuda_view(struct marrow_proxy_cuda_ctx *c, dev_rings *d, dev_status **st, int *gpu);

#endif
