/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Messages of marrow_cuda_host_register failures (see uar_map_text.h).
 */
#include "common/marrow_common.h"
#include "uar_map_text.h"

/* What an IO-memory (UAR) mapping needs: the regkey for an unprivileged
 * process (a privileged one may map without it), and working GPU<->NIC
 * PCIe peer-to-peer in any case (the GPU's doorbell store crosses it). */
#define PMO_FIX "an unprivileged process needs the NVIDIA driver's PeerMappingOverride=1 " \
	"('options nvidia NVreg_RegistryDwords=\"PeerMappingOverride=1;\"' in " \
	"/etc/modprobe.d/nvidia.conf, then reload the driver); a privileged process (root) " \
	"maps without it. Either way GPU<->NIC peer-to-peer must work (`nvidia-smi topo -m`)"

int uar_map_fail(int cuda_error, const char *err_name, const char *err_text,
		 int io_memory, const void *ptr, size_t len)
{
	const char *flags = io_memory ? "Portable|Mapped|IoMemory" : "Portable|Mapped";
	const char *name = err_name ? err_name : "cudaError";
	const char *text = err_text ? err_text : "";

	switch (cuda_error) {
	case UAR_MAP_CUDA_NO_DEVICE:
	case UAR_MAP_CUDA_INSUFFICIENT_DRIVER:
		return marrow_fail(MARROW_ENODEV, "cudaHostRegister(%p, %zu, %s) failed: %s (%d: %s): "
				   "no usable GPU or driver", ptr, len, flags, name, cuda_error, text);
	case UAR_MAP_CUDA_NOT_PERMITTED:
		if (io_memory)
			return marrow_fail(MARROW_EPERM, "cudaHostRegister(%p, %zu, %s) failed: %s (%d: %s): "
					   "the GPU may not map the NIC doorbell page (UAR): " PMO_FIX,
					   ptr, len, flags, name, cuda_error, text);
		return marrow_fail(MARROW_EPERM, "cudaHostRegister(%p, %zu, %s) failed: %s (%d: %s)",
				   ptr, len, flags, name, cuda_error, text);
	case UAR_MAP_CUDA_MEMORY_ALLOCATION:
		return marrow_fail(MARROW_ENOMEM, "cudaHostRegister(%p, %zu, %s) failed: %s (%d: %s): "
				   "pinning limit reached? check `ulimit -l`", ptr, len, flags, name,
				   cuda_error, text);
	default:
		/* Drivers differ in how they refuse MMIO; the regkey is the
		 * usual cause for any refusal of an IO-memory range. */
		if (io_memory)
			return marrow_fail(cuda_error == UAR_MAP_CUDA_NOT_SUPPORTED ? MARROW_ENOSYS : MARROW_EIO,
					   "cudaHostRegister(%p, %zu, %s) failed: %s (%d: %s); if this GPU can "
					   "map IO memory at all, " PMO_FIX, ptr, len, flags, name,
					   cuda_error, text);
		return marrow_fail(cuda_error == UAR_MAP_CUDA_INVALID_VALUE ? MARROW_EINVAL : MARROW_EIO,
				   "cudaHostRegister(%p, %zu, %s) failed: %s (%d: %s)", ptr, len, flags,
				   name, cuda_error, text);
	}
}
