/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * rdma-core backend (libmarrow_verbs.so): run-time probe of libibverbs,
 * libmlx5 and the RDMA devices of the host.
 *
 * Neither libibverbs nor libmlx5 is a link-time dependency. Both are
 * dlopened (RTLD_NOW | RTLD_LOCAL) on the first call, once per process, so
 * this library loads on any Linux host and answers MARROW_ENODEV, with the
 * reason in marrow_verbs_last_error(), where rdma-core or a NIC is missing.
 *
 * Library names: $MARROW_IBVERBS_LIB if set, else "libibverbs.so.1", else
 * "libibverbs.so"; then "libmlx5.so.1", else "libmlx5.so" (optional).
 *
 * Structs follow the ABI conventions of marrow_abi.h: the caller sets size
 * to sizeof(struct) and comp_mask to 0; the library checks size, fills the
 * struct and writes back the number of bytes it filled into size.
 * Layout: no implicit padding; char arrays are always NUL-terminated.
 */
#ifndef MARROW_VERBS_H
#define MARROW_VERBS_H

#include "marrow/marrow_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MARROW_VERBS_NAME_MAX 64
#define MARROW_VERBS_PATH_MAX 256
#define MARROW_VERBS_VERSION_MAX 32

/* sizeof = 664 */
struct marrow_verbs_probe_info {
	uint32_t size;              /* in: sizeof(*this); out: bytes filled */
	uint32_t comp_mask;         /* in: 0; out: 0 */
	int32_t libibverbs_loaded;  /* 1 if libibverbs was dlopened */
	int32_t libmlx5_loaded;     /* 1 if libmlx5 was dlopened (optional) */
	int32_t device_count;       /* devices listed by ibv_get_device_list */
	int32_t mlx5_device_count;  /* of those, devices the mlx5 provider drives */
	char first_device[MARROW_VERBS_NAME_MAX];          /* e.g. "mlx5_0"; "" if none */
	char libibverbs_path[MARROW_VERBS_PATH_MAX];       /* file loaded, symlinks resolved */
	char libibverbs_version[MARROW_VERBS_VERSION_MAX]; /* e.g. "1.14.44.0"; "" if unknown */
	char libmlx5_path[MARROW_VERBS_PATH_MAX];
	char libmlx5_version[MARROW_VERBS_VERSION_MAX];    /* e.g. "1.24.44.0" */
};

/* sizeof = 176 */
struct marrow_verbs_device_info {
	uint32_t size;              /* in: sizeof(*this); out: bytes filled */
	uint32_t comp_mask;         /* in: 0; out: 0 */
	uint64_t node_guid;         /* host order: the GUID read as a big-endian number */
	char name[MARROW_VERBS_NAME_MAX];    /* kernel device name, e.g. "mlx5_0" */
	char fw_ver[MARROW_VERBS_NAME_MAX];  /* firmware version, e.g. "28.39.1002" */
	uint32_t vendor_id;         /* IEEE OUI; 0x02c9 = Mellanox/NVIDIA */
	uint32_t vendor_part_id;    /* PCI device id, e.g. 4129 = ConnectX-7 */
	int32_t is_mlx5;            /* 1 if the mlx5 provider drives it */
	uint32_t phys_port_cnt;
	/* Port 1; all 0 when the device has no port. */
	uint32_t port1_state;       /* enum ibv_port_state: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE */
	uint32_t port1_link_layer;  /* 0 unspecified, 1 InfiniBand, 2 Ethernet (RoCE) */
	uint32_t port1_active_mtu;  /* enum ibv_mtu: 1 = 256 ... 5 = 4096 bytes */
	uint32_t port1_lid;         /* 0 on RoCE */
};

/*
 * Loads rdma-core (first call only) and lists the RDMA devices.
 *
 * Returns MARROW_OK when at least one RDMA device is listed, whatever its
 * provider: check mlx5_device_count before using the mlx5 paths.
 * Returns MARROW_ENODEV when libibverbs cannot be loaded or lists no device;
 * *out is then still filled with what was found (libraries, versions,
 * device_count 0) and marrow_verbs_last_error() names the reason:
 *   "libibverbs.so.1 not found: install rdma-core (ibverbs-providers)
 *    [dlopen: ...]"
 *   "libibverbs loaded but no RDMA device found (<what libibverbs said>;
 *    <what /dev/infiniband holds>)", e.g. "(ibv_get_device_list returned
 *    0 devices; /dev/infiniband has no uverbs*)".
 * MARROW_EINVAL for a NULL out or a size smaller than the struct.
 */
MARROW_API int marrow_verbs_probe(struct marrow_verbs_probe_info *out);

/*
 * Describes device index (the order of ibv_get_device_list): opens it,
 * queries the device and port 1, closes it.
 * Returns MARROW_ENODEV as marrow_verbs_probe() does, MARROW_ENOENT for an
 * index outside [0, device_count), MARROW_EPERM when the device cannot be
 * opened for lack of permission, MARROW_EIO when a query fails.
 */
MARROW_API int marrow_verbs_device_info(int index, struct marrow_verbs_device_info *out);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_VERBS_H */
