/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-gda rate on the cpu target (marrow_gda_rate_cpu_run) against the
 * software NIC: every message delivered exactly once with the right bytes
 * (the runner's slot check plus the engine's WRITE count) for each
 * publication mode and each completion scope; ring wrap; back-pressure;
 * a signal period larger than the window; one QP shared by many threads;
 * host-rung doorbells; pointer payloads above 4 KiB; a paused engine ends
 * in a timeout with a watchdog dump; bad configurations (a pointer size
 * above the maximum or above the buffer's one slot per thread, too) are
 * refused before anything is posted.
 */
#include "emu_test_util.h"   /* CHECK, OK, t_finish: the software NIC tests' helpers */
#include "marrow/marrow_gda_rate.h"

enum { MAXQ = 41, BUF = 1 << 20 };

struct nic {
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct marrow_emu_cq *cq[MAXQ];
	struct marrow_emu_qp *qp[MAXQ];
	struct marrow_cq_view cqv[MAXQ];
	struct marrow_qp_view qpv[MAXQ];
	struct marrow_gda_endpoint ep[MAXQ];
	uint8_t *src, *dst;
	struct marrow_emu_mr *src_mr, *dst_mr;
	uint32_t n;
};

static void nic_open(struct nic *x, uint32_t n, uint32_t log_sq, uint32_t engines)
{
	struct marrow_emu_device_attr da;
	uint32_t lkey, rkey, k;

	memset(x, 0, sizeof(*x));
	memset(&da, 0, sizeof(da));
	da.size = sizeof(da);
	da.poll_mode = MARROW_EMU_POLL_IDLE;
	da.engine_threads = engines;
	da.idle_sleep_max_ns = 20000;
	da.engine_cpu = -1;
	da.quiet = 1;
	OK(marrow_emu_device_open(&da, &x->dev));
	OK(marrow_emu_pd_alloc(x->dev, &x->pd));
	x->src = aligned_alloc(4096, BUF);
	x->dst = aligned_alloc(4096, BUF);
	memset(x->src, 0, BUF);
	memset(x->dst, 0, BUF);
	OK(marrow_emu_mr_reg(x->pd, x->src, BUF, MARROW_ACCESS_LOCAL_WRITE, &x->src_mr, &lkey, &k));
	OK(marrow_emu_mr_reg(x->pd, x->dst, BUF, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE,
				     &x->dst_mr, &k, &rkey));
	x->n = n;
	for (uint32_t i = 0; i < n; i++) {
		struct marrow_emu_cq_attr ca = {sizeof(ca), 0, log_sq, 0};
		struct marrow_emu_qp_attr qa;
		x->cqv[i].size = sizeof(x->cqv[i]);
		OK(marrow_emu_cq_create(x->dev, &ca, &x->cq[i], &x->cqv[i]));
		memset(&qa, 0, sizeof(qa));
		qa.size = sizeof(qa);
		qa.send_cq = x->cq[i];
		qa.log_sq_wqebb_cnt = log_sq;
		qa.max_rq_sge = 1;
		qa.max_inline_data = 220;
		qa.access = MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE;
		x->qpv[i].size = sizeof(x->qpv[i]);
		OK(marrow_emu_qp_create(x->pd, &qa, &x->qp[i], &x->qpv[i]));
		OK(marrow_emu_qp_modify(x->qp[i], MARROW_QPS_INIT, 0));
		OK(marrow_emu_qp_modify(x->qp[i], MARROW_QPS_RTR, x->qpv[i].qpn));
		OK(marrow_emu_qp_modify(x->qp[i], MARROW_QPS_RTS, 0));
		struct marrow_gda_endpoint *e = &x->ep[i];
		memset(e, 0, sizeof(*e));
		e->size = sizeof(*e);
		e->placement = MARROW_GDA_PLACEMENT_HOST;
		e->qp = &x->qpv[i];
		e->cq = &x->cqv[i];
		e->lkey = lkey;
		e->local_addr = (uint64_t)(uintptr_t)x->src;
		e->local_len = BUF;
		e->remote_addr = (uint64_t)(uintptr_t)x->dst;
		e->remote_len = BUF;
		e->rkey = rkey;
	}
}

static void nic_close(struct nic *x)
{
	for (uint32_t i = 0; i < x->n; i++) {
		OK(marrow_emu_qp_destroy(x->qp[i]));
		OK(marrow_emu_cq_destroy(x->cq[i]));
	}
	OK(marrow_emu_mr_dereg(x->src_mr));
	OK(marrow_emu_mr_dereg(x->dst_mr));
	OK(marrow_emu_pd_free(x->pd));
	OK(marrow_emu_device_close(x->dev));
	free(x->src);
	free(x->dst);
}

static uint64_t writes(struct nic *x)
{
	uint64_t c[MARROW_EMU_CTR_COUNT];
	OK(marrow_emu_counters_read(x->dev, c, MARROW_EMU_CTR_COUNT));
	return c[MARROW_EMU_CTR_wqe_rdma_write];
}

static struct marrow_gda_rate_config base(void)
{
	struct marrow_gda_rate_config c;
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.experiment = MARROW_GDA_RATE_EXP_RATE;
	c.publication = MARROW_GDA_RATE_PUB_SLOT;
	c.qp_map = MARROW_GDA_RATE_QP_PER_BLOCK;
	c.blocks = 1;
	c.threads = 4;
	c.qps = 1;
	c.batch = 1;
	c.signal_period = 8;
	c.window = 64;
	c.payload = MARROW_GDA_PAYLOAD_INLINE;
	c.msg_size = 8;
	c.ordering = MARROW_GDA_ORD_RELEASE_SYS;
	c.messages = 200;
	c.warmup = 8;
	c.timeout_ns = 5000000000ull;
	c.doorbell_cpu = -1;
	return c;
}

/* Runs a rate configuration on fresh queues; asserts exactly-once delivery. */
static struct marrow_gda_rate_result run_rate(const char *what, struct marrow_gda_rate_config c, uint32_t log_sq)
{
	struct nic x;
	struct marrow_gda_rate_result r;
	uint64_t before, total = (uint64_t)c.blocks * c.threads * (c.messages + c.warmup);
	int rc;

	nic_open(&x, c.qps, log_sq, 2);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	before = writes(&x);
	rc = marrow_gda_rate_cpu_run(&c, x.ep, c.qps, NULL, &r);
	CHECK(rc == 0, "%s: rc %d: %s", what, rc, marrow_last_error());
	CHECK(r.payload_errors == 0 && r.slots_checked > 0, "%s: %llu bad of %llu slots", what,
	      (unsigned long long)r.payload_errors, (unsigned long long)r.slots_checked);
	CHECK(r.posts == total, "%s: posted %llu, expected %llu", what, (unsigned long long)r.posts,
	      (unsigned long long)total);
	CHECK(writes(&x) - before == total, "%s: the NIC executed %llu WRITEs for %llu posted", what,
	      (unsigned long long)(writes(&x) - before), (unsigned long long)total);
	CHECK(r.messages == (uint64_t)c.blocks * c.threads * c.messages && r.elapsed_ns > 0, "%s: messages %llu",
	      what, (unsigned long long)r.messages);
	CHECK(r.doorbells >= 1 && r.doorbells <= r.posts, "%s: doorbells %llu", what, (unsigned long long)r.doorbells);
	nic_close(&x);
	return r;
}

static void test_publications(void)
{
	static const char *names[] = {"lock", "slot", "warp"};
	for (uint32_t p = 0; p <= MARROW_GDA_RATE_PUB_WARP; p++) {
		struct marrow_gda_rate_config c = base();
		char what[64];
		c.publication = p;
		c.batch = p == MARROW_GDA_RATE_PUB_WARP ? 8 : 2;  /* warp: 4 lanes x 2 WQEs per doorbell */
		snprintf(what, sizeof(what), "publication %s", names[p]);
		struct marrow_gda_rate_result r = run_rate(what, c, 6);
		uint64_t want_db = p == MARROW_GDA_RATE_PUB_WARP ? r.posts / 8 : r.posts / 2;
		CHECK(r.doorbells == want_db, "%s: %llu doorbells for %llu posts", what, (unsigned long long)r.doorbells,
		      (unsigned long long)r.posts);
		/* Warp publication: only each warp's leader posts, so the shares'
		 * denominator is one span per warp, never more than the run. */
		uint64_t warps = (uint64_t)c.blocks * ((c.threads + 31u) / 32u);
		CHECK(p != MARROW_GDA_RATE_PUB_WARP || r.post_ticks <= warps * r.elapsed_ns,
		      "%s: post_ticks %llu > %llu warps x elapsed %llu ns", what, (unsigned long long)r.post_ticks,
		      (unsigned long long)warps, (unsigned long long)r.elapsed_ns);
	}
}

static void test_qp_maps_and_payloads(void)
{
	struct marrow_gda_rate_config c = base();
	c.blocks = 2;
	c.threads = 3;
	c.qps = 4;
	c.qp_map = MARROW_GDA_RATE_QP_SHARED;
	(void)run_rate("shared qps", c, 6);
	c.qp_map = MARROW_GDA_RATE_QP_PER_THREAD;
	c.payload = MARROW_GDA_PAYLOAD_POINTER;
	c.msg_size = 256;
	(void)run_rate("per-thread qps, pointer 256 B", c, 6);
	c.msg_size = 65536 + 8; /* above 4 KiB (gda goodput --posters), not a multiple of the 64-byte stride */
	c.messages = 16;
	(void)run_rate("per-thread qps, pointer 64 KiB + 8 B", c, 6);
	c.messages = 200;
	c.payload = MARROW_GDA_PAYLOAD_INLINE;
	c.msg_size = 124; /* 3 WQEBBs: WQEs straddle the ring end */
	c.qp_map = MARROW_GDA_RATE_QP_PER_WARP;
	(void)run_rate("inline 124 B (3 WQEBBs)", c, 6);
}

static void test_ring_wrap_and_backpressure(void)
{
	struct marrow_gda_rate_config c = base();
	c.messages = 2000; /* 8000 WQEs through a 16-WQE ring */
	c.window = 1000;   /* clipped to the SQ */
	struct marrow_gda_rate_result r = run_rate("ring wrap", c, 4);
	CHECK(r.window_effective == 16, "window clipped to the SQ: %u", r.window_effective);
	CHECK(r.sq_full_waits > 0, "a 16-WQE ring under 4 posters must make them wait (%llu waits)",
	      (unsigned long long)r.sq_full_waits);
	c = base();
	c.window = 4;
	c.signal_period = 2;
	r = run_rate("back-pressure (window 4)", c, 8);
	CHECK(r.window_effective == 4 && r.sq_full_waits > 0, "window 4: %u, %llu waits", r.window_effective,
	      (unsigned long long)r.sq_full_waits);
}

static void test_signal_period_above_window(void)
{
	struct marrow_gda_rate_config c = base();
	c.signal_period = 64;
	c.window = 8;
	c.batch = 2;
	struct marrow_gda_rate_result r = run_rate("K > window", c, 8);
	CHECK(r.signal_period_effective == 7, "K' = window - batch + 1 = 7, got %u", r.signal_period_effective);
	CHECK(r.signaled >= r.posts / 7, "signaled %llu of %llu", (unsigned long long)r.signaled,
	      (unsigned long long)r.posts);
}

static void test_many_threads_one_qp(void)
{
	struct marrow_gda_rate_config c = base();
	c.threads = 16;
	c.messages = 64;
	c.publication = MARROW_GDA_RATE_PUB_LOCK;
	(void)run_rate("16 threads, one QP, lock", c, 6);
	c.publication = MARROW_GDA_RATE_PUB_SLOT;
	(void)run_rate("16 threads, one QP, slots", c, 6);
	c.threads = 64;
	c.publication = MARROW_GDA_RATE_PUB_WARP;
	c.batch = 32;
	(void)run_rate("64 threads, one QP, warp", c, 7);
}

static void test_host_doorbells(void)
{
	struct marrow_gda_rate_config c = base();
	c.doorbell = MARROW_GDA_RATE_DB_HOST;
	c.qps = 2;
	c.threads = 2;
	c.qp_map = MARROW_GDA_RATE_QP_PER_THREAD;
	struct marrow_gda_rate_result r = run_rate("host-rung doorbells", c, 6);
	CHECK(r.host_rings >= 1 && r.host_polls >= r.host_rings, "rings %llu polls %llu",
	      (unsigned long long)r.host_rings, (unsigned long long)r.host_polls);
}

static void test_scopes(void)
{
	for (uint32_t s = 0; s <= MARROW_GDA_RATE_SCOPE_SIGNAL; s++) {
		for (uint32_t db = 0; db <= MARROW_GDA_RATE_DB_HOST; db++) {
			struct marrow_gda_rate_config c = base();
			struct marrow_gda_rate_result r;
			struct nic x;
			uint64_t samples[50], before;
			int rc;

			c.experiment = MARROW_GDA_RATE_EXP_SCOPE;
			c.scope = s;
			c.doorbell = db;
			/* used-QP over 40 QPs: the used set spans two words */
			c.qps = s == MARROW_GDA_RATE_SCOPE_USED_QP ? 40u : 4u;
			c.messages = 50;
			c.warmup = 5;
			nic_open(&x, c.qps + 1u, 6, 1);
			memset(&r, 0, sizeof(r));
			r.size = sizeof(r);
			memset(samples, 0, sizeof(samples));
			before = writes(&x);
			rc = marrow_gda_rate_cpu_run(&c, x.ep, c.qps + 1u, samples, &r);
			CHECK(rc == 0, "scope %u db %u: rc %d: %s", s, db, rc, marrow_last_error());
			CHECK(r.messages == 50 && samples[0] > 0 && samples[49] > 0, "scope %u: %llu samples", s,
			      (unsigned long long)r.messages);
			uint64_t want = s == MARROW_GDA_RATE_SCOPE_SIGNAL ? 110u : 55u;
			CHECK(writes(&x) - before == want && r.posts == want, "scope %u: %llu WRITEs, %llu posts, want %llu",
			      s, (unsigned long long)(writes(&x) - before), (unsigned long long)r.posts,
			      (unsigned long long)want);
			CHECK(r.payload_errors == 0, "scope %u: payload", s);
			nic_close(&x);
		}
	}
}

/* The single-poster path (gda_rate_post.h): taken exactly when every QP has
 * one poster, delivers every byte once through ring wraps and back-pressure,
 * rings once per batch, consumes every CQE it expected (periodic reclamation
 * skips reading the older ones, not consuming them), and attributes its time
 * to building and publishing. PATH_SHARED forces the shared-state path. */
static void test_single_poster(void)
{
	struct marrow_gda_rate_config c = base();
	struct marrow_gda_rate_result r;

	c.threads = 1;
	c.messages = 2000; /* 2008 WQEs through a 16-WQE ring */
	c.window = 1000;
	r = run_rate("single poster, 1 QP, B=1, ring wrap", c, 4);
	CHECK(r.path == MARROW_GDA_RATE_PATH_SOLO, "1 thread on 1 QP runs the single-poster path (path %u)", r.path);
	CHECK(r.doorbells == r.posts, "B=1: one doorbell per WQE (%llu for %llu)", (unsigned long long)r.doorbells,
	      (unsigned long long)r.posts);
	CHECK(r.cqes == r.signaled && r.signaled == r.posts / 8, "every expected CQE consumed: cqes %llu signaled %llu",
	      (unsigned long long)r.cqes, (unsigned long long)r.signaled);
	CHECK(r.sq_full_waits > 0, "a 16-WQE ring makes the poster wait for space (%llu waits)",
	      (unsigned long long)r.sq_full_waits);
	CHECK(r.fence_ticks > 0 && r.wqe_ticks > 0, "stage counters: fence %llu wqe %llu",
	      (unsigned long long)r.fence_ticks, (unsigned long long)r.wqe_ticks);

	c.path = MARROW_GDA_RATE_PATH_SHARED;
	r = run_rate("shared path forced, 1 QP", c, 4);
	CHECK(r.path == MARROW_GDA_RATE_PATH_SHARED, "path shared is honoured (path %u)", r.path);
	CHECK(r.fence_ticks > 0 && r.wqe_ticks > 0, "shared path stage counters: fence %llu wqe %llu",
	      (unsigned long long)r.fence_ticks, (unsigned long long)r.wqe_ticks);

	c = base();
	c.threads = 1;
	c.qps = 4;
	c.qp_map = MARROW_GDA_RATE_QP_SHARED;
	c.batch = 4;
	r = run_rate("single poster rotating over 4 QPs, B=4", c, 6);
	CHECK(r.path == MARROW_GDA_RATE_PATH_SOLO && r.doorbells == r.posts / 4, "rotation: path %u, %llu doorbells",
	      r.path, (unsigned long long)r.doorbells);

	c = base();
	c.threads = 4;
	c.qps = 4;
	c.qp_map = MARROW_GDA_RATE_QP_PER_THREAD;
	c.batch = 16;
	c.messages = 640;
	c.warmup = 16;
	c.signal_period = 16;
	c.payload = MARROW_GDA_PAYLOAD_POINTER;
	c.msg_size = 64;
	r = run_rate("single poster per QP, 4 QPs, B=16, pointer", c, 6);
	CHECK(r.path == MARROW_GDA_RATE_PATH_SOLO && r.doorbells == r.posts / 16, "4x4: path %u, %llu doorbells",
	      r.path, (unsigned long long)r.doorbells);
	CHECK(r.cqes == r.signaled, "4x4: cqes %llu signaled %llu", (unsigned long long)r.cqes,
	      (unsigned long long)r.signaled);

	c.payload = MARROW_GDA_PAYLOAD_INLINE;
	c.msg_size = 28; /* the largest inline WRITE of one WQEBB: 7 pattern words in registers */
	r = run_rate("single poster, inline 28 B", c, 6);
	CHECK(r.path == MARROW_GDA_RATE_PATH_SOLO, "inline 28: path %u", r.path);
	c.msg_size = 124; /* 3 WQEBBs: built by the byte-wise builder, straddling the ring end */
	r = run_rate("single poster, inline 124 B (3 WQEBBs)", c, 6);
	CHECK(r.path == MARROW_GDA_RATE_PATH_SOLO && r.wqebbs_per_wqe == 3, "inline 124: path %u, %u WQEBBs", r.path,
	      r.wqebbs_per_wqe);

	c = base(); /* 4 threads on 1 QP: several posters, so the shared path */
	r = run_rate("4 threads on 1 QP", c, 6);
	CHECK(r.path == MARROW_GDA_RATE_PATH_SHARED, "4 posters on one QP take the shared path (path %u)", r.path);
	c.publication = MARROW_GDA_RATE_PUB_WARP;
	c.threads = 1;
	c.batch = 1;
	r = run_rate("warp publication, 1 lane", c, 6);
	CHECK(r.path == MARROW_GDA_RATE_PATH_SHARED, "warp publication keeps the shared path (path %u)", r.path);
}

static void test_timeout_dump(void)
{
	struct marrow_gda_rate_config c = base();
	struct marrow_gda_rate_result r;
	struct nic x;
	int rc;

	c.timeout_ns = 50000000ull;
	nic_open(&x, 1, 6, 1);
	OK(marrow_emu_engine_pause(x.dev, 1));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	rc = marrow_gda_rate_cpu_run(&c, x.ep, 1, NULL, &r);
	CHECK(rc == MARROW_ETIMEDOUT && r.status == MARROW_ETIMEDOUT, "paused engine: rc %d", rc);
	CHECK(strstr(marrow_last_error(), "; state:") != NULL && strstr(marrow_last_error(), "waited_for=") != NULL,
	      "watchdog dump missing: %s", marrow_last_error());
	/* the single-poster path waits for space without the shared state: the same bounded wait and dump */
	c.threads = 1;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	rc = marrow_gda_rate_cpu_run(&c, x.ep, 1, NULL, &r);
	CHECK(rc == MARROW_ETIMEDOUT && r.path == MARROW_GDA_RATE_PATH_SOLO && r.fail_wait == 1u /* GDA_RATE_WAIT_SPACE */,
	      "paused engine, single poster: rc %d path %u wait %u", rc, r.path, r.fail_wait);
	CHECK(strstr(marrow_last_error(), "waited_for=") != NULL, "single-poster dump missing: %s", marrow_last_error());
	OK(marrow_emu_engine_pause(x.dev, 0));
	nic_close(&x);
}

static void test_bad_configs(void)
{
	struct marrow_gda_rate_config c;
	struct marrow_gda_rate_result r;
	struct nic x;

	nic_open(&x, 2, 6, 1);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	c = base();
	c.blocks = 133;
	CHECK(marrow_gda_rate_cpu_run(&c, x.ep, 1, NULL, &r) == MARROW_EINVAL, "133 blocks");
	c = base();
	c.publication = MARROW_GDA_RATE_PUB_WARP;
	c.batch = 3;
	CHECK(marrow_gda_rate_cpu_run(&c, x.ep, 1, NULL, &r) == MARROW_EINVAL &&
	      strstr(marrow_last_error(), "multiple") != NULL, "warp batch 3: %s", marrow_last_error());
	c = base();
	c.window = 1;
	c.batch = 2;
	CHECK(marrow_gda_rate_cpu_run(&c, x.ep, 1, NULL, &r) == MARROW_EINVAL, "window < batch");
	c = base();
	CHECK(marrow_gda_rate_cpu_run(&c, x.ep, 2, NULL, &r) == MARROW_EINVAL, "2 endpoints for 1 QP");
	c = base();
	c.msg_size = 221;
	CHECK(marrow_gda_rate_cpu_run(&c, x.ep, 1, NULL, &r) == MARROW_EINVAL, "inline 221");
	c = base();
	c.payload = MARROW_GDA_PAYLOAD_POINTER;
	c.msg_size = MARROW_GDA_RATE_MAX_POINTER_SIZE + 1u;
	CHECK(marrow_gda_rate_cpu_run(&c, x.ep, 1, NULL, &r) == MARROW_EINVAL &&
	      strstr(marrow_last_error(), "bytes pointer") != NULL, "pointer above the maximum: %s", marrow_last_error());
	c.msg_size = BUF / 2; /* 4 threads x 512 KiB slots do not fit the 1 MiB buffers */
	CHECK(marrow_gda_rate_cpu_run(&c, x.ep, 1, NULL, &r) == MARROW_EINVAL &&
	      strstr(marrow_last_error(), "one slot per thread") != NULL, "slots beyond the buffer: %s",
	      marrow_last_error());
	c = base();
	c.path = MARROW_GDA_RATE_PATH_SOLO; /* out only */
	CHECK(marrow_gda_rate_cpu_run(&c, x.ep, 1, NULL, &r) == MARROW_EINVAL &&
	      strstr(marrow_last_error(), "path must be auto or shared") != NULL, "path solo as input: %s",
	      marrow_last_error());
	CHECK(writes(&x) == 0, "a refused configuration posted nothing");
	nic_close(&x);
}

int main(void)
{
	test_bad_configs();
	test_publications();
	test_qp_maps_and_payloads();
	test_ring_wrap_and_backpressure();
	test_signal_period_above_window();
	test_many_threads_one_qp();
	test_host_doorbells();
	test_scopes();
	test_single_poster();
	test_timeout_dump();
	return t_finish("test_gda_rate_cpu");
}
