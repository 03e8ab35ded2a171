/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * GDRCopy loader (gdrcopy.h).
 */
#include <dlfcn.h>
#include <stdio.h>

#include "cuda/gdrcopy.h"

int marrow_gdr_open(struct marrow_gdr *g, char *note, size_t nlen)
{
	g->lib = dlopen("libgdrapi.so.2", RTLD_NOW | RTLD_LOCAL);
	if (g->lib == NULL)
		g->lib = dlopen("libgdrapi.so", RTLD_NOW | RTLD_LOCAL);
	if (g->lib == NULL) {
		snprintf(note, nlen, "GDRCopy not used: libgdrapi cannot be dlopened; tuned completion counter in mapped pinned host memory");
		return -1;
	}
	*(void **)&g->open = dlsym(g->lib, "gdr_open");
	*(void **)&g->close = dlsym(g->lib, "gdr_close");
	*(void **)&g->pin = dlsym(g->lib, "gdr_pin_buffer");
	*(void **)&g->unpin = dlsym(g->lib, "gdr_unpin_buffer");
	*(void **)&g->map = dlsym(g->lib, "gdr_map");
	*(void **)&g->unmap = dlsym(g->lib, "gdr_unmap");
	if (!g->open || !g->close || !g->pin || !g->unpin || !g->map || !g->unmap) {
		snprintf(note, nlen, "GDRCopy not used: libgdrapi lacks gdr_* symbols");
		return -1;
	}
	g->gdr = g->open();
	if (g->gdr == NULL) {
		snprintf(note, nlen, "GDRCopy not used: gdr_open failed (gdrdrv kernel module not loaded?)");
		return -1;
	}
	return 0;
}

int marrow_gdr_pin_map(struct marrow_gdr *g, uintptr_t gpu_addr, size_t bytes, void **host, char *note,
		       size_t nlen)
{
	void *map = NULL;

	if (g->pin(g->gdr, gpu_addr, bytes, 0, 0, &g->mh) != 0) {
		snprintf(note, nlen, "GDRCopy not used: gdr_pin_buffer failed");
		return -1;
	}
	if (g->map(g->gdr, g->mh, &map, bytes) != 0) {
		g->unpin(g->gdr, g->mh);
		snprintf(note, nlen, "GDRCopy not used: gdr_map failed");
		return -1;
	}
	g->host = map;
	g->bytes = bytes;
	*host = map;
	return 0;
}

void marrow_gdr_unmap(struct marrow_gdr *g)
{
	if (g->host) {
		g->unmap(g->gdr, g->mh, g->host, g->bytes);
		g->unpin(g->gdr, g->mh);
		g->host = NULL;
	}
}

void marrow_gdr_close(struct marrow_gdr *g)
{
	marrow_gdr_unmap(g);
	if (g->gdr)
		g->close(g->gdr);
	g->gdr = NULL;
	if (g->lib)
		dlclose(g->lib);
	g->lib = NULL;
}
