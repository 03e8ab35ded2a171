/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The cuda rate runner's entry for queues that already live in GPU memory
 * (the device engine's, gda_rate_devnic.cu). With gq == NULL it is
 * marrow_gda_rate_cuda_run (host queues mapped into the GPU). With gq, the
 * endpoints are GPU-placed: nothing is mapped, device words are read with
 * copies, every launch and copy goes to gq->stream (non-blocking: a
 * persistent engine kernel is running), and gq->start / gq->stop bracket
 * the rate kernel. docs/design/methods.md ("mini-gda message rate").
 */
#ifndef MARROW_GDA_RATE_CUDA_H
#define MARROW_GDA_RATE_CUDA_H

#include <cuda_runtime_api.h>

#include "marrow/marrow_gda_rate.h"

struct gda_rate_gpu_queues {
	cudaStream_t stream;
	void *ctx;
	int (*start)(void *ctx);      /* launch the NIC; MARROW_OK or a failure (message set) */
	int (*stop)(void *ctx);       /* bounded; MARROW_ETIMEDOUT leaves the engine running */
	/* the NIC's view of QP index qp, key=value pairs (watchdog) */
	void (*dump)(void *ctx, uint32_t qp, char *buf, uint32_t len);
	int stuck;                    /* out: 1 when stop failed (its memory must not be freed) */
};

int gda_rate_cuda_run_on(const struct marrow_gda_rate_config *cfg, const struct marrow_gda_endpoint *eps,
			 uint32_t n_eps, uint64_t *samples_ns, struct marrow_gda_rate_result *res,
			 struct gda_rate_gpu_queues *gq);

#endif /* MARROW_GDA_RATE_CUDA_H */
