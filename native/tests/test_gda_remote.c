/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda with a REMOTE destination (MARROW_GDA_EP_REMOTE_DST: two hosts),
 * on the CPU executor and the software NIC: the initiator leaves the
 * destination alone (no per-iteration check), the destination's owner
 * checks the final bytes, and the round trip's peer role runs alone
 * (marrow_gda_cpu_serve), here on a second thread standing in for the
 * other host. Also the argument rules of both entry points, and that a
 * peer whose initiator stops early (or never starts) ends in the bounded
 * timeout, not a hang.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include "gda_test_rig.h"

static const struct rig_opts OPTS = {8, 10, 64, 0};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int has(const char *part)
{
	return strstr(marrow_last_error(), part) != NULL;
}

/* Issue and put+completion need nothing from the destination's side: the
 * initiator reports no payload errors (it does not look), the owner of the
 * destination finds the last iteration's bytes there. */
static void issue_and_putc_leave_the_destination_to_its_owner(void)
{
	for (uint32_t exp = MARROW_GDA_EXP_ISSUE; exp <= MARROW_GDA_EXP_PUT_COMPLETION; exp++) {
		for (uint32_t pay = MARROW_GDA_PAYLOAD_INLINE; pay <= MARROW_GDA_PAYLOAD_POINTER; pay++) {
			struct rig r;
			struct marrow_gda_result res = {.size = sizeof(res)};
			struct marrow_gda_config cfg = rig_config(exp, GDA_ORD_FENCE_SYS, pay, 28, 50, 5);
			uint64_t samples[50];

			rig_open(&r, &OPTS);
			r.a.ep.flags |= MARROW_GDA_EP_REMOTE_DST;
			int rc = marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res);
			CHECK(rc == 0, "exp %u payload %u: %s", exp, pay, marrow_last_error());
			CHECK(res.posts == 55 && res.cqes == 55 && res.iters_done == 55, "posts %llu cqes %llu",
			      (unsigned long long)res.posts, (unsigned long long)res.cqes);
			CHECK(res.payload_errors == 0, "no local check, no errors");
			CHECK(rig_holds_iteration(r.b.inbox, 28, 54), "exp %u payload %u: the owner finds the last "
			      "iteration's bytes", exp, pay);
			rig_close(&r);
		}
	}
}

struct serve_arg {
	struct marrow_gda_config cfg;
	const struct marrow_gda_endpoint *ep;
	struct marrow_gda_result res;
	int rc;
	char msg[512];
};

static void *serve_thread(void *p)
{
	struct serve_arg *s = p;

	s->res.size = sizeof(s->res);
	s->rc = marrow_gda_cpu_serve(&s->cfg, s->ep, &s->res);
	snprintf(s->msg, sizeof(s->msg), "%s", s->rc ? marrow_last_error() : "");
	return NULL;
}

/* The two-host round trip in one process: A is the initiator with a remote
 * destination and no local peer, B serves on its own thread. */
static void round_trip_with_the_peer_role_alone(uint32_t ord, uint32_t pay)
{
	struct rig r;
	struct marrow_gda_result res = {.size = sizeof(res)};
	struct marrow_gda_config cfg = rig_config(MARROW_GDA_EXP_ROUND_TRIP, ord, pay, 8, 200, 20);
	struct serve_arg s;
	uint64_t samples[200];
	pthread_t t;

	rig_open(&r, &OPTS);
	r.a.ep.flags |= MARROW_GDA_EP_REMOTE_DST;
	r.b.ep.flags |= MARROW_GDA_EP_REMOTE_DST;
	memset(&s, 0, sizeof(s));
	s.cfg = cfg; /* the iteration count travels to the responder before the run */
	s.ep = &r.b.ep;
	REQUIRE_OK(pthread_create(&t, NULL, serve_thread, &s));
	int rc = marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res);
	pthread_join(t, NULL);
	CHECK(rc == 0, "ord %u pay %u initiator: %s", ord, pay, marrow_last_error());
	CHECK(s.rc == 0, "ord %u pay %u peer: %s", ord, pay, s.msg);
	CHECK(res.iters_done == 220 && res.posts == 220 && res.cqes == 220, "initiator did %llu",
	      (unsigned long long)res.iters_done);
	CHECK(res.peer_posts == 0, "no local peer: %llu", (unsigned long long)res.peer_posts);
	CHECK(s.res.peer_posts == 220 && s.res.iters_done == 220 && s.res.cqes == 220, "peer answered %llu",
	      (unsigned long long)s.res.peer_posts);
	CHECK(rig_holds_iteration(r.a.inbox, 8, 219), "the last reply is in A's inbox");
	CHECK(rig_holds_iteration(r.b.inbox, 8, 219), "the last ping is in B's inbox (the responder's check)");
	for (int i = 0; i < 200; i++)
		CHECK(samples[i] > 0, "sample %d", i);
	rig_close(&r);
}

