/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The proxy's verbs backend when libmarrow_host was compiled without the
 * rdma-core headers (infiniband/verbs.h): CMake builds this file instead of
 * proxy_verbs.c and proxy_verbs_dl.c, so the library still builds and loads,
 * and attaching says why verbs is unavailable, as the other backends do.
 */
#include "proxy_internal.h"

int px_verbs_attach(struct marrow_proxy *px, const char *device, char *chosen, uint32_t chosen_len)
{
	(void)px;
	(void)device;
	if (chosen && chosen_len)
		chosen[0] = '\0';
	return marrow_fail(MARROW_ENODEV, "verbs backend unavailable: libmarrow_host was built without the rdma-core "
			   "headers (infiniband/verbs.h); install libibverbs-dev and rebuild, or use --nic softnic");
}

void px_verbs_release(struct marrow_proxy *px)
{
	(void)px; /* px_verbs_attach never attaches anything here */
}
