/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Layout table of libmarrow_cuda.so, read by Java through marrow_abi_query.
 * The DSM suite appends its entries through dsm/dsm_abi.inc.
 */
#include "common/marrow_common.h"
#include "marrow/marrow_cuda.h"
#include "marrow/marrow_gda.h"
#include "marrow/marrow_gda_rate.h"
#include "marrow/marrow_gda_goodput.h"
#include "marrow/marrow_gda_loaded.h"
/* The DSM structs named by dsm_abi.inc, once their header exists. */
#if __has_include("marrow/marrow_dsm.h")
#include "marrow/marrow_dsm.h"
#endif

/* Frozen sizes: a change here is an ABI change (bump MARROW_ABI_VERSION). */
_Static_assert(sizeof(struct marrow_cuda_probe_info) == 24, "probe_info layout");
_Static_assert(sizeof(struct marrow_cuda_device_info) == 376, "device_info layout");

const struct marrow_abi_entry marrow_abi_table[] = {
	MARROW_ABI_SIZEOF(marrow_cuda_probe_info),
	MARROW_ABI_OFFSETOF(marrow_cuda_probe_info, size),
	MARROW_ABI_OFFSETOF(marrow_cuda_probe_info, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_cuda_probe_info, device_count),
	MARROW_ABI_OFFSETOF(marrow_cuda_probe_info, driver_version),
	MARROW_ABI_OFFSETOF(marrow_cuda_probe_info, runtime_version),
	MARROW_ABI_OFFSETOF(marrow_cuda_probe_info, cuda_error),

	MARROW_ABI_SIZEOF(marrow_cuda_device_info),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, size),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, total_mem_bytes),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, name),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, pci_bus_id),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, uuid),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, ordinal),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, cc_major),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, cc_minor),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, sm_count),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, clock_rate_khz),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, mem_clock_khz),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, mem_bus_width_bits),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, l2_bytes),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, max_shared_per_block_optin),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, cluster_launch),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, gpudirect_rdma_supported),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, gpudirect_rdma_writes_ordering),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, host_register_supported),
	MARROW_ABI_OFFSETOF(marrow_cuda_device_info, reserved),

#include "dsm/dsm_abi.inc"
#include "gda/gda_abi.inc"
#include "gda/gda_rate_abi.inc"
#include "gda/gda_goodput_abi.inc"
#include "gda/gda_loaded_abi.inc"
	MARROW_ABI_END
};
