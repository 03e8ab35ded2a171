/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Layout table of libmarrow_verbs.so, read by Java through marrow_abi_query.
 */
#include "common/marrow_common.h"
#include "marrow/marrow_verbs.h"

/* Frozen sizes: a change here is an ABI change (bump MARROW_ABI_VERSION). */
_Static_assert(sizeof(struct marrow_verbs_probe_info) == 664, "probe_info layout");
_Static_assert(sizeof(struct marrow_verbs_device_info) == 176, "device_info layout");

const struct marrow_abi_entry marrow_abi_table[] = {
	MARROW_ABI_SIZEOF(marrow_verbs_probe_info),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, size),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libibverbs_loaded),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libmlx5_loaded),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, device_count),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, mlx5_device_count),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, first_device),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libibverbs_path),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libibverbs_version),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libmlx5_path),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libmlx5_version),

	MARROW_ABI_SIZEOF(marrow_verbs_device_info),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, size),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, node_guid),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, name),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, fw_ver),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, vendor_id),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, vendor_part_id),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, is_mlx5),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, phys_port_cnt),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, port1_state),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, port1_link_layer),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, port1_active_mtu),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, port1_lid),
	MARROW_ABI_END
};
