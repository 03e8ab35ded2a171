/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The proxy's verbs backend when libmarrow_host was compiled without the
 * rdma-core headers (infiniband/verbs.h): CMake builds this file instead of
 * proxy_verbs.c and proxy_verbs_dl.c, so the library still builds and loads,
 * and attaching says why verbs is unavailable, as the other backends do.
 */
#include "proxy_internal.h"

static int absent(char *chosen, uint32_t chosen_len)
{
	if (chosen && chosen_len)
		chosen[0] = '\0';
	return marrow_fail(MARROW_ENODEV, "verbs backend unavailable: libmarrow_host was built without the rdma-core "
			   "headers (infiniband/verbs.h); install libibverbs-dev and rebuild, or use --nic softnic");
}

int px_verbs_attach(struct marrow_proxy *px, const char *device, uint32_t log_sq, char *chosen,
		    uint32_t chosen_len, uint32_t *send_wr, uint32_t *send_wr_granted, int loopback)
{
	(void)px;
	(void)device;
	(void)log_sq;
	(void)send_wr;
	(void)send_wr_granted;
	(void)loopback;
	return absent(chosen, chosen_len);
}

int px_verbs_probe(const char *device, char *chosen, uint32_t chosen_len)
{
	(void)device;
	return absent(chosen, chosen_len);
}

/* Never reached with a verbs backend attached (attach fails first): the caller's check says so. */
int px_verbs_local(struct marrow_proxy *px, uint32_t worker, struct marrow_mlx5_peer_info *out)
{
	(void)px;
	(void)worker;
	(void)out;
	return absent(NULL, 0);
}

int px_verbs_connect(struct marrow_proxy *px, uint32_t worker, const struct marrow_mlx5_peer_info *peer)
{
	(void)px;
	(void)worker;
	(void)peer;
	return absent(NULL, 0);
}

void px_verbs_release(struct marrow_proxy *px)
{
	(void)px; /* px_verbs_attach never attaches anything here */
}
