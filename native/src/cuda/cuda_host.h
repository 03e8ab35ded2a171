/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Host-side CUDA helpers of libmarrow_cuda.so, shared by the mini-gda,
 * mini-proxy and DSM entry points (internal, hidden): the one mapping of a
 * CUDA runtime error to a Marrow status and message, and the one bounded
 * wait for a launched kernel. C++ (CUDA) callers only.
 */
#ifndef MARROW_CUDA_HOST_H
#define MARROW_CUDA_HOST_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "common/marrow_common.h"

/* The Marrow status for a CUDA runtime error: MARROW_ENODEV when there is
 * no usable device or driver (cudaErrorNoDevice, cudaErrorInsufficientDriver),
 * MARROW_EIO for everything else. The driver API (CUresult) is not used by
 * Marrow; a caller of it would add its mapping here. */
int marrow_cuda_status(cudaError_t e);

/* Records "<what> failed: <text> (<name> = <code>)" as this thread's last
 * error, where <what> is printf-formatted from fmt, clears the runtime's
 * last-error slot (so the next CUDA call starts clean; a sticky error stays
 * sticky) and returns marrow_cuda_status(e). */
int marrow_cuda_fail(cudaError_t e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Waits for ev (recorded behind a kernel) by polling cudaEventQuery with a
 * short nap, never longer than timeout_ns of host time. Every device-side
 * wait is bounded already, so this deadline is only the backstop for a GPU
 * that stopped making progress: MARROW_ETIMEDOUT, "<what>: GPU work still
 * running after N ms (host watchdog)". A failed kernel returns
 * marrow_cuda_fail(e, "<what>"). *cuda_error (when not NULL) receives the
 * CUDA error seen (cudaErrorNotReady on the timeout, cudaSuccess on success). */
int marrow_cuda_wait_event(cudaEvent_t ev, uint64_t timeout_ns, const char *what, cudaError_t *cuda_error);

/* Loads each of the n kernels (the host-side symbols of __global__ functions) into the
 * current context now, with cudaFuncGetAttributes. Under lazy module loading
 * (CUDA_MODULE_LOADING=LAZY, the default) a kernel's first launch loads it,
 * and that load may wait for the device to be idle: while a persistent
 * kernel (the software NIC's device engine) runs, that first launch blocks
 * until the persistent kernel ends. Every path that launches work beside the
 * engine preloads it before starting the engine (docs/design/device-engine.md). */
int marrow_cuda_preload(const void *const *kernels, int n, const char *what);

/* a + b, or UINT64_MAX when the sum does not fit (deadline arithmetic). */
static inline uint64_t marrow_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* a * b, or UINT64_MAX when the product does not fit. */
static inline uint64_t marrow_sat_mul(uint64_t a, uint64_t b)
{
	return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

#endif