/* A responder whose initiator never pings: bounded, names the ping. */
static void serve_without_an_initiator_times_out(void)
{
	struct rig r;
	struct marrow_gda_result res = {.size = sizeof(res)};
	struct marrow_gda_config cfg = rig_config(MARROW_GDA_EXP_ROUND_TRIP, GDA_ORD_GPU_FENCE,
						  MARROW_GDA_PAYLOAD_INLINE, 8, 10, 0);

	cfg.timeout_ns = 100000000ull;
	rig_open(&r, &OPTS);
	r.b.ep.flags |= MARROW_GDA_EP_REMOTE_DST;
	uint64_t t0 = now_ms();
	int rc = marrow_gda_cpu_serve(&cfg, &r.b.ep, &res);
	uint64_t took = now_ms() - t0;
	CHECK(rc == MARROW_ETIMEDOUT && res.status == MARROW_ETIMEDOUT, "rc %d: %s", rc, marrow_last_error());
	CHECK(res.fail_iter == 0 && res.peer_posts == 0 && res.iters_done == 0, "iter %u", res.fail_iter);
	CHECK(has("ping from the initiator") && has("iteration 0") && has("serving the remote initiator"),
	      "message: %s", marrow_last_error());
	CHECK(took < 3000, "returned after %llu ms", (unsigned long long)took);
	rig_close(&r);
}

/* The initiator stops after 3 of the 10 iterations the responder was told:
 * the responder's next wait expires, it does not hang. */
static void serve_whose_initiator_stops_early_times_out(void)
{
	struct rig r;
	struct marrow_gda_result res = {.size = sizeof(res)};
	struct marrow_gda_config cfg = rig_config(MARROW_GDA_EXP_ROUND_TRIP, GDA_ORD_RELEASE_SYS,
						  MARROW_GDA_PAYLOAD_INLINE, 8, 3, 0);
	struct serve_arg s;
	uint64_t samples[3];
	pthread_t t;

	rig_open(&r, &OPTS);
	r.a.ep.flags |= MARROW_GDA_EP_REMOTE_DST;
	r.b.ep.flags |= MARROW_GDA_EP_REMOTE_DST;
	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	s.cfg.iters = 10;
	s.cfg.timeout_ns = 100000000ull;
	s.ep = &r.b.ep;
	REQUIRE_OK(pthread_create(&t, NULL, serve_thread, &s));
	int rc = marrow_gda_cpu_run(&cfg, &r.a.ep, NULL, samples, &res);
	uint64_t t0 = now_ms();
	pthread_join(t, NULL);
	CHECK(rc == 0, "initiator: %s", marrow_last_error());
	CHECK(s.rc == MARROW_ETIMEDOUT && s.res.fail_iter == 3 && s.res.peer_posts == 3, "peer rc %d iter %u: %s",
	      s.rc, s.res.fail_iter, s.msg);
	CHECK(now_ms() - t0 < 3000, "bounded");
	rig_close(&r);
}

