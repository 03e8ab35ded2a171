/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda with GPU-resident queues on the software NIC's device engine
 * (marrow_gda_devnic_*, marrow_gda.h): the same two-QP session the CPU
 * engine gives mini-gda (A <-> B, one send CQ each, A's source and inbox,
 * B's source and inbox), with every queue and buffer in cudaMalloc memory
 * and the NIC a persistent kernel on nic_sms SMs. The endpoints it fills
 * carry placement GPU, so marrow_gda_cuda_run takes its GPU path.
 * docs/design/device-engine.md.
 */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "common/marrow_common.h"
#include "cuda/cuda_host.h"
#include "marrow/marrow_gda.h"
#include "marrow/marrow_softnic_device.h"

int gda_cuda_preload_kernels(void);   /* gda_cuda.cu */

struct marrow_gda_devnic {
	struct marrow_softnic_device *nic;
	struct marrow_qp_view qv[2];
	struct marrow_cq_view cv[2];
	void *buf[4];               /* A source, B source, A inbox, B inbox */
	uint64_t len;
};

namespace {

void fill_endpoint(struct marrow_gda_endpoint *e, const struct marrow_qp_view *q, const struct marrow_cq_view *c,
		   void *src, uint32_t lkey, void *inbox, void *dst, uint32_t rkey, uint64_t len)
{
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	e->placement = MARROW_GDA_PLACEMENT_GPU;
	e->lkey = lkey;
	e->qp = q;
	e->cq = c;
	e->local_addr = (uint64_t)(uintptr_t)src;
	e->local_len = len;
	e->inbox_addr = (uint64_t)(uintptr_t)inbox;
	e->remote_addr = (uint64_t)(uintptr_t)dst;
	e->remote_len = len;
	e->rkey = rkey;
}

void release(struct marrow_gda_devnic *n)
{
	for (int i = 0; i < 4; i++)
		if (n->buf[i])
			cudaFree(n->buf[i]);
	(void)cudaGetLastError();
	free(n);
}

} // namespace

extern "C" MARROW_API int marrow_gda_devnic_open(int32_t cuda_device, uint32_t nic_sms, uint32_t log_sq,
						 uint32_t log_cq, uint32_t cq_flags, uint32_t max_inline,
						 uint64_t buffer_bytes, struct marrow_gda_devnic **out,
						 struct marrow_gda_endpoint *a, struct marrow_gda_endpoint *b)
{
	static const char fn[] = "marrow_gda_devnic_open";
	struct marrow_softnic_device_attr attr;
	struct marrow_gda_devnic *n;
	uint32_t cq[2], qp[2], key[4];
	cudaError_t e;
	int rc;

	if (out == nullptr || a == nullptr || b == nullptr)
		return marrow_fail(MARROW_EINVAL, "%s: out, a and b must not be NULL", fn);
	*out = nullptr;
	if (buffer_bytes < 8 || buffer_bytes > (1ull << 32))
		return marrow_fail(MARROW_EINVAL, "%s: buffer_bytes %llu outside 8..2^32", fn,
				   (unsigned long long)buffer_bytes);
	n = (struct marrow_gda_devnic *)calloc(1, sizeof(*n));
	if (n == nullptr)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	n->len = buffer_bytes;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.nic_sms = nic_sms;
	attr.threads_per_sm = 0;   /* the engine layout's default */
	attr.queue_memory = MARROW_SNDEV_QUEUES_GPU;
	attr.cuda_device = cuda_device;
	attr.max_qps = 2;
	attr.max_mrs = 4;
	attr.quiet = 1;
	if ((rc = marrow_softnic_device_open(&attr, &n->nic)) != MARROW_OK) {
		free(n);
		return rc;
	}
	for (int i = 0; i < 4; i++) {
		if ((e = cudaMalloc(&n->buf[i], buffer_bytes)) != cudaSuccess ||
		    (e = cudaMemset(n->buf[i], 0, buffer_bytes)) != cudaSuccess) {
			rc = marrow_cuda_fail(e, "%s: cudaMalloc of the data buffers", fn);
			goto fail;
		}
	}
	if ((rc = marrow_softnic_device_cq_create(n->nic, log_cq, cq_flags, &cq[0], &n->cv[0])) ||
	    (rc = marrow_softnic_device_cq_create(n->nic, log_cq, cq_flags, &cq[1], &n->cv[1])) ||
	    (rc = marrow_softnic_device_qp_create(n->nic, cq[0], log_sq, max_inline, MARROW_ACCESS_REMOTE_WRITE, &qp[0],
						  &n->qv[0])) ||
	    (rc = marrow_softnic_device_qp_create(n->nic, cq[1], log_sq, max_inline, MARROW_ACCESS_REMOTE_WRITE, &qp[1],
						  &n->qv[1])) ||
	    (rc = marrow_softnic_device_qp_connect(n->nic, qp[0], qp[1])) ||
	    (rc = marrow_softnic_device_qp_connect(n->nic, qp[1], qp[0])))
		goto fail;
	for (int i = 0; i < 4; i++) {
		uint32_t acc = i < 2 ? MARROW_ACCESS_LOCAL_WRITE : MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE;
		if ((rc = marrow_softnic_device_mr_reg(n->nic, (uint64_t)(uintptr_t)n->buf[i], buffer_bytes, acc,
						       &key[i])) != MARROW_OK)
			goto fail;
	}
	/* A writes into B's inbox, B into A's (the round trip's reply). */
	fill_endpoint(a, &n->qv[0], &n->cv[0], n->buf[0], key[0], n->buf[2], n->buf[3], key[3], buffer_bytes);
	fill_endpoint(b, &n->qv[1], &n->cv[1], n->buf[1], key[1], n->buf[3], n->buf[2], key[2], buffer_bytes);
	/* the mini-gda kernels launch while the engine runs: load them first */
	if ((rc = gda_cuda_preload_kernels()) != MARROW_OK ||
	    (rc = marrow_softnic_device_start(n->nic)) != MARROW_OK)
		goto fail;
	*out = n;
	return MARROW_OK;
fail:
	if (marrow_softnic_device_close(n->nic) == MARROW_ETIMEDOUT)
		return rc;   /* a kernel that did not stop keeps its memory */
	release(n);
	return rc;
}

extern "C" MARROW_API int marrow_gda_devnic_close(struct marrow_gda_devnic *n)
{
	int rc;

	if (n == nullptr)
		return MARROW_OK;
	rc = marrow_softnic_device_close(n->nic);
	if (rc == MARROW_ETIMEDOUT)
		return rc;   /* still running: leave its memory alone */
	release(n);
	return rc;
}

extern "C" MARROW_API struct marrow_softnic_device *marrow_gda_devnic_device(struct marrow_gda_devnic *n)
{
	return n == nullptr ? nullptr : n->nic;
}

/* The engine's info for the two getters below: their two out values from
 * it, or the failure (NULL arguments named by fn). */
static int devnic_info(struct marrow_gda_devnic *n, const void *out0, const void *out1, const char *fn,
		       struct marrow_softnic_device_info *info)
{
	if (n == nullptr || out0 == nullptr || out1 == nullptr)
		return marrow_fail(MARROW_EINVAL, "%s: NULL argument", fn);
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return marrow_softnic_device_info(n->nic, info);
}

extern "C" MARROW_API int marrow_gda_devnic_sms(struct marrow_gda_devnic *n, uint32_t *distinct_sms,
						uint32_t *max_blocks_per_sm)
{
	struct marrow_softnic_device_info info;
	int rc = devnic_info(n, distinct_sms, max_blocks_per_sm, "marrow_gda_devnic_sms", &info);

	if (rc != MARROW_OK)
		return rc;
	*distinct_sms = info.distinct_sms;
	*max_blocks_per_sm = info.max_blocks_per_sm;
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_gda_devnic_layout(struct marrow_gda_devnic *n, uint32_t *exec_mode,
						   uint32_t *threads_per_sm)
{
	struct marrow_softnic_device_info info;
	int rc = devnic_info(n, exec_mode, threads_per_sm, "marrow_gda_devnic_layout", &info);

	if (rc != MARROW_OK)
		return rc;
	*exec_mode = info.exec_mode;
	*threads_per_sm = info.threads_per_sm;
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_gda_devnic_read(struct marrow_gda_devnic *n, uint32_t buffer, void *dst,
						 uint64_t len)
{
	static const char fn[] = "marrow_gda_devnic_read";
	cudaStream_t st = nullptr;
	cudaError_t e;

	if (n == nullptr || dst == nullptr || buffer > 3 || len > n->len)
		return marrow_fail(MARROW_EINVAL, "%s: session/dst NULL, buffer %u (0..3) or len %llu > %llu", fn, buffer,
				   (unsigned long long)len, (unsigned long long)n->len);
	/* The engine kernel is running: a non-blocking stream, never the legacy one. */
	if ((e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)) != cudaSuccess)
		return marrow_cuda_fail(e, "%s: cudaStreamCreateWithFlags", fn);
	e = cudaMemcpyAsync(dst, n->buf[buffer], len, cudaMemcpyDeviceToHost, st);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(st);
	cudaStreamDestroy(st);
	return e == cudaSuccess ? MARROW_OK : marrow_cuda_fail(e, "%s: cudaMemcpyAsync", fn);
}
