/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * The CUDA half of GPU-resident mlx5 queues (libmarrow_cuda.so): GPU
 * memory for a DevX QP (marrow_mlx5_gpu_qp_create in libmarrow_verbs.so,
 * which has no CUDA linkage and takes what these calls produce):
 * a dma-buf fd for a device range, and the two copy functions whose
 * addresses go into struct marrow_mlx5_gpu_queues (to_gpu / from_gpu).
 * Background: docs/design/mlx5-queue-formats.md §7.
 */
#ifndef MARROW_CUDA_DEVX_H
#define MARROW_CUDA_DEVX_H

#include <stddef.h>
#include "marrow/marrow_abi.h"
#include "marrow/marrow_mlx5.h" /* struct marrow_mlx5_gpu_mem_ops */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A dma-buf fd for the device range [ptr, ptr+len)
 * (cuMemGetHandleForAddressRange, DMA_BUF_FD), exported from ptr rounded
 * down to 4 KiB; *offset is ptr's offset in it. The caller closes the fd
 * after the umems are registered (the registration holds the buffer).
 * MARROW_ENOSYS when the driver cannot export dma-bufs (the message says
 * why: old driver, or no dma-buf support for this memory); MARROW_ENODEV
 * without a GPU.
 */
MARROW_API int marrow_cuda_dmabuf_fd(void *ptr, size_t len, int32_t *fd, uint64_t *offset);

/* cudaMemcpy host -> device / device -> host, synchronous; ctx unused.
 * 0 on success, else a MARROW_E* status with the CUDA error in the message. */
MARROW_API int marrow_cuda_devx_to_gpu(void *ctx, void *dst_gpu, const void *src, size_t n);
MARROW_API int marrow_cuda_devx_from_gpu(void *ctx, void *dst, const void *src_gpu, size_t n);

/*
 * Fills *out (out->size set by the caller) with this library's GPU memory
 * for marrow_mlx5_gpu_qp_open: cudaMalloc / cudaFree on cuda_device, the
 * dma-buf export above, and the two copies. Selects the device and checks
 * it exists first: MARROW_ENODEV without a usable GPU (the message says
 * why), MARROW_EINVAL for a short out->size.
 */
MARROW_API int marrow_cuda_devx_mem_ops(int32_t cuda_device, struct marrow_mlx5_gpu_mem_ops *out);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_CUDA_DEVX_H */
