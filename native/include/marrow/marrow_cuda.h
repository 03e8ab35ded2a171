/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * CUDA backend (libmarrow_cuda.so): GPU and driver probe.
 *
 * The CUDA runtime is linked statically and loads the driver
 * (libcuda.so.1) itself on first use, so this library loads on hosts
 * without a GPU or driver; there the calls below answer MARROW_ENODEV with
 * the CUDA error text in marrow_cuda_last_error().
 *
 * Structs follow the ABI conventions of marrow_abi.h: the caller sets size
 * to sizeof(struct) and comp_mask to 0; the library checks size, fills the
 * struct and writes back the number of bytes it filled into size.
 * Layout: no implicit padding; char arrays are always NUL-terminated.
 */
#ifndef MARROW_CUDA_H
#define MARROW_CUDA_H

#include "marrow/marrow_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sizeof = 24 */
struct marrow_cuda_probe_info {
	uint32_t size;            /* in: sizeof(*this); out: bytes filled */
	uint32_t comp_mask;       /* in: 0; out: 0 */
	int32_t device_count;     /* visible CUDA devices; 0 on failure */
	int32_t driver_version;   /* cudaDriverGetVersion, e.g. 13000; 0 = no driver */
	int32_t runtime_version;  /* cudaRuntimeGetVersion of the linked runtime */
	int32_t cuda_error;       /* cudaError_t of cudaGetDeviceCount; 0 on success */
};

/* sizeof = 376 */
struct marrow_cuda_device_info {
	uint32_t size;            /* in: sizeof(*this); out: bytes filled */
	uint32_t comp_mask;       /* in: 0; out: 0 */
	uint64_t total_mem_bytes; /* global memory */
	char name[256];           /* e.g. "NVIDIA H200" */
	char pci_bus_id[32];      /* "dddd:bb:dd.f", as cudaDeviceGetPCIBusId */
	uint8_t uuid[16];         /* GPU UUID bytes, as nvidia-smi's GPU-<uuid> */
	int32_t ordinal;          /* the dev argument */
	int32_t cc_major;         /* compute capability, e.g. 9.0 = sm_90 */
	int32_t cc_minor;
	int32_t sm_count;
	int32_t clock_rate_khz;   /* peak SM clock */
	int32_t mem_clock_khz;    /* peak memory clock */
	int32_t mem_bus_width_bits;
	int32_t l2_bytes;
	int32_t max_shared_per_block_optin; /* bytes, via cudaFuncSetAttribute opt-in */
	int32_t cluster_launch;   /* 1 if thread-block clusters can be launched (sm_90+) */
	/* For GPU-initiated RDMA; -1 when the driver does not know the attribute. */
	int32_t gpudirect_rdma_supported;
	int32_t gpudirect_rdma_writes_ordering; /* cudaGPUDirectRDMAWritesOrdering */
	int32_t host_register_supported;        /* cudaHostRegister works */
	int32_t reserved;         /* 0 */
};

/*
 * Counts the CUDA devices and reports driver/runtime versions.
 * Returns MARROW_ENODEV when cudaGetDeviceCount fails (no driver, driver
 * too old, no device) or finds 0 devices; *out is then still filled
 * (versions, cuda_error) and marrow_cuda_last_error() holds the CUDA error text,
 * e.g. "cudaGetDeviceCount failed: CUDA driver version is insufficient for
 * CUDA runtime version (cudaErrorInsufficientDriver = 35; ...)".
 * MARROW_EINVAL for a NULL out or a size smaller than the struct.
 */
MARROW_API int marrow_cuda_probe(struct marrow_cuda_probe_info *out);

/*
 * Describes device dev (CUDA ordinal, after CUDA_VISIBLE_DEVICES). Creates
 * no context. Returns MARROW_ENODEV as marrow_cuda_probe() does,
 * MARROW_ENOENT for dev outside [0, device_count), MARROW_EIO when a
 * query fails.
 */
MARROW_API int marrow_cuda_device_info(int dev, struct marrow_cuda_device_info *out);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_CUDA_H */
