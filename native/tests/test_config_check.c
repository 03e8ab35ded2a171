/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The one check of the mini-proxy's and mini-gda's limits
 * (marrow_proxy_config_check, marrow_gda_config_check): every limit refused
 * with a message naming the value as typed (negative values stay negative),
 * the defaults accepted, and marrow_proxy_create refusing what the check
 * refuses. Java shows these messages as usage errors.
 */
#include "test_proxy_rig.h"
#include "marrow/marrow_gda.h"

static int has(const char *s)
{
	return strstr(marrow_last_error(), s) != NULL;
}

int main(void)
{
	struct marrow_proxy_config c = { .size = sizeof(c), .workers = 1, .rings = 1, .log_slots = 4, .batch = 4 };
	struct marrow_gda_config g = { .size = sizeof(g), .experiment = MARROW_GDA_EXP_PUT_COMPLETION,
				       .ordering = MARROW_GDA_ORD_RELEASE_SYS, .payload = MARROW_GDA_PAYLOAD_INLINE,
				       .msg_size = 8, .iters = 10, .warmup = 0, .timeout_ns = 1000000 };
	static uint8_t buf[65536] __attribute__((aligned(4096)));
	struct marrow_proxy_memory mem = { .size = sizeof(mem), .base = (uint64_t)(uintptr_t)buf,
					   .len = sizeof(buf) };
	struct marrow_proxy *px = NULL;

	OK(marrow_proxy_config_check(&c));
	c.workers = (uint32_t)-3;
	CHECK(marrow_proxy_config_check(&c) == MARROW_EINVAL && has("workers -3 must be 1..64"));
	c.workers = 4;
	CHECK(marrow_proxy_config_check(&c) == MARROW_EINVAL && has("rings 1 must be >= workers (4)"));
	CHECK(marrow_proxy_create(&c, &mem, &px) == MARROW_EINVAL && px == NULL && has("rings 1"));
	c.workers = 1;
	c.log_slots = 21;
	CHECK(marrow_proxy_config_check(&c) == MARROW_EINVAL && has("log-slots 21 must be 1..20"));
	c.log_slots = 4;
	c.batch = 0;
	CHECK(marrow_proxy_config_check(&c) == MARROW_EINVAL && has("batch 0 must be 1..256"));
	c.batch = 4;
	c.size = 4;
	CHECK(marrow_proxy_config_check(&c) == MARROW_EINVAL && has("struct size 4"));
	CHECK(marrow_proxy_config_check(NULL) == MARROW_EINVAL);

	OK(marrow_gda_config_check(&g));
	g.msg_size = 0;
	CHECK(marrow_gda_config_check(&g) == MARROW_EINVAL && has("size 0 must be 1.."));
	g.msg_size = 16;
	g.experiment = MARROW_GDA_EXP_ROUND_TRIP;
	CHECK(marrow_gda_config_check(&g) == MARROW_EINVAL && has("size must be 8, not 16"));
	g.msg_size = 8;
	g.iters = (uint64_t)-5;
	CHECK(marrow_gda_config_check(&g) == MARROW_EINVAL && has("iters -5 must be 1..2^32-1"));
	g.iters = 10;
	g.warmup = (uint64_t)-1;
	CHECK(marrow_gda_config_check(&g) == MARROW_EINVAL && has("warmup -1 must be 0.."));
	g.warmup = 0;
	g.timeout_ns = (uint64_t)-1000000;
	CHECK(marrow_gda_config_check(&g) == MARROW_EINVAL && has("timeout -1000000 ns must be > 0"));
	g.timeout_ns = 1000000;
	g.ordering = 7;
	CHECK(marrow_gda_config_check(&g) == MARROW_EINVAL && has("unknown ordering 7 (0..6)"));
	CHECK(marrow_gda_config_check(NULL) == MARROW_EINVAL);

	{
		struct marrow_proxy_latency_params l = { .size = sizeof(l), .iters = 10, .warmup = 0, .msg_size = 8,
							 .timeout_ns = 1000000 };
		struct marrow_proxy_rate_params r = { .size = sizeof(r), .producers = 1, .msg_size = 8, .messages = 10,
						      .warmup = 0, .timeout_ns = 1000000 };

		OK(marrow_proxy_latency_check(&l, 0));
		OK(marrow_proxy_latency_check(&l, 1));
		l.msg_size = 16;
		OK(marrow_proxy_latency_check(&l, 0));
		CHECK(marrow_proxy_latency_check(&l, 1) == MARROW_EINVAL && has("GPU producers send 8-byte"));
		l.msg_size = 65;
		CHECK(marrow_proxy_latency_check(&l, 0) == MARROW_EINVAL && has("size 65 must be 8..64"));
		l.msg_size = 8;
		l.iters = 0;
		CHECK(marrow_proxy_latency_check(&l, 0) == MARROW_EINVAL && has("iters 0 must be >= 1"));
		l.iters = 10;
		l.warmup = (uint32_t)-2;
		CHECK(marrow_proxy_latency_check(&l, 0) == MARROW_EINVAL && has("warmup -2 must be >= 0"));
		OK(marrow_proxy_rate_check(&r));
		r.msg_size = 12;
		CHECK(marrow_proxy_rate_check(&r) == MARROW_EINVAL && has("size 12 must be a multiple of 8"));
		r.msg_size = 8;
		r.messages = 0;
		CHECK(marrow_proxy_rate_check(&r) == MARROW_EINVAL && has("messages 0 must be >= 1"));
		r.messages = 10;
		r.timeout_ns = 0;
		CHECK(marrow_proxy_rate_check(&r) == MARROW_EINVAL && has("timeout 0 ns must be > 0"));
	}
	printf("config checks: ok\n");
	return 0;
}
