/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * GDRCopy, dlopened (internal to libmarrow_cuda.so): maps GPU memory into
 * the CPU's address space, so a CPU thread stores into a counter that a
 * GPU thread polls in its own memory. Plain C without CUDA headers: the
 * caller allocates and frees the GPU memory.
 */
#ifndef MARROW_GDRCOPY_H
#define MARROW_GDRCOPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The part of libgdrapi's ABI used here (gdrapi.h, 2.x). */
typedef struct gdr *gdr_t;
typedef struct { unsigned long h; } gdr_mh_t;

/* The GPU page GDRCopy pins: a pinned range starts on one. */
enum { MARROW_GDR_GPU_PAGE = 65536 };

struct marrow_gdr {
	void *lib;
	gdr_t (*open)(void);
	int (*close)(gdr_t);
	int (*pin)(gdr_t, unsigned long, size_t, uint64_t, uint32_t, gdr_mh_t *);
	int (*unpin)(gdr_t, gdr_mh_t);
	int (*map)(gdr_t, gdr_mh_t, void **, size_t);
	int (*unmap)(gdr_t, gdr_mh_t, void *, size_t);
	gdr_t gdr;
	gdr_mh_t mh;
	void *host;          /* CPU mapping of the pinned range; NULL when none */
	size_t bytes;
};

/* dlopens libgdrapi and opens the gdrdrv device. 0, or -1 with the reason
 * ("GDRCopy not used: ...") in note; marrow_gdr_close undoes either way. */
int marrow_gdr_open(struct marrow_gdr *g, char *note, size_t nlen);

/* Pins and maps [gpu_addr, +bytes) (gpu_addr on a MARROW_GDR_GPU_PAGE
 * boundary, bytes a multiple of it); *host receives the CPU mapping.
 * 0, or -1 with the reason in note and nothing left pinned. */
int marrow_gdr_pin_map(struct marrow_gdr *g, uintptr_t gpu_addr, size_t bytes, void **host, char *note,
		       size_t nlen);

/* Unmaps and unpins (before the caller frees the GPU memory). */
void marrow_gdr_unmap(struct marrow_gdr *g);

/* marrow_gdr_unmap, then closes the device and the library. */
void marrow_gdr_close(struct marrow_gdr *g);

#ifdef __cplusplus
}
#endif

#endif
