/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The proxy's verbs backend when it cannot work, in both builds of
 * libmarrow_host: with the rdma-core headers (libibverbs made unloadable
 * through MARROW_IBVERBS_LIB) and without them (proxy_verbs_absent.c, built
 * by scripts/test-no-verbs-headers.sh). Either way attaching answers ENODEV
 * with a reason that starts like every backend's ("verbs backend
 * unavailable: ...") and names the fix, and the proxy stays unattached and
 * destroyable.
 */
#include "test_proxy_rig.h"

int main(void)
{
	struct marrow_proxy_config cfg = { .size = sizeof(cfg), .workers = 1, .rings = 1, .log_slots = 2,
					   .batch = 4 };
	static uint8_t buf[65536] __attribute__((aligned(4096)));
	struct marrow_proxy_memory mem = { .size = sizeof(mem), .base = (uint64_t)(uintptr_t)buf,
					   .len = sizeof(buf) };
	struct marrow_proxy *px;
	char name[64] = "unchanged";
	const char *msg;

	cfg.cpus[0] = -1;
	setenv("MARROW_IBVERBS_LIB", "/nonexistent/libibverbs.so.1", 1);
	OK(marrow_proxy_create(&cfg, &mem, &px));
	CHECK(marrow_proxy_attach_verbs(px, NULL, name, sizeof(name)) == MARROW_ENODEV);
	msg = marrow_last_error();
	printf("attach_verbs -> ENODEV: %s\n", msg);
	CHECK(strncmp(msg, "verbs backend unavailable: ", 27) == 0);
	CHECK(strstr(msg, "--nic softnic") != NULL);
#if MARROW_TEST_HAVE_VERBS_H
	CHECK(strstr(msg, "cannot load /nonexistent/libibverbs.so.1") != NULL);
#else
	CHECK(strstr(msg, "built without the rdma-core headers (infiniband/verbs.h)") != NULL);
	CHECK(strstr(msg, "libibverbs-dev") != NULL);
	CHECK(name[0] == '\0');
#endif
	CHECK(marrow_proxy_start(px) == MARROW_EINVAL);
	CHECK(strstr(marrow_last_error(), "has no QP") != NULL);
	OK(marrow_proxy_destroy(px));
	printf("test_proxy_verbs_unavailable: OK (%s the rdma-core headers)\n",
	       MARROW_TEST_HAVE_VERBS_H ? "built with" : "built without");
	return 0;
}
