/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The proxy's verbs backend on the mlx5 model (MARROW_RDMA_CORE=model,
 * docs/design/mlx5-model.md): the real dlopen of "libibverbs", QPs created
 * and connected through ibv_modify_qp, chains posted through verbs.h's
 * inline ibv_post_send and retired through ibv_poll_cq. Two workers, two
 * rings, messages of 8..264 bytes (inline and gathered), each from a unique
 * source to a unique destination: every byte is compared. Then a malformed
 * selector is refused with its value named, and two proxies run the
 * two-host (--peer) connection code against each other. Exits 77 only when the model
 * library was not built (no rdma-core headers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/marrow_common.h"
#include "marrow/marrow_mlx5.h"
#include "marrow/marrow_proxy.h"

#define CHECK(c)								\
	do {									\
		if (!(c)) {							\
			fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #c, \
				marrow_last_error());				\
			exit(1);						\
		}								\
	} while (0)
#define OK(e) CHECK((e) == MARROW_OK)

enum { MSGS = 2000, SLOT = 512, RINGS = 2 };
static const uint64_t TIMEOUT = 10000000000ull;

static uint32_t size_of(uint32_t k) { return 8 + (k * 8) % 264; }

#ifdef MARROW_MLX5MODEL_SO
/* The two-host proxy (--peer) code path in one process: two proxies, each
 * with its own QP and buffer on the model device, exchange their
 * descriptions as the TCP exchange would and connect to each other; A's
 * WRITEs land in B's buffer. A malformed description is refused, named. */
static void peers(void)
{
	struct marrow_proxy_config cfg = { .size = sizeof(cfg), .workers = 1, .rings = 1, .log_slots = 6,
					   .batch = 8, .handoff = MARROW_PROXY_TUNED, .check_order = 1 };
	enum { N = 500, LEN = 8 * 4096 }; /* aligned_alloc wants a multiple of the alignment */
	uint8_t *a = aligned_alloc(4096, LEN), *b = aligned_alloc(4096, LEN);
	struct marrow_proxy_memory ma = { .size = sizeof(ma), .base = (uint64_t)(uintptr_t)a, .len = LEN };
	struct marrow_proxy_memory mb = { .size = sizeof(mb), .base = (uint64_t)(uintptr_t)b, .len = LEN };
	struct marrow_mlx5_peer_info ia = { .size = sizeof(ia) }, ib = { .size = sizeof(ib) }, bad;
	struct marrow_proxy *pa, *pb;
	char name[64];

	CHECK(a != NULL && b != NULL);
	for (uint32_t i = 0; i < LEN; i++)
		a[i] = (uint8_t)(i * 7 + 3);
	memset(b, 0, LEN);
	cfg.cpus[0] = -1;
	cfg.cpus[1] = -1;
	OK(marrow_proxy_create(&cfg, &ma, &pa));
	OK(marrow_proxy_create(&cfg, &mb, &pb));
	OK(marrow_proxy_attach_verbs_peer(pa, NULL, 10, name, sizeof(name), NULL, NULL));
	OK(marrow_proxy_attach_verbs_peer(pb, NULL, 10, name, sizeof(name), NULL, NULL));
	OK(marrow_proxy_verbs_local(pa, 0, &ia));
	OK(marrow_proxy_verbs_local(pb, 0, &ib));
	CHECK(ia.qpn != ib.qpn && ib.addr == (uint64_t)(uintptr_t)b && ib.len == LEN);
	bad = ib;
	bad.qpn = 1;
	CHECK(marrow_proxy_verbs_connect(pa, 0, &bad) == MARROW_EINVAL);
	CHECK(strstr(marrow_last_error(), "qpn 0x1") != NULL);
	bad = ib;
	bad.link_layer = 2;
	CHECK(marrow_proxy_verbs_connect(pa, 0, &bad) == MARROW_EINVAL);
	CHECK(strstr(marrow_last_error(), "link layer") != NULL);
	OK(marrow_proxy_verbs_connect(pa, 0, &ib));
	OK(marrow_proxy_verbs_connect(pb, 0, &ia));
	OK(marrow_proxy_start(pa));
	for (uint32_t k = 0; k < N; k++)
		OK(marrow_proxy_enqueue(pa, 0, k * 64, k * 64, 8 + k % 57, k, TIMEOUT, NULL));
	OK(marrow_proxy_wait(pa, 0, N, TIMEOUT));
	OK(marrow_proxy_stop(pa));
	for (uint32_t k = 0; k < N; k++)
		CHECK(memcmp(b + k * 64, a + k * 64, 8 + k % 57) == 0);
	OK(marrow_proxy_destroy(pa));
	OK(marrow_proxy_destroy(pb));
	free(a);
	free(b);
	printf("  two proxies connected as peers (the --peer path): %d WRITEs into the peer's buffer\n", N);
}
#endif

