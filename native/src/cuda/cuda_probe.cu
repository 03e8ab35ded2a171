/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_cuda_probe and marrow_cuda_device_info (CUDA runtime, static).
 */
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "common/marrow_common.h"
#include "cuda/cuda_host.h"
#include "marrow/marrow_cuda.h"

static int check_size(uint32_t size, size_t need, const char *fn)
{
	if (size < need)
		return marrow_fail(MARROW_EINVAL, "%s: out->size %u < sizeof %zu", fn, size, need);
	return MARROW_OK;
}

/* Counts devices; on failure sets the last error with the CUDA text. */
static int device_count(int *n, cudaError_t *cerr)
{
	int drv = 0, rt = 0;
	cudaError_t err;

	*n = 0;
	err = cudaGetDeviceCount(n);
	*cerr = err;
	if (err != cudaSuccess) {
		/* Reset the runtime's last-error slot so later calls start clean. */
		(void)cudaGetLastError();
		*n = 0;
		cudaDriverGetVersion(&drv);
		cudaRuntimeGetVersion(&rt);
		return marrow_fail(MARROW_ENODEV,
				   "cudaGetDeviceCount failed: %s "
				   "(%s = %d; driver %d%s, runtime %d)",
				   cudaGetErrorString(err), cudaGetErrorName(err), (int)err,
				   drv, drv == 0 ? " = libcuda.so.1 not loadable" : "", rt);
	}
	if (*n <= 0)
		return marrow_fail(MARROW_ENODEV, "no CUDA device visible (cudaGetDeviceCount = 0; "
				   "check CUDA_VISIBLE_DEVICES)");
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_cuda_probe(struct marrow_cuda_probe_info *out)
{
	cudaError_t cerr;
	int rc, n, v;

	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_cuda_probe: NULL out");
	rc = check_size(out->size, sizeof(*out), "marrow_cuda_probe");
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);

	v = 0;
	if (cudaRuntimeGetVersion(&v) == cudaSuccess)
		out->runtime_version = v;
	v = 0;
	if (cudaDriverGetVersion(&v) == cudaSuccess)
		out->driver_version = v;
	rc = device_count(&n, &cerr);
	out->cuda_error = (int32_t)cerr;
	if (rc)
		return rc;
	out->device_count = n;
	marrow_clear_error();
	return MARROW_OK;
}

/* Required attribute: a failure fails the call. */
static int attr(int dev, enum cudaDeviceAttr a, const char *name, int32_t *out)
{
	int v = 0;
	cudaError_t err = cudaDeviceGetAttribute(&v, a, dev);

	if (err != cudaSuccess)
		return marrow_cuda_fail(err, "cudaDeviceGetAttribute(%s, dev %d)", name, dev);
	*out = v;
	return MARROW_OK;
}

/* Optional attribute: -1 where an older driver does not know it. */
static int32_t attr_opt(int dev, enum cudaDeviceAttr a)
{
	int v = 0;

	if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) {
		(void)cudaGetLastError();
		return -1;
	}
	return v;
}

#define ATTR(field, a)							\
	do {								\
		rc = attr(dev, a, #a, &out->field);			\
		if (rc)							\
			return rc;					\
	} while (0)

extern "C" MARROW_API int marrow_cuda_device_info(int dev, struct marrow_cuda_device_info *out)
{
	struct cudaDeviceProp prop;
	cudaError_t err;
	int rc, n;

	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_cuda_device_info: NULL out");
	rc = check_size(out->size, sizeof(*out), "marrow_cuda_device_info");
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);

	rc = device_count(&n, &err);
	if (rc)
		return rc;
	if (dev < 0 || dev >= n)
		return marrow_fail(MARROW_ENOENT,
				   "marrow_cuda_device_info: device %d outside [0, %d)", dev, n);
	out->ordinal = dev;

	memset(&prop, 0, sizeof(prop));
	err = cudaGetDeviceProperties(&prop, dev);
	if (err != cudaSuccess)
		return marrow_cuda_fail(err, "cudaGetDeviceProperties(%d)", dev);
	snprintf(out->name, sizeof(out->name), "%s", prop.name);
	memcpy(out->uuid, prop.uuid.bytes, sizeof(out->uuid));
	out->total_mem_bytes = prop.totalGlobalMem;

	err = cudaDeviceGetPCIBusId(out->pci_bus_id, (int)sizeof(out->pci_bus_id), dev);
	if (err != cudaSuccess)
		return marrow_cuda_fail(err, "cudaDeviceGetPCIBusId(%d)", dev);
	out->pci_bus_id[sizeof(out->pci_bus_id) - 1] = '\0';

	ATTR(cc_major, cudaDevAttrComputeCapabilityMajor);
	ATTR(cc_minor, cudaDevAttrComputeCapabilityMinor);
	ATTR(sm_count, cudaDevAttrMultiProcessorCount);
	ATTR(clock_rate_khz, cudaDevAttrClockRate);
	ATTR(mem_clock_khz, cudaDevAttrMemoryClockRate);
	ATTR(mem_bus_width_bits, cudaDevAttrGlobalMemoryBusWidth);
	ATTR(l2_bytes, cudaDevAttrL2CacheSize);
	ATTR(max_shared_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin);
	out->cluster_launch = attr_opt(dev, cudaDevAttrClusterLaunch);
	if (out->cluster_launch < 0)
		out->cluster_launch = 0; /* drivers before cluster support: none */
	out->gpudirect_rdma_supported = attr_opt(dev, cudaDevAttrGPUDirectRDMASupported);
	out->gpudirect_rdma_writes_ordering = attr_opt(dev, cudaDevAttrGPUDirectRDMAWritesOrdering);
	out->host_register_supported = attr_opt(dev, cudaDevAttrHostRegisterSupported);
	marrow_clear_error();
	return MARROW_OK;
}
