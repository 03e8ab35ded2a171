/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_cuda_dmabuf_fd and the DevX copy callbacks (marrow_cuda_devx.h).
 * The driver call comes through cudaGetDriverEntryPointByVersion, so this
 * library still needs no libcuda at link time.
 */
#include <stdint.h>
#include <string.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "common/marrow_common.h"
#include "marrow/marrow_cuda_devx.h"

namespace {

typedef CUresult (*get_handle_fn)(void *handle, CUdeviceptr dptr, size_t size, CUmemRangeHandleType type,
				  unsigned long long flags);

const uint64_t kPage = 4096;

int copy(void *dst, const void *src, size_t n, cudaMemcpyKind kind, const char *what)
{
	cudaError_t e = cudaMemcpy(dst, src, n, kind);

	if (e != cudaSuccess)
		return marrow_fail(e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? MARROW_ENODEV : MARROW_EIO,
				   "%s: cudaMemcpy(%p <- %p, %zu) failed: %s (%d)", what, dst, src, n,
				   cudaGetErrorName(e), (int)e);
	return MARROW_OK;
}

} // namespace

extern "C" MARROW_API int marrow_cuda_dmabuf_fd(void *ptr, size_t len, int32_t *fd, uint64_t *offset)
{
	void *fn = NULL;
	cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	cudaError_t e;
	uint64_t base, end;
	int handle = -1;
	CUresult r;

	if (ptr == NULL || len == 0 || fd == NULL || offset == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_cuda_dmabuf_fd: NULL or empty argument");
	*fd = -1;
	e = cudaGetDriverEntryPointByVersion("cuMemGetHandleForAddressRange", &fn, 11070, cudaEnableDefault, &q);
	if (e != cudaSuccess)
		return marrow_fail(e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? MARROW_ENODEV : MARROW_EIO,
				   "marrow_cuda_dmabuf_fd: cudaGetDriverEntryPointByVersion failed: %s (%d)",
				   cudaGetErrorName(e), (int)e);
	if (fn == NULL || q != cudaDriverEntryPointSuccess)
		return marrow_fail(MARROW_ENOSYS, "marrow_cuda_dmabuf_fd: the driver has no "
				   "cuMemGetHandleForAddressRange (needs CUDA 11.7+ driver)");
	base = (uint64_t)(uintptr_t)ptr & ~(kPage - 1);
	end = ((uint64_t)(uintptr_t)ptr + len + kPage - 1) & ~(kPage - 1);
	r = ((get_handle_fn)fn)(&handle, (CUdeviceptr)base, (size_t)(end - base), CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (r != CUDA_SUCCESS)
		return marrow_fail(r == CUDA_ERROR_NOT_SUPPORTED || r == CUDA_ERROR_INVALID_VALUE ? MARROW_ENOSYS : MARROW_EIO,
				   "marrow_cuda_dmabuf_fd: cuMemGetHandleForAddressRange(0x%llx, %llu, DMA_BUF_FD) "
				   "failed: CUresult %d%s", (unsigned long long)base, (unsigned long long)(end - base),
				   (int)r, r == CUDA_ERROR_NOT_SUPPORTED ? " (no dma-buf support: kernel or driver too old, "
				   "or the open kernel modules are not in use)" : "");
	*fd = handle;
	*offset = (uint64_t)(uintptr_t)ptr - base;
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_cuda_devx_to_gpu(void *ctx, void *dst_gpu, const void *src, size_t n)
{
	(void)ctx;
	return copy(dst_gpu, src, n, cudaMemcpyHostToDevice, "marrow_cuda_devx_to_gpu");
}

extern "C" MARROW_API int marrow_cuda_devx_from_gpu(void *ctx, void *dst, const void *src_gpu, size_t n)
{
	(void)ctx;
	return copy(dst, src_gpu, n, cudaMemcpyDeviceToHost, "marrow_cuda_devx_from_gpu");
}

namespace {

int device_of(void *ctx, const char *what)
{
	cudaError_t e = cudaSetDevice((int)(intptr_t)ctx);

	if (e != cudaSuccess)
		return marrow_fail(e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
					   e == cudaErrorInvalidDevice ? MARROW_ENODEV : MARROW_EIO,
				   "%s: cudaSetDevice(%d) failed: %s (%d)", what, (int)(intptr_t)ctx,
				   cudaGetErrorName(e), (int)e);
	return MARROW_OK;
}

int ops_alloc(void *ctx, uint64_t len, void **gpu)
{
	int rc = device_of(ctx, "GPU queue memory");
	cudaError_t e;

	if (rc)
		return rc;
	*gpu = NULL;
	e = cudaMalloc(gpu, (size_t)len);
	if (e != cudaSuccess)
		return marrow_fail(e == cudaErrorMemoryAllocation ? MARROW_ENOMEM : MARROW_EIO,
				   "GPU queue memory: cudaMalloc(%llu) failed: %s (%d)", (unsigned long long)len,
				   cudaGetErrorName(e), (int)e);
	return MARROW_OK;
}

int ops_free(void *ctx, void *gpu)
{
	int rc = device_of(ctx, "GPU queue memory");
	cudaError_t e;

	if (rc)
		return rc;
	e = cudaFree(gpu);
	if (e != cudaSuccess)
		return marrow_fail(MARROW_EIO, "GPU queue memory: cudaFree(%p) failed: %s (%d)", gpu,
				   cudaGetErrorName(e), (int)e);
	return MARROW_OK;
}

int ops_dmabuf(void *ctx, void *gpu, uint64_t len, int32_t *fd, uint64_t *offset)
{
	(void)ctx;
	return marrow_cuda_dmabuf_fd(gpu, (size_t)len, fd, offset);
}

int ops_to_gpu(void *ctx, void *dst, const void *src, size_t n)
{
	int rc = device_of(ctx, "marrow_cuda_devx_to_gpu");

	return rc ? rc : marrow_cuda_devx_to_gpu(ctx, dst, src, n);
}

int ops_from_gpu(void *ctx, void *dst, const void *src, size_t n)
{
	int rc = device_of(ctx, "marrow_cuda_devx_from_gpu");

	return rc ? rc : marrow_cuda_devx_from_gpu(ctx, dst, src, n);
}

} // namespace

extern "C" MARROW_API int marrow_cuda_devx_mem_ops(int32_t cuda_device, struct marrow_mlx5_gpu_mem_ops *out)
{
	int ndev = 0;
	cudaError_t e;

	if (out == NULL || out->size < sizeof(*out))
		return marrow_fail(MARROW_EINVAL, "marrow_cuda_devx_mem_ops: NULL or short struct (size %u < %zu)",
				   out ? out->size : 0, sizeof(*out));
	e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev <= 0) {
		(void)cudaGetLastError();
		return marrow_fail(MARROW_ENODEV, "marrow_cuda_devx_mem_ops: no usable CUDA device (%s)",
				   e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
	}
	if (cuda_device < 0 || cuda_device >= ndev)
		return marrow_fail(MARROW_ENODEV, "marrow_cuda_devx_mem_ops: CUDA device %d out of range (0..%d)",
				   cuda_device, ndev - 1);
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->alloc = ops_alloc;
	out->free = ops_free;
	out->dmabuf_fd = ops_dmabuf;
	out->to_gpu = ops_to_gpu;
	out->from_gpu = ops_from_gpu;
	out->ctx = (void *)(intptr_t)cuda_device;
	return MARROW_OK;
}
