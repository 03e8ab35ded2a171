/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The one check of a mini-proxy experiment's parameters, shared by the CPU
 * producers (proxy_bench.c), the GPU producers (proxy_cuda.cu) and the
 * exported marrow_proxy_latency_check / marrow_proxy_rate_check that Java
 * calls before anything is built. Counts are printed signed: a negative
 * command-line value reads as what was typed.
 */
#ifndef MARROW_PROXY_PARAMS_CHECK_H
#define MARROW_PROXY_PARAMS_CHECK_H

#include "common/marrow_common.h"
#include "marrow/marrow_proxy.h"

static inline int px_check_latency_params(const struct marrow_proxy_latency_params *p, int gpu_producer)
{
	if (p == NULL || p->size < sizeof(*p))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_latency_params missing or too small");
	if ((int32_t)p->iters < 1)
		return marrow_fail(MARROW_EINVAL, "iters %d must be >= 1", (int32_t)p->iters);
	if ((int32_t)p->warmup < 0)
		return marrow_fail(MARROW_EINVAL, "warmup %d must be >= 0", (int32_t)p->warmup);
	if (gpu_producer && p->msg_size != 8)
		return marrow_fail(MARROW_EINVAL, "size %d: GPU producers send 8-byte messages only", (int32_t)p->msg_size);
	if (p->msg_size < 8 || p->msg_size > 64)
		return marrow_fail(MARROW_EINVAL, "size %d must be 8..64 bytes", (int32_t)p->msg_size);
	if ((int64_t)p->timeout_ns <= 0)
		return marrow_fail(MARROW_EINVAL, "timeout %lld ns must be > 0", (long long)p->timeout_ns);
	return MARROW_OK;
}

static inline int px_check_rate_params(const struct marrow_proxy_rate_params *p)
{
	if (p == NULL || p->size < sizeof(*p))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_rate_params missing or too small");
	if ((int32_t)p->producers < 1)
		return marrow_fail(MARROW_EINVAL, "producers %d must be >= 1", (int32_t)p->producers);
	if ((int32_t)p->msg_size < 8 || p->msg_size % 8)
		return marrow_fail(MARROW_EINVAL, "size %d must be a multiple of 8 bytes (>= 8)", (int32_t)p->msg_size);
	if ((int64_t)p->messages < 1)
		return marrow_fail(MARROW_EINVAL, "messages %lld must be >= 1", (long long)p->messages);
	if ((int64_t)p->warmup < 0)
		return marrow_fail(MARROW_EINVAL, "warmup %lld must be >= 0", (long long)p->warmup);
	if ((int64_t)p->timeout_ns <= 0)
		return marrow_fail(MARROW_EINVAL, "timeout %lld ns must be > 0", (long long)p->timeout_ns);
	return MARROW_OK;
}

#endif
