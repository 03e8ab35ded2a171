/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * What a failed host registration means (internal to libmarrow_cuda.so).
 * Plain C with no CUDA header, so a test checks the wording without a GPU.
 */
#ifndef MARROW_UAR_MAP_TEXT_H
#define MARROW_UAR_MAP_TEXT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaError_t values this file reasons about (driver_types.h). */
enum {
	UAR_MAP_CUDA_INVALID_VALUE = 1,
	UAR_MAP_CUDA_MEMORY_ALLOCATION = 2,
	UAR_MAP_CUDA_INSUFFICIENT_DRIVER = 35,
	UAR_MAP_CUDA_NO_DEVICE = 100,
	UAR_MAP_CUDA_NOT_PERMITTED = 800,
	UAR_MAP_CUDA_NOT_SUPPORTED = 801,
};

/*
 * Records, as this thread's last error, why cudaHostRegister(ptr, len,
 * flags) failed with cuda_error (err_name/err_text from the runtime), and
 * returns the MARROW_E* status for it. For IO memory the message names
 * PeerMappingOverride=1 and how to set it.
 */
int uar_map_fail(int cuda_error, const char *err_name, const char *err_text,
		 int io_memory, const void *ptr, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_UAR_MAP_TEXT_H */
