// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The Marrow authors
//
// Device checks and the E0 description: is this GPU able to run the DSM
// suite, and what does it report (SMs, opt-in smem, cluster occupancy).
#include <stdio.h>
#include <string.h>

#include "dsm/dsm_host.cuh"

namespace dsm {

int check_header(uint32_t size, uint32_t comp_mask, size_t need, const char *fn)
{
	if (size < need)
		return marrow_fail(MARROW_EINVAL, "%s: size %u is smaller than the struct (%zu)", fn, size, need);
	if (comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "%s: comp_mask 0x%x not supported (expected 0)", fn, comp_mask);
	return MARROW_OK;
}

int require_hopper(int dev, cudaDeviceProp *prop)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		return marrow_fail(MARROW_ENODEV, "needs a Hopper-class GPU (sm_90+), found no usable CUDA device: %s (%s)",
				   cudaGetErrorString(e), cudaGetErrorName(e));
	}
	if (count == 0)
		return marrow_fail(MARROW_ENODEV, "needs a Hopper-class GPU (sm_90+), found no CUDA device");
	if (dev < 0 || dev >= count)
		return marrow_fail(MARROW_ENODEV, "needs a Hopper-class GPU (sm_90+), found no device %d (%d visible)", dev,
				   count);
	e = cudaGetDeviceProperties(prop, dev);
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaGetDeviceProperties");
	if (prop->major < 9)
		return marrow_fail(MARROW_ENODEV, "needs a Hopper-class GPU (sm_90+), found %s (sm_%d%d)", prop->name,
				   prop->major, prop->minor);
	int cluster = 0;
	cudaDeviceGetAttribute(&cluster, cudaDevAttrClusterLaunch, dev);
	if (!cluster)
		return marrow_fail(MARROW_ENODEV, "needs a Hopper-class GPU (sm_90+), found %s (sm_%d%d) without cluster launch",
				   prop->name, prop->major, prop->minor);
	if (prop->sharedMemPerBlockOptin < MARROW_DSM_SMEM_BYTES)
		return marrow_fail(MARROW_ENODEV,
				   "needs a Hopper-class GPU (sm_90+), found %s with only %zu B opt-in shared memory per block (%u needed)",
				   prop->name, prop->sharedMemPerBlockOptin, MARROW_DSM_SMEM_BYTES);
	e = cudaSetDevice(dev);
	if (e != cudaSuccess)
		return marrow_cuda_fail(e, "cudaSetDevice");
	return MARROW_OK;
}

} // namespace dsm

extern "C" MARROW_API int marrow_dsm_device_info(int dev, struct marrow_dsm_device_info *out)
{
	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_dsm_device_info: NULL out");
	int rc = dsm::check_header(out->size, out->comp_mask, sizeof(*out), "marrow_dsm_device_info");
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->ordinal = dev;
	out->smem_per_cta = MARROW_DSM_SMEM_BYTES;
	for (int i = 0; i < 4; i++)
		out->max_active_clusters[i] = -1;
	cudaDriverGetVersion(&out->driver_version);
	cudaRuntimeGetVersion(&out->runtime_version);

	cudaDeviceProp prop;
	memset(&prop, 0, sizeof(prop));
	rc = dsm::require_hopper(dev, &prop);
	if (prop.name[0] != '\0') {
		snprintf(out->name, sizeof(out->name), "%.127s", prop.name);
		out->cc_major = prop.major;
		out->cc_minor = prop.minor;
		out->sm_count = prop.multiProcessorCount;
		out->max_smem_optin = (int32_t)prop.sharedMemPerBlockOptin;
		cudaDeviceGetAttribute(&out->clock_rate_khz, cudaDevAttrClockRate, dev);
	}
	if (rc)
		return rc;
	const int sizes[4] = {2, 4, 8, 16};
	for (int i = 0; i < 4; i++) {
		int n = -1;
		if (dsm::traffic_max_active_clusters(sizes[i], MARROW_DSM_DEFAULT_GROUP_THREADS, &n) == MARROW_OK)
			out->max_active_clusters[i] = n;
	}
	marrow_clear_error(); // a failed occupancy query is reported as -1, not as an error
	return MARROW_OK;
}
