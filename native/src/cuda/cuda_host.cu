/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The CUDA error mapping and the bounded kernel wait (cuda_host.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "common/marrow_dump.h"
#include "cuda/cuda_host.h"

int marrow_cuda_status(cudaError_t e)
{
	return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? MARROW_ENODEV : MARROW_EIO;
}

int marrow_cuda_fail(cudaError_t e, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	(void)cudaGetLastError();
	return marrow_fail(marrow_cuda_status(e), "%s failed: %s (%s = %d)", what, cudaGetErrorString(e),
			   cudaGetErrorName(e), (int)e);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int marrow_cuda_wait_event(cudaEvent_t ev, uint64_t timeout_ns, const char *what, cudaError_t *cuda_error)
{
	const uint64_t t0 = monotonic_ns();
	cudaError_t scratch;

	if (cuda_error == NULL)
		cuda_error = &scratch;
	for (;;) {
		cudaError_t e = *cuda_error = cudaEventQuery(ev);

		if (e == cudaSuccess)
			return MARROW_OK;
		if (e != cudaErrorNotReady)
			return marrow_cuda_fail(e, "%s", what);
		if (monotonic_ns() - t0 > timeout_ns) {
			struct marrow_dump d;

			marrow_fail(MARROW_ETIMEDOUT, "%s: GPU work still running after %llu ms (host watchdog; "
				    "every device-side wait is bounded, so the GPU stopped making progress)",
				    what, (unsigned long long)(timeout_ns / 1000000u));
			/* The watchdog dump (docs/design/watchdog.md); the kernel's own
			 * state is on the GPU, out of reach while it runs. */
			marrow_dump_init(&d);
			marrow_dump_kv(&d, "waited_for", "kernel");
			marrow_dump_kv(&d, "bound_ms", "%llu", (unsigned long long)(timeout_ns / 1000000u));
			marrow_dump_kv(&d, "elapsed_ms", "%llu", (unsigned long long)((monotonic_ns() - t0) / 1000000u));
			return marrow_fail_dump(MARROW_ETIMEDOUT, &d);
		}
		/* A nap, not a spin: the host thread may share cores with the
		 * software NIC's engine, and the kernel times itself on the GPU. */
		struct timespec nap = { 0, 50 * 1000 };
		nanosleep(&nap, NULL);
	}
}

int marrow_cuda_preload(const void *const *kernels, int n, const char *what)
{
	for (int i = 0; i < n; i++) {
		struct cudaFuncAttributes at;
		cudaError_t e = cudaFuncGetAttributes(&at, kernels[i]);

		if (e != cudaSuccess)
			return marrow_cuda_fail(e, "%s: loading kernel %d of %d before the device engine starts", what,
						i, n);
	}
	return MARROW_OK;
}