static void argument_rules(void)
{
	struct rig r;
	struct marrow_gda_result res = {.size = sizeof(res)};
	struct marrow_gda_config rtt = rig_config(MARROW_GDA_EXP_ROUND_TRIP, GDA_ORD_GPU_FENCE,
						  MARROW_GDA_PAYLOAD_INLINE, 8, 10, 0);
	struct marrow_gda_config putc = rig_config(MARROW_GDA_EXP_PUT_COMPLETION, GDA_ORD_GPU_FENCE,
						   MARROW_GDA_PAYLOAD_INLINE, 8, 10, 0);
	struct marrow_gda_endpoint e;
	uint64_t samples[10];
	int rc;

	rig_open(&r, &OPTS);
	/* remote destination + a local peer: refused, the peer is elsewhere */
	r.a.ep.flags |= MARROW_GDA_EP_REMOTE_DST;
	rc = marrow_gda_cpu_run(&rtt, &r.a.ep, &r.b.ep, samples, &res);
	CHECK(rc == MARROW_EINVAL && has("pass no peer endpoint"), "rc %d: %s", rc, marrow_last_error());
	CHECK(res.posts == 0, "nothing posted");
	/* ...and it needs its own inbox for the reply */
	e = r.a.ep;
	e.inbox_addr = 0;
	rc = marrow_gda_cpu_run(&rtt, &e, NULL, samples, &res);
	CHECK(rc == MARROW_EINVAL && has("inbox word on the initiator"), "rc %d: %s", rc, marrow_last_error());
	e.inbox_addr = r.a.ep.inbox_addr + 4;
	rc = marrow_gda_cpu_run(&rtt, &e, NULL, samples, &res);
	CHECK(rc == MARROW_EINVAL && has("8-byte aligned"), "rc %d: %s", rc, marrow_last_error());
	/* the advertised length of the remote buffer still bounds the payload */
	e = r.a.ep;
	e.remote_len = 4;
	rc = marrow_gda_cpu_run(&putc, &e, NULL, samples, &res);
	CHECK(rc == MARROW_EINVAL && has("destination of 4 bytes"), "rc %d: %s", rc, marrow_last_error());
	/* rtt with a remote destination wants 8-byte messages too */
	rtt.msg_size = 16;
	rc = marrow_gda_cpu_run(&rtt, &r.a.ep, NULL, samples, &res);
	CHECK(rc == MARROW_EINVAL && has("size must be 8"), "rc %d: %s", rc, marrow_last_error());
	rtt.msg_size = 8;
	/* one host: a local initiator still needs its local peer, and a peer
	 * flagged remote with a local initiator is refused */
	r.a.ep.flags &= ~(uint32_t)MARROW_GDA_EP_REMOTE_DST;
	rc = marrow_gda_cpu_run(&rtt, &r.a.ep, NULL, samples, &res);
	CHECK(rc == MARROW_EINVAL && has("peer endpoint is NULL"), "rc %d: %s", rc, marrow_last_error());
	r.b.ep.flags |= MARROW_GDA_EP_REMOTE_DST;
	rc = marrow_gda_cpu_run(&rtt, &r.a.ep, &r.b.ep, samples, &res);
	CHECK(rc == MARROW_EINVAL && has("only on one host"), "rc %d: %s", rc, marrow_last_error());
	r.b.ep.flags &= ~(uint32_t)MARROW_GDA_EP_REMOTE_DST;
	/* unknown flag bits are still refused */
	e = r.a.ep;
	e.flags = 4;
	rc = marrow_gda_cpu_run(&putc, &e, NULL, samples, &res);
	CHECK(rc == MARROW_EINVAL && has("unknown flags 0x4"), "rc %d: %s", rc, marrow_last_error());

	/* the peer role alone */
	e = r.b.ep;
	e.flags |= MARROW_GDA_EP_REMOTE_DST;
	rc = marrow_gda_cpu_serve(&putc, &e, &res);
	CHECK(rc == MARROW_EINVAL && res.status == MARROW_EINVAL && has("only the round trip has a peer role"),
	      "rc %d: %s", rc, marrow_last_error());
	rtt.msg_size = 16;
	rc = marrow_gda_cpu_serve(&rtt, &e, &res);
	CHECK(rc == MARROW_EINVAL && has("size must be 8"), "rc %d: %s", rc, marrow_last_error());
	rtt.msg_size = 8;
	rtt.iters = 0;
	rc = marrow_gda_cpu_serve(&rtt, &e, &res);
	CHECK(rc == MARROW_EINVAL && has("iters 0 must be 1.."), "rc %d: %s", rc, marrow_last_error());
	rtt.iters = 10;
	rtt.timeout_ns = 0;
	rc = marrow_gda_cpu_serve(&rtt, &e, &res);
	CHECK(rc == MARROW_EINVAL && has("timeout 0 ns must be > 0"), "rc %d: %s", rc, marrow_last_error());
	rtt.timeout_ns = 1000000000ull;
	e.inbox_addr = 0;
	rc = marrow_gda_cpu_serve(&rtt, &e, &res);
	CHECK(rc == MARROW_EINVAL && has("polls its inbox word"), "rc %d: %s", rc, marrow_last_error());
	e.inbox_addr = r.b.ep.inbox_addr;
	e.placement = MARROW_GDA_PLACEMENT_GPU;
	rc = marrow_gda_cpu_serve(&rtt, &e, &res);
	CHECK(rc == MARROW_EINVAL && has("GPU memory") && has("cannot reach"), "rc %d: %s", rc, marrow_last_error());
	e.placement = MARROW_GDA_PLACEMENT_HOST;
	rc = marrow_gda_cpu_serve(&rtt, NULL, &res);
	CHECK(rc == MARROW_EINVAL && has("peer endpoint is NULL"), "rc %d: %s", rc, marrow_last_error());
	rc = marrow_gda_cpu_serve(&rtt, &e, NULL);
	CHECK(rc == MARROW_EINVAL && has("result struct"), "rc %d: %s", rc, marrow_last_error());
	CHECK(rig_counter(&r, "emu_wqe_rdma_write") == 0, "no argument error posted anything");
	rig_close(&r);
}

int main(void)
{
	argument_rules();
	issue_and_putc_leave_the_destination_to_its_owner();
	for (uint32_t ord = 0; ord < GDA_ORD_COUNT; ord++) {
		if (ord == GDA_ORD_NONE)
			continue; /* the unsafe control may legitimately fail; covered elsewhere */
		round_trip_with_the_peer_role_alone(ord, MARROW_GDA_PAYLOAD_INLINE);
	}
	round_trip_with_the_peer_role_alone(GDA_ORD_FENCE_SYS, MARROW_GDA_PAYLOAD_POINTER);
	serve_without_an_initiator_times_out();
	serve_whose_initiator_stops_early_times_out();
	if (g_failures) {
		fprintf(stderr, "%d check(s) failed\n", g_failures);
		return 1;
	}
	printf("test_gda_remote: ok\n");
	return 0;
}
