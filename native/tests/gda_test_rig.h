/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Test rig for the mini-gda tests: a software NIC with two RC QPs (A and B,
 * connected to each other), their CQs, and per QP a source buffer and an
 * inbox buffer, all registered; plus the marrow_gda_endpoint of each side
 * (A writes into B's inbox, B into A's). Tiny assertion helpers.
 */
#ifndef MARROW_GDA_TEST_RIG_H
#define MARROW_GDA_TEST_RIG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/marrow_common.h"   /* marrow_last_error(): the static archives' one message */
#include "marrow/gda_post.h"
#include "marrow/marrow_gda.h"
#include "marrow/marrow_softnic.h"

static int g_failures;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                           \
			fprintf(stderr, "\n");                                  \
			g_failures++;                                           \
		}                                                               \
	} while (0)

#define REQUIRE_OK(expr)                                                        \
	do {                                                                    \
		int rc_ = (expr);                                               \
		if (rc_ != 0) {                                                 \
			fprintf(stderr, "FATAL %s:%d: %s = %d (%s): %s\n", __FILE__, __LINE__, \
				#expr, rc_, marrow_status_name(rc_), marrow_last_error()); \
			exit(1);                                                \
		}                                                               \
	} while (0)

enum { RIG_BUF = 4096 };

struct rig_side {
	struct marrow_emu_cq *cq;
	struct marrow_emu_qp *qp;
	struct marrow_cq_view cqv;
	struct marrow_qp_view qpv;
	uint8_t *src, *inbox;
	struct marrow_emu_mr *src_mr, *inbox_mr;
	uint32_t src_lkey, inbox_rkey, k;
	struct marrow_gda_endpoint ep;
};

struct rig {
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct rig_side a, b;
};

struct rig_opts {
	uint32_t log_sq, log_cq, max_inline, cq_flags;
};

static void rig_side_open(struct rig *r, struct rig_side *s, const struct rig_opts *o)
{
	struct marrow_emu_cq_attr ca = {sizeof(ca), 0, o->log_cq, o->cq_flags};
	struct marrow_emu_qp_attr qa;

	memset(s, 0, sizeof(*s));
	s->cqv.size = sizeof(s->cqv);
	REQUIRE_OK(marrow_emu_cq_create(r->dev, &ca, &s->cq, &s->cqv));
	memset(&qa, 0, sizeof(qa));
	qa.size = sizeof(qa);
	qa.send_cq = s->cq;
	qa.log_sq_wqebb_cnt = o->log_sq;
	qa.max_rq_sge = 1;
	qa.max_inline_data = o->max_inline;
	qa.access = MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE;
	s->qpv.size = sizeof(s->qpv);
	REQUIRE_OK(marrow_emu_qp_create(r->pd, &qa, &s->qp, &s->qpv));
	s->src = aligned_alloc(4096, RIG_BUF);
	s->inbox = aligned_alloc(4096, RIG_BUF);
	memset(s->src, 0, RIG_BUF);
	memset(s->inbox, 0, RIG_BUF);
	REQUIRE_OK(marrow_emu_mr_reg(r->pd, s->src, RIG_BUF, MARROW_ACCESS_LOCAL_WRITE, &s->src_mr,
				     &s->src_lkey, &s->k));
	REQUIRE_OK(marrow_emu_mr_reg(r->pd, s->inbox, RIG_BUF,
				     MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &s->inbox_mr,
				     &s->k, &s->inbox_rkey));
}

/* Endpoint of `me` writing into `to`'s inbox. */
static void rig_endpoint(struct rig_side *me, struct rig_side *to)
{
	struct marrow_gda_endpoint *e = &me->ep;

	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	e->placement = MARROW_GDA_PLACEMENT_HOST;
	e->qp = &me->qpv;
	e->cq = &me->cqv;
	e->local_addr = (uint64_t)(uintptr_t)me->src;
	e->local_len = RIG_BUF;
	e->lkey = me->src_lkey;
	e->inbox_addr = (uint64_t)(uintptr_t)me->inbox;
	e->remote_addr = (uint64_t)(uintptr_t)to->inbox;
	e->remote_len = RIG_BUF;
	e->rkey = to->inbox_rkey;
}

static void rig_open(struct rig *r, const struct rig_opts *o)
{
	struct marrow_emu_device_attr da;

	memset(r, 0, sizeof(*r));
	memset(&da, 0, sizeof(da));
	da.size = sizeof(da);
	da.poll_mode = MARROW_EMU_POLL_IDLE;
	da.engine_threads = 1;
	da.idle_sleep_max_ns = 20000;
	da.engine_cpu = -1;
	da.quiet = 1;
	REQUIRE_OK(marrow_emu_device_open(&da, &r->dev));
	REQUIRE_OK(marrow_emu_pd_alloc(r->dev, &r->pd));
	rig_side_open(r, &r->a, o);
	rig_side_open(r, &r->b, o);
	REQUIRE_OK(marrow_emu_qp_modify(r->a.qp, MARROW_QPS_INIT, 0));
	REQUIRE_OK(marrow_emu_qp_modify(r->a.qp, MARROW_QPS_RTR, r->b.qpv.qpn));
	REQUIRE_OK(marrow_emu_qp_modify(r->a.qp, MARROW_QPS_RTS, 0));
	REQUIRE_OK(marrow_emu_qp_modify(r->b.qp, MARROW_QPS_INIT, 0));
	REQUIRE_OK(marrow_emu_qp_modify(r->b.qp, MARROW_QPS_RTR, r->a.qpv.qpn));
	REQUIRE_OK(marrow_emu_qp_modify(r->b.qp, MARROW_QPS_RTS, 0));
	rig_endpoint(&r->a, &r->b);
	rig_endpoint(&r->b, &r->a);
}

static void rig_side_close(struct rig_side *s)
{
	REQUIRE_OK(marrow_emu_qp_destroy(s->qp));
	REQUIRE_OK(marrow_emu_cq_destroy(s->cq));
	REQUIRE_OK(marrow_emu_mr_dereg(s->src_mr));
	REQUIRE_OK(marrow_emu_mr_dereg(s->inbox_mr));
	free(s->src);
	free(s->inbox);
}

static void rig_close(struct rig *r)
{
	rig_side_close(&r->a);
	rig_side_close(&r->b);
	REQUIRE_OK(marrow_emu_pd_free(r->pd));
	REQUIRE_OK(marrow_emu_device_close(r->dev));
}

static uint64_t rig_counter(struct rig *r, const char *name)
{
	uint64_t c[MARROW_EMU_CTR_COUNT];
	int n = marrow_emu_counter_count();

	REQUIRE_OK(marrow_emu_counters_read(r->dev, c, MARROW_EMU_CTR_COUNT));
	for (int i = 0; i < n && i < MARROW_EMU_CTR_COUNT; i++)
		if (strcmp(marrow_emu_counter_name(i), name) == 0)
			return c[i];
	fprintf(stderr, "FATAL: no counter %s\n", name);
	exit(1);
}

/* Bytes of iteration it, as gda_post.h generates them. */
static int rig_holds_iteration(const uint8_t *dst, uint32_t len, uint64_t it)
{
	for (uint32_t j = 0; j < len; j++)
		if (dst[j] != (uint8_t)(gda_pattern_word(it, j / 4u) >> (8u * (j % 4u))))
			return 0;
	return 1;
}

static struct marrow_gda_config rig_config(uint32_t exp, uint32_t ord, uint32_t payload, uint32_t size,
					   uint64_t iters, uint64_t warmup)
{
	struct marrow_gda_config c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.experiment = exp;
	c.ordering = ord;
	c.payload = payload;
	c.msg_size = size;
	c.iters = iters;
	c.warmup = warmup;
	c.timeout_ns = 5000000000ull;
	return c;
}

#endif
