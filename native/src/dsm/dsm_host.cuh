// SPDX-License-Identifier: Apache-2.0
// Copyright (c) 2026 The Marrow authors
//
// Host-side helpers shared by the DSM entry points (internal, hidden).
#ifndef MARROW_DSM_HOST_CUH
#define MARROW_DSM_HOST_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "common/marrow_common.h"
#include "cuda/cuda_host.h"
#include "marrow/marrow_dsm.h"

namespace dsm {

// Selects dev and checks it can run the suite: a device exists, it is
// sm_90+, clusters launch, MARROW_DSM_SMEM_BYTES fit. Otherwise
// MARROW_ENODEV with "needs a Hopper-class GPU (sm_90+), found ...".
int require_hopper(int dev, cudaDeviceProp *prop);

// CUDA errors and the bounded kernel wait are cuda/cuda_host.h's
// (marrow_cuda_fail, marrow_cuda_wait_event).

// Checks the size/comp_mask header of an ABI struct.
int check_header(uint32_t size, uint32_t comp_mask, size_t need, const char *fn);

// cudaOccupancyMaxActiveClusters for the traffic kernel (dsm_traffic.cu).
int traffic_max_active_clusters(int n, uint32_t group_threads, int *out);

} // namespace dsm

#endif
