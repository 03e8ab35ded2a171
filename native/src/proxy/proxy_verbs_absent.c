/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The proxy's verbs backend when libmarrow_host was compiled without the
 * rdma-core headers (infiniband/verbs.h): CMake builds this file instead of
 * proxy_verbs.c and proxy_verbs_dl.c, so the library still builds and loads,
 * and attaching says why verbs is unavailable, as the other backends do.
 */
#include "proxy_internal.h"

int px_verbs_attach(struct marrow_proxy *px, const char *device, uint32_t log_sq, char *chosen,
		    uint32_t chosen_len, uint32_t *send_wr, uint32_t *send_wr_granted)
{
	(void)px;
	(void)device;
	(void)log_sq;
	(void)send_wr;
	(void)send_wr_granted;
	if (chosen && chosen_len)
		chosen[0] = '\0';
	return marrow_fail(MARROW_ENODEV, "verbs backend unavailable: libmarrow_host was built without the rdma-core "
			   "headers (infiniband/verbs.h); install libibverbs-dev and rebuild, or use --nic softnic");
}

void px_verbs_release(struct marrow_proxy *px)
{
	(void)px; /* px_verbs_attach never attaches anything here */
}
