/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Host ranges made addressable by GPU kernels (libmarrow_cuda.so): the
 * NIC's doorbell register (UAR, device MMIO) and host-resident queues (SQ,
 * CQ, doorbell records) that a kernel writes and polls.
 *
 * IO memory (the UAR) is registered exactly as given with
 * cudaHostRegisterPortable | Mapped | IoMemory (= cuMemHostRegister with
 * PORTABLE | DEVICEMAP | IOMEMORY), as NVSHMEM and DOCA do for an
 * unaligned BlueFlame register of a few bytes. Ordinary memory is widened
 * to whole pages and registered Portable | Mapped.
 *
 * Registrations are reference-counted per range, because libmlx5 pools
 * doorbell records: the SQ DBR of one QP and the CQ DBR may share a page,
 * and a second registration of it must neither fail nor, when undone, pull
 * the page from under the first. A range registered by someone else
 * (cudaErrorHostMemoryAlreadyRegistered outside this table) is used as it
 * is and never unregistered here.
 *
 * Background: docs/design/mlx5-queue-formats.md §5.2.
 *
 * The driver refuses IO-memory mappings unless loaded with
 * NVreg_RegistryDwords="PeerMappingOverride=1;": that failure answers
 * MARROW_EPERM and the message says so.
 */
#ifndef MARROW_CUDA_MAP_H
#define MARROW_CUDA_MAP_H

#include "marrow/marrow_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Registers [ptr, ptr+len) with the current CUDA device's context and
 * returns in *dev_ptr the address a kernel uses for ptr itself (not the
 * page start). io_memory != 0 for device MMIO such as the UAR.
 * Returns MARROW_OK; MARROW_EINVAL for bad arguments; MARROW_ENODEV
 * without a usable GPU/driver; MARROW_EPERM when the driver refuses the
 * mapping (cudaErrorNotPermitted, 800: PeerMappingOverride=1 missing);
 * MARROW_EBUSY when the range only partly overlaps an earlier
 * registration; MARROW_EIO for other CUDA errors. The message names the
 * CUDA error (name and number) and the flags.
 */
MARROW_API int marrow_cuda_host_register(void *ptr, size_t len, int io_memory, void **dev_ptr);

/*
 * Drops one reference taken by marrow_cuda_host_register(ptr, ...) (ptr as
 * passed there); the last one unregisters the range. MARROW_ENOENT when
 * ptr was not registered through this API.
 */
MARROW_API int marrow_cuda_host_unregister(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_CUDA_MAP_H */