int main(void)
{
#ifndef MARROW_MLX5MODEL_SO
	printf("test_mlx5model_proxy: SKIP (libmarrow_mlx5model.so was not built: no rdma-core headers)\n");
	return 77;
#else
	struct marrow_proxy_config cfg = { .size = sizeof(cfg), .workers = 2, .rings = RINGS, .log_slots = 6,
					   .batch = 8, .handoff = MARROW_PROXY_TUNED, .check_order = 1 };
	uint64_t len = 2ull * RINGS * MSGS * SLOT;
	uint8_t *buf = aligned_alloc(4096, len);
	struct marrow_proxy_memory mem = { .size = sizeof(mem), .base = (uint64_t)(uintptr_t)buf, .len = len };
	struct marrow_proxy *px;
	char name[64] = "";
	uint64_t half = len / 2;

	CHECK(buf != NULL);
	setenv("MARROW_MLX5MODEL_LIB", MARROW_MLX5MODEL_SO, 1);
	/* A selector that is neither value: refused, naming it. */
	setenv("MARROW_RDMA_CORE", "modle", 1);
	cfg.cpus[0] = -1;
	cfg.cpus[1] = -1;
	OK(marrow_proxy_create(&cfg, &mem, &px));
	CHECK(marrow_proxy_attach_verbs(px, NULL, name, sizeof(name)) == MARROW_ENODEV);
	CHECK(strstr(marrow_last_error(), "MARROW_RDMA_CORE=modle") != NULL);
	OK(marrow_proxy_destroy(px));

	setenv("MARROW_RDMA_CORE", "model", 1);
	for (uint64_t i = 0; i < half; i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 13);
	memset(buf + half, 0, half);
	OK(marrow_proxy_create(&cfg, &mem, &px));
	OK(marrow_proxy_attach_verbs(px, NULL, name, sizeof(name)));
	CHECK(strcmp(name, "mlx5_model0") == 0);
	OK(marrow_proxy_start(px));
	for (uint32_t k = 0; k < MSGS; k++)
		for (uint32_t q = 0; q < RINGS; q++) {
			uint32_t off = (q * MSGS + k) * SLOT;

			OK(marrow_proxy_enqueue(px, q, off, (uint32_t)(half + off), size_of(k), k, TIMEOUT, NULL));
		}
	for (uint32_t q = 0; q < RINGS; q++)
		OK(marrow_proxy_wait(px, q, MSGS, TIMEOUT));
	OK(marrow_proxy_stop(px));
	OK(marrow_proxy_destroy(px));
	for (uint32_t q = 0; q < RINGS; q++)
		for (uint32_t k = 0; k < MSGS; k++) {
			uint32_t off = (q * MSGS + k) * SLOT;

			CHECK(memcmp(buf + half + off, buf + off, size_of(k)) == 0);
			for (uint32_t j = size_of(k); j < SLOT; j++)
				CHECK(buf[half + off + j] == 0); /* nothing beyond the message */
		}
	free(buf);
	peers();
	printf("test_mlx5model_proxy: OK (%d WRITEs on %s, every byte compared)\n", RINGS * MSGS, name);
	return 0;
#endif
}
