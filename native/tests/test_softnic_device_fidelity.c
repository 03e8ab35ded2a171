/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Fidelity of the software NIC's two engines: the same scenarios (inline
 * and gather WRITEs, unsignaled retirement, ring wrap, bad rkey / lkey with
 * the flush that follows, a malformed WQE) run against the CPU engine and
 * against the device engine (a persistent CUDA kernel; queues in mapped
 * pinned host memory so that this CPU thread can post, docs/design/device-engine.md),
 * and each must produce the expected CQE stream and bytes; the two streams
 * must also be identical; a stop and start of the device engine does not
 * take a doorbell twice. The device half needs libmarrow_cuda.so and a
 * GPU: without them it is skipped (exit 77) with the reason, after the CPU
 * half has run and passed.
 */
#include <dlfcn.h>

#include "emu_test_util.h"
#include "marrow/marrow_softnic_device.h"

struct sndev_api {
	int (*open)(const struct marrow_softnic_device_attr *, struct marrow_softnic_device **);
	int (*close)(struct marrow_softnic_device *);
	int (*cq_create)(struct marrow_softnic_device *, uint32_t, uint32_t, uint32_t *, struct marrow_cq_view *);
	int (*qp_create)(struct marrow_softnic_device *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t *,
			 struct marrow_qp_view *);
	int (*qp_connect)(struct marrow_softnic_device *, uint32_t, uint32_t);
	int (*mr_reg)(struct marrow_softnic_device *, uint64_t, uint64_t, uint32_t, uint32_t *);
	int (*host_alloc)(struct marrow_softnic_device *, uint64_t, void **);
	int (*start)(struct marrow_softnic_device *);
	int (*stop)(struct marrow_softnic_device *, uint64_t);
	int (*counters)(struct marrow_softnic_device *, uint64_t *, uint32_t);
	int (*stages)(const struct marrow_softnic_device_stages_config *, struct marrow_softnic_device_stages_result *);
	const char *(*last_error)(void);
};

/* One engine under test: the CPU engine (emu API) or the device engine. */
struct engine {
	const char *name;
	int device;
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;
	struct marrow_softnic_device *sd;
	const struct sndev_api *api;
	struct t_cq cq;
	struct t_qp qp;
	uint32_t cq_index, qp_index;
	struct marrow_emu_mr *mrs[8];   /* CPU engine: deregistered at close */
	void *bufs[8];
	uint32_t nmr, nbuf;
	uint32_t exec;                  /* device engine: enum marrow_softnic_device_exec */
	uint64_t ctr[MARROW_EMU_CTR_COUNT];   /* counters summed over the runs closed so far */
};

/* What a scenario observed: CQEs as (opcode, syndrome, vendor, counter, qpn). */
enum { MAX_CQES = 64, DST_BYTES = 512 };
struct outcome {
	uint32_t n;
	uint8_t op[MAX_CQES], synd[MAX_CQES], vsynd[MAX_CQES];
	uint16_t ctr[MAX_CQES];
	uint8_t dst[DST_BYTES];
};

static void *buffer(struct engine *e, size_t n)
{
	void *p = NULL;

	if (!e->device) {
		REQUIRE(e->nbuf < 8, "too many buffers");
		return e->bufs[e->nbuf++] = t_alloc(n, 0);
	}
	REQUIRE(e->api->host_alloc(e->sd, n, &p) == MARROW_OK, "host_alloc: %s", e->api->last_error());
	return p;
}

static uint32_t reg(struct engine *e, void *p, uint64_t n, uint32_t access)
{
	uint32_t lkey = 0, rkey = 0;
	struct marrow_emu_mr *mr;

	if (e->device) {
		REQUIRE(e->api->mr_reg(e->sd, (uint64_t)(uintptr_t)p, n, access, &lkey) == MARROW_OK, "mr_reg: %s",
			e->api->last_error());
		return lkey;
	}
	OK(marrow_emu_mr_reg(e->pd, p, n, access, &mr, &lkey, &rkey));
	REQUIRE(e->nmr < 8, "too many MRs");
	e->mrs[e->nmr++] = mr;
	return rkey;
}

/* A loopback QP (its own peer) with one CQ; log_sq WQEBBs. */
static void engine_open(struct engine *e, uint32_t log_sq)
{
	memset(&e->cq, 0, sizeof(e->cq));
	memset(&e->qp, 0, sizeof(e->qp));
	if (!e->device) {
		e->dev = t_open(MARROW_EMU_POLL_HOT, 1);
		OK(marrow_emu_pd_alloc(e->dev, &e->pd));
		t_cq_create(e->dev, 6, 0, &e->cq);
		t_qp_create(e->pd, &e->cq, log_sq, 220, &e->qp);
		t_connect(&e->qp, e->qp.v.qpn);
		return;
	}
	struct marrow_softnic_device_attr a = {
		.size = sizeof(a), .nic_sms = 1, .queue_memory = MARROW_SNDEV_QUEUES_HOST,
		.max_qps = 4, .max_mrs = 8, .max_run_ns = 120000000000ull, .quiet = 1, .exec_mode = e->exec,
	};
	REQUIRE(e->api->open(&a, &e->sd) == MARROW_OK, "open: %s", e->api->last_error());
	REQUIRE(e->api->cq_create(e->sd, 6, 0, &e->cq_index, &e->cq.v) == MARROW_OK, "cq: %s", e->api->last_error());
	REQUIRE(e->api->qp_create(e->sd, e->cq_index, log_sq, 220,
				  MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &e->qp_index, &e->qp.v) ==
			MARROW_OK, "qp: %s", e->api->last_error());
	REQUIRE(e->api->qp_connect(e->sd, e->qp_index, e->qp_index) == MARROW_OK, "connect: %s",
		e->api->last_error());
}

/* The device engine copies objects at start: MRs first, then start. */
static void engine_go(struct engine *e)
{
	if (e->device)
		REQUIRE(e->api->start(e->sd) == MARROW_OK, "start: %s", e->api->last_error());
}

static void engine_close(struct engine *e)
{
	uint64_t v[MARROW_EMU_CTR_COUNT];

	if (e->device) {
		CHECK(e->api->stop(e->sd, 5000000000ull) == MARROW_OK, "stop: %s", e->api->last_error());
		REQUIRE(e->api->counters(e->sd, v, MARROW_EMU_CTR_COUNT) == MARROW_OK, "counters: %s",
			e->api->last_error());
		for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
			e->ctr[i] += v[i];
		CHECK(e->api->close(e->sd) == MARROW_OK, "close: %s", e->api->last_error());
		return;
	}
	OK(marrow_emu_counters_read(e->dev, v, MARROW_EMU_CTR_COUNT));
	for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
		e->ctr[i] += v[i];
	OK(marrow_emu_qp_destroy(e->qp.qp));
	OK(marrow_emu_cq_destroy(e->cq.cq));
	while (e->nmr)
		OK(marrow_emu_mr_dereg(e->mrs[--e->nmr]));
	while (e->nbuf)
		free(e->bufs[--e->nbuf]);
	OK(marrow_emu_pd_free(e->pd));
	OK(marrow_emu_device_close(e->dev));
}

static void collect(struct engine *e, struct outcome *o, uint32_t want)
{
	uint8_t c[64];

	while (o->n < want && o->n < MAX_CQES && t_poll(&e->cq, c, 3000000000ull)) {
		o->op[o->n] = mx_cqe_opcode(c);
		/* Bytes 54/55 are syndromes only in an error CQE; in a good one they
		 * are the low bytes of the timestamp, which no two runs share. */
		int err = o->op[o->n] == MX_CQE_REQ_ERR;
		o->synd[o->n] = err ? mx_cqe_syndrome(c) : 0;
		o->vsynd[o->n] = err ? mx_cqe_vendor_syndrome(c) : 0;
		o->ctr[o->n] = mx_cqe_wqe_counter(c);
		CHECK(mx_cqe_qpn(c) == e->qp.v.qpn, "%s: CQE qpn 0x%x, QP 0x%x", e->name, mx_cqe_qpn(c), e->qp.v.qpn);
		o->n++;
	}
	CHECK(o->n == want, "%s: %u CQEs, expected %u", e->name, o->n, want);
}

static void expect(const struct engine *e, const struct outcome *o, uint32_t i, uint8_t op, uint8_t synd,
		   uint8_t vsynd, uint16_t ctr)
{
	if (i >= o->n)
		return;   /* collect already failed */
	CHECK(o->op[i] == op && o->ctr[i] == ctr && (op == MX_CQE_REQ || (o->synd[i] == synd && o->vsynd[i] == vsynd)),
	      "%s CQE %u: opcode %u synd 0x%02x vendor 0x%02x counter %u; expected %u 0x%02x 0x%02x %u", e->name, i,
	      o->op[i], o->synd[i], o->vsynd[i], o->ctr[i], op, synd, vsynd, ctr);
}

/* What a scenario writes from and to, on a freshly opened engine (SQ of
 * 2^log_sq WQEBBs): a source of src_bytes (none when 0) with lkey, and the
 * destination of DST_BYTES with rkey (remote write) at address d. */
struct bufs {
	uint8_t *src, *dst;
	uint32_t lkey, rkey;
	uint64_t d;
};

static struct bufs scenario_open(struct engine *e, uint32_t log_sq, size_t src_bytes)
{
	struct bufs b = {0};

	engine_open(e, log_sq);
	if (src_bytes)
		b.src = buffer(e, src_bytes);
	b.dst = buffer(e, DST_BYTES);
	if (src_bytes)
		b.lkey = reg(e, b.src, src_bytes, MARROW_ACCESS_LOCAL_WRITE);
	b.rkey = reg(e, b.dst, DST_BYTES, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE);
	b.d = (uint64_t)(uintptr_t)b.dst;
	return b;
}

/* Inline WRITEs, 5 unsignaled + 1 signaled under one doorbell, then a
 * gather WRITE of two SGEs, then 20 signaled WRITEs around an 8-WQEBB ring. */
static void scenario_good(struct engine *e, struct outcome *o)
{
	struct bufs b = scenario_open(e, 3, 256);

	engine_go(e);
	for (int i = 0; i < 256; i++)
		b.src[i] = (uint8_t)(0xA0 ^ i);
	for (int i = 0; i < 6; i++) {
		uint8_t v[8];
		for (int k = 0; k < 8; k++)
			v[k] = (uint8_t)(i * 16 + k);
		t_post_inline(&e->qp, b.d + 8u * i, b.rkey, v, 8, i == 5);
	}
	t_ring(&e->qp);
	collect(e, o, 1);
	expect(e, o, 0, MX_CQE_REQ, 0, 0, 5);
	struct t_sge sg[2] = {{(uint64_t)(uintptr_t)b.src, 40, b.lkey},
			      {(uint64_t)(uintptr_t)b.src + 100, 24, b.lkey}};
	uint16_t c = t_post_sge(&e->qp, b.d + 64, b.rkey, sg, 2, 1);
	t_ring(&e->qp);
	collect(e, o, 2);
	expect(e, o, 1, MX_CQE_REQ, 0, 0, c);
	for (int i = 0; i < 20; i++) {
		uint32_t w = 0xC0DE0000u + (uint32_t)i;
		c = t_post_inline(&e->qp, b.d + 128 + 4u * (i % 16), b.rkey, &w, 4, 1);
		t_ring(&e->qp);
		collect(e, o, 3 + (uint32_t)i);
		expect(e, o, 2 + (uint32_t)i, MX_CQE_REQ, 0, 0, c);
	}
	memcpy(o->dst, b.dst, DST_BYTES);
	for (int i = 0; i < 48; i++)
		CHECK(b.dst[i] == (uint8_t)((i / 8) * 16 + i % 8), "%s: inline byte %d = 0x%02x", e->name, i, b.dst[i]);
	CHECK(memcmp(b.dst + 64, b.src, 40) == 0 && memcmp(b.dst + 104, b.src + 100, 24) == 0,
	      "%s: gathered bytes wrong", e->name);
	engine_close(e);
}

/* One doorbell over a mix the device engine's lane path must hand over
 * part-way (docs/design/device-engine.md §2.4): inline WRITEs of 8 bytes,
 * of 20 bytes (ds 4) to an odd address and of 1 and 3 bytes, a gather WRITE
 * in the middle, two signaled WQEs, more WQEs than the lane path loads at
 * once; then 11 unsignaled WRITEs and a signaled one to one address (the
 * last must win), twice round a 16-WQEBB ring. */
static void scenario_mixed(struct engine *e, struct outcome *o)
{
	struct bufs b = scenario_open(e, 4, 64);
	uint8_t v[20];

	engine_go(e);
	for (int i = 0; i < 64; i++)
		b.src[i] = (uint8_t)(0x5A ^ i);
	for (int i = 0; i < 20; i++)
		v[i] = (uint8_t)(0x10 + i);
	(void)t_post_inline(&e->qp, b.d, b.rkey, v, 8, 0);
	(void)t_post_inline(&e->qp, b.d + 8, b.rkey, v + 1, 8, 0);
	uint16_t s0 = t_post_inline(&e->qp, b.d + 201, b.rkey, v, 20, 1);
	(void)t_post_inline(&e->qp, b.d + 16, b.rkey, v + 2, 8, 0);
	struct t_sge sg = {(uint64_t)(uintptr_t)b.src + 3, 29, b.lkey};
	(void)t_post_sge(&e->qp, b.d + 300, b.rkey, &sg, 1, 0);
	(void)t_post_inline(&e->qp, b.d + 233, b.rkey, v + 5, 1, 0);
	(void)t_post_inline(&e->qp, b.d + 250, b.rkey, v + 7, 3, 0);
	uint16_t s1 = t_post_inline(&e->qp, b.d + 24, b.rkey, v + 3, 8, 1);
	t_ring(&e->qp);
	collect(e, o, 2);
	expect(e, o, 0, MX_CQE_REQ, 0, 0, s0);
	expect(e, o, 1, MX_CQE_REQ, 0, 0, s1);
	for (uint32_t round = 0; round < 2; round++) {
		uint16_t c = 0;

		for (uint32_t i = 0; i < 12; i++) {
			uint64_t x = 0xFEED000000000000ull + round * 100 + i;
			c = t_post_inline(&e->qp, b.d + 400, b.rkey, &x, 8, i == 11);
		}
		t_ring(&e->qp);
		collect(e, o, 3 + round);
		expect(e, o, 2 + round, MX_CQE_REQ, 0, 0, c);
	}
	memcpy(o->dst, b.dst, DST_BYTES);
	CHECK(memcmp(b.dst + 201, v, 20) == 0 && b.dst[233] == v[5] && memcmp(b.dst + 250, v + 7, 3) == 0 &&
		      memcmp(b.dst + 300, b.src + 3, 29) == 0 && memcmp(b.dst + 24, v + 3, 8) == 0,
	      "%s: mixed run: destination bytes wrong", e->name);
	uint64_t last = 0;
	memcpy(&last, b.dst + 400, 8);
	CHECK(last == 0xFEED000000000000ull + 100 + 11, "%s: one address, 12 WRITEs: 0x%llx left, not the last's",
	      e->name, (unsigned long long)last);
	engine_close(e);
}

/* A bad rkey fails its WQE with REMOTE_ACCESS and flushes the next; on a
 * fresh QP a bad lkey fails with LOCAL_PROT; a WQE naming another QPN is
 * malformed (LOCAL_QP_OP). Nothing is written by a failing WQE. */
static void scenario_errors(struct engine *e, struct outcome *o)
{
	struct bufs b = scenario_open(e, 4, 64);
	uint64_t v = 0x1122334455667788ull;

	engine_go(e);
	/* unsignaled: its error CQE still comes */
	uint16_t c0 = t_post_inline(&e->qp, b.d, b.rkey ^ 0x80u, &v, 8, 0);
	uint16_t c1 = t_post_inline(&e->qp, b.d + 8, b.rkey, &v, 8, 1);
	t_ring(&e->qp);
	collect(e, o, 2);
	expect(e, o, 0, MX_CQE_REQ_ERR, MX_SYND_REMOTE_ACCESS, 0xE4, c0);
	expect(e, o, 1, MX_CQE_REQ_ERR, MX_SYND_WR_FLUSH, 0xEF, c1);
	memcpy(o->dst, b.dst, DST_BYTES);
	for (int i = 0; i < 16; i++)
		CHECK(b.dst[i] == 0, "%s: a failed or flushed WQE wrote byte %d", e->name, i);
	engine_close(e);

	b = scenario_open(e, 4, 64);
	engine_go(e);
	struct t_sge sg = {(uint64_t)(uintptr_t)b.src + 32, 64, b.lkey};   /* runs past the MR */
	uint16_t c2 = t_post_sge(&e->qp, b.d, b.rkey, &sg, 1, 1);
	t_ring(&e->qp);
	collect(e, o, 3);
	expect(e, o, 2, MX_CQE_REQ_ERR, MX_SYND_LOCAL_PROT, 0xE2, c2);
	engine_close(e);

	b = scenario_open(e, 4, 0);
	engine_go(e);
	uint16_t c3 = t_post_inline(&e->qp, b.d, b.rkey, &v, 8, 1);
	*t_wqe_byte(&e->qp, c3, 6) ^= 0x01;   /* QPN byte: another QP's */
	t_ring(&e->qp);
	collect(e, o, 4);
	expect(e, o, 3, MX_CQE_REQ_ERR, MX_SYND_LOCAL_QP_OP, 0xE8, c3);
	engine_close(e);
}

/* Pointer WRITEs, which the device engine's lane path runs itself
 * (docs/design/device-engine.md §2.8): 8 bytes (lane 0 copies), 4 KiB
 * aligned and 1000 bytes between odd addresses (the warp copies), two SGEs
 * of 100 and 200 bytes, a doorbell over inline and pointer WRITEs mixed (a
 * round stops at each pointer WRITE), a source that overlaps the
 * destination (the core's memmove), then a bad lkey (LOCAL_PROT, 0xE1). */
enum { PTR_BYTES = 8192 };
static void scenario_pointer(struct engine *e, struct outcome *o)
{
	engine_open(e, 4);
	uint8_t *src = buffer(e, PTR_BYTES), *dst = buffer(e, PTR_BYTES);
	uint32_t lkey = reg(e, src, PTR_BYTES, MARROW_ACCESS_LOCAL_WRITE);
	uint32_t rkey = reg(e, dst, PTR_BYTES, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE);
	uint64_t s = (uint64_t)(uintptr_t)src, d = (uint64_t)(uintptr_t)dst;
	uint32_t n = 0;
	uint16_t c;

	engine_go(e);
	for (int i = 0; i < PTR_BYTES; i++)
		src[i] = (uint8_t)(i * 7 + (i >> 8));
	memset(dst, 0, PTR_BYTES);
	struct t_sge one = {s, 8, lkey};
	c = t_post_sge(&e->qp, d, rkey, &one, 1, 1);
	t_ring(&e->qp);
	collect(e, o, ++n);
	expect(e, o, n - 1, MX_CQE_REQ, 0, 0, c);
	struct t_sge big = {s + 256, 4096, lkey};
	c = t_post_sge(&e->qp, d + 4096, rkey, &big, 1, 1);
	t_ring(&e->qp);
	collect(e, o, ++n);
	expect(e, o, n - 1, MX_CQE_REQ, 0, 0, c);
	struct t_sge odd = {s + 3, 1000, lkey};
	c = t_post_sge(&e->qp, d + 2001, rkey, &odd, 1, 1);
	t_ring(&e->qp);
	collect(e, o, ++n);
	expect(e, o, n - 1, MX_CQE_REQ, 0, 0, c);
	struct t_sge two[2] = {{s + 5000, 100, lkey}, {s + 6000, 200, lkey}};
	c = t_post_sge(&e->qp, d + 16, rkey, two, 2, 1);
	t_ring(&e->qp);
	collect(e, o, ++n);
	expect(e, o, n - 1, MX_CQE_REQ, 0, 0, c);
	uint64_t v = 0x0102030405060708ull;
	struct t_sge m1 = {s + 7000, 8, lkey}, m2 = {s + 7100, 256, lkey};
	(void)t_post_inline(&e->qp, d + 320, rkey, &v, 8, 0);
	(void)t_post_sge(&e->qp, d + 328, rkey, &m1, 1, 0);
	uint16_t cm = t_post_sge(&e->qp, d + 336, rkey, &m2, 1, 1);
	(void)t_post_inline(&e->qp, d + 592, rkey, &v, 8, 0);
	c = t_post_inline(&e->qp, d + 600, rkey, &v, 8, 1);
	t_ring(&e->qp);
	n += 2;
	collect(e, o, n);
	expect(e, o, n - 2, MX_CQE_REQ, 0, 0, cm);
	expect(e, o, n - 1, MX_CQE_REQ, 0, 0, c);
	/* The source is the destination's own MR, 64 bytes, 32 bytes ahead. */
	struct t_sge ov = {d + 4096, 64, rkey};
	c = t_post_sge(&e->qp, d + 4096 + 32, rkey, &ov, 1, 1);
	t_ring(&e->qp);
	collect(e, o, ++n);
	expect(e, o, n - 1, MX_CQE_REQ, 0, 0, c);
	memcpy(o->dst, dst, DST_BYTES);
	CHECK(memcmp(dst, src, 8) == 0 && memcmp(dst + 4096 + 96, src + 256 + 96, 4096 - 96) == 0 &&
		      memcmp(dst + 4096 + 32, src + 256, 64) == 0 && memcmp(dst + 4096, src + 256, 32) == 0 &&
		      memcmp(dst + 2001, src + 3, 1000) == 0 && memcmp(dst + 16, src + 5000, 100) == 0 &&
		      memcmp(dst + 116, src + 6000, 200) == 0 && memcmp(dst + 320, &v, 8) == 0 &&
		      memcmp(dst + 328, src + 7000, 8) == 0 && memcmp(dst + 336, src + 7100, 256) == 0 &&
		      memcmp(dst + 592, &v, 8) == 0 && memcmp(dst + 600, &v, 8) == 0,
	      "%s: pointer WRITEs: destination bytes wrong", e->name);
	uint8_t before[64];
	memcpy(before, dst + 1024, sizeof(before));
	struct t_sge bad = {s, 64, lkey ^ 0x80u};
	c = t_post_sge(&e->qp, d + 1024, rkey, &bad, 1, 1);
	t_ring(&e->qp);
	collect(e, o, ++n);
	expect(e, o, n - 1, MX_CQE_REQ_ERR, MX_SYND_LOCAL_PROT, 0xE1, c);
	CHECK(memcmp(dst + 1024, before, sizeof(before)) == 0, "%s: a WRITE with a bad lkey wrote", e->name);
	engine_close(e);
}

/* put+completion from this CPU thread, one WQE per doorbell, as the
 * latency benchmarks post (the lane path's single-WQE and pointer paths):
 * iters WRITEs of size bytes, inline or from a source MR, each waited for
 * and its destination checked. Run in the sanitizable mode (below), where
 * a GPU initiator cannot run beside the engine; and on every engine. */
static void scenario_putc(struct engine *e, int pointer, uint32_t size, uint32_t iters)
{
	struct outcome o;
	const char *what = pointer ? "put+completion (pointer)" : "put+completion (inline)";

	memset(&o, 0, sizeof(o));
	engine_open(e, 6);
	uint8_t *src = buffer(e, 2 * PTR_BYTES), *dst = buffer(e, PTR_BYTES);
	uint32_t lkey = reg(e, src, 2 * PTR_BYTES, MARROW_ACCESS_LOCAL_WRITE);
	uint32_t rkey = reg(e, dst, PTR_BYTES, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE);

	REQUIRE(size <= PTR_BYTES && (pointer || size <= 8), "%s: size %u", what, size);
	engine_go(e);
	for (uint32_t i = 0; i < iters && !t_failures; i++) {
		uint8_t *from = src + (size_t)(i & 1u) * PTR_BYTES;
		uint16_t c;

		for (uint32_t k = 0; k < size; k++)
			from[k] = (uint8_t)(i * 31 + k);
		if (pointer) {
			struct t_sge sg = {(uint64_t)(uintptr_t)from, size, lkey};
			c = t_post_sge(&e->qp, (uint64_t)(uintptr_t)dst, rkey, &sg, 1, 1);
		} else {
			c = t_post_inline(&e->qp, (uint64_t)(uintptr_t)dst, rkey, from, size, 1);
		}
		t_ring(&e->qp);
		o.n = 0;
		collect(e, &o, 1);
		expect(e, &o, 0, MX_CQE_REQ, 0, 0, c);
		CHECK(memcmp(dst, from, size) == 0, "%s: %s, %u B, iteration %u: destination bytes wrong", e->name, what,
		      size, i);
	}
	engine_close(e);
}

/* The device engine's counters once stopped (exact then). */
static void device_counters(struct engine *e, uint64_t *v)
{
	REQUIRE(e->api->counters(e->sd, v, MARROW_EMU_CTR_COUNT) == MARROW_OK, "counters: %s", e->api->last_error());
}

/* Device engine only: a doorbell taken before a stop is not taken again
 * after the next start. An own-page QP's doorbells are taken by comparison
 * with the last value taken, so the slot keeps that value while the engine
 * runs; the engine empties it at exit (docs/design/device-engine.md §2.3).
 * Were it left there, the next start (which begins with no value taken)
 * would route it once more: one more doorbell observed, or a stale one. */
static void scenario_restart(struct engine *e)
{
	struct outcome o;
	uint64_t v = 0x0123456789abcdefull, ctr[MARROW_EMU_CTR_COUNT];

	memset(&o, 0, sizeof(o));
	struct bufs b = scenario_open(e, 3, 0);

	engine_go(e);
	uint16_t c0 = t_post_inline(&e->qp, b.d, b.rkey, &v, 8, 1);
	t_ring(&e->qp);
	collect(e, &o, 1);
	expect(e, &o, 0, MX_CQE_REQ, 0, 0, c0);
	CHECK(e->api->stop(e->sd, 5000000000ull) == MARROW_OK, "stop: %s", e->api->last_error());
	device_counters(e, ctr);
	CHECK(ctr[MARROW_EMU_CTR_doorbells_observed] == 1 && ctr[MARROW_EMU_CTR_wqe_rdma_write] == 1,
	      "restart, first run: %llu doorbells observed, %llu WRITEs; want 1 and 1",
	      (unsigned long long)ctr[MARROW_EMU_CTR_doorbells_observed],
	      (unsigned long long)ctr[MARROW_EMU_CTR_wqe_rdma_write]);
	engine_go(e);
	uint16_t c1 = t_post_inline(&e->qp, b.d + 8, b.rkey, &v, 8, 1);
	t_ring(&e->qp);
	collect(e, &o, 2);
	expect(e, &o, 1, MX_CQE_REQ, 0, 0, c1);
	CHECK(e->api->stop(e->sd, 5000000000ull) == MARROW_OK, "stop: %s", e->api->last_error());
	device_counters(e, ctr);
	CHECK(ctr[MARROW_EMU_CTR_doorbells_observed] == 1 && ctr[MARROW_EMU_CTR_doorbells_stale] == 0 &&
		      ctr[MARROW_EMU_CTR_doorbells_dropped] == 0 && ctr[MARROW_EMU_CTR_wqe_rdma_write] == 1,
	      "restart, second run: %llu doorbells observed (%llu stale, %llu dropped), %llu WRITEs; want 1 (0, 0), 1",
	      (unsigned long long)ctr[MARROW_EMU_CTR_doorbells_observed],
	      (unsigned long long)ctr[MARROW_EMU_CTR_doorbells_stale],
	      (unsigned long long)ctr[MARROW_EMU_CTR_doorbells_dropped],
	      (unsigned long long)ctr[MARROW_EMU_CTR_wqe_rdma_write]);
	CHECK(memcmp(b.dst, &v, 8) == 0 && memcmp(b.dst + 8, &v, 8) == 0, "restart: destination bytes wrong");
	engine_close(e);
}

static int same(const char *what, const struct outcome *a, const struct outcome *b)
{
	int ok = a->n == b->n && memcmp(a->op, b->op, a->n) == 0 && memcmp(a->synd, b->synd, a->n) == 0 &&
		 memcmp(a->vsynd, b->vsynd, a->n) == 0 && memcmp(a->ctr, b->ctr, a->n * sizeof(uint16_t)) == 0 &&
		 memcmp(a->dst, b->dst, DST_BYTES) == 0;

	CHECK(ok, "%s: the device engine's CQE stream or bytes differ from the CPU engine's (%u vs %u CQEs)", what,
	      a->n, b->n);
	for (uint32_t i = 0; !ok && i < a->n && i < b->n; i++)
		if (a->op[i] != b->op[i] || a->synd[i] != b->synd[i] || a->vsynd[i] != b->vsynd[i] || a->ctr[i] != b->ctr[i]) {
			fprintf(stderr, "  first differing CQE %u (CPU/device): opcode %u/%u synd 0x%02x/0x%02x vendor 0x%02x/0x%02x "
				"counter %u/%u\n", i, a->op[i], b->op[i], a->synd[i], b->synd[i], a->vsynd[i], b->vsynd[i],
				a->ctr[i], b->ctr[i]);
			break;
		}
	for (uint32_t i = 0; !ok && i < DST_BYTES; i++)
		if (a->dst[i] != b->dst[i]) {
			fprintf(stderr, "  first differing destination byte %u (CPU/device): 0x%02x/0x%02x\n", i, a->dst[i], b->dst[i]);
			break;
		}
	return ok;
}

static const char *load_api(struct sndev_api *api)
{
#ifndef MARROW_CUDA_SO
	(void)api;
	return "libmarrow_cuda.so is not built here (no nvcc)";
#else
	static char why[512];
	void *h = dlopen(MARROW_CUDA_SO, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		snprintf(why, sizeof(why), "cannot load %s: %s", MARROW_CUDA_SO, dlerror());
		return why;
	}
#define SYM(f, n) (*(void **)&api->f = dlsym(h, n))
	if (!SYM(open, "marrow_softnic_device_open") || !SYM(close, "marrow_softnic_device_close") ||
	    !SYM(cq_create, "marrow_softnic_device_cq_create") || !SYM(qp_create, "marrow_softnic_device_qp_create") ||
	    !SYM(qp_connect, "marrow_softnic_device_qp_connect") || !SYM(mr_reg, "marrow_softnic_device_mr_reg") ||
	    !SYM(host_alloc, "marrow_softnic_device_host_alloc") || !SYM(start, "marrow_softnic_device_start") ||
	    !SYM(stop, "marrow_softnic_device_stop") || !SYM(counters, "marrow_softnic_device_counters") ||
	    !SYM(stages, "marrow_softnic_device_bench_stages") || !SYM(last_error, "marrow_cuda_last_error"))
		return "libmarrow_cuda.so lacks the marrow_softnic_device_* symbols";
#undef SYM
	return NULL;
#endif
}

/* The stage profile (docs/design/device-engine.md §2.1) on GPU-resident
 * queues: every measured WQE profiled with its five stages in order, the
 * engine's span inside the initiator's put+completion, and the engine's
 * counters showing every WRITE (the bench checks each destination too).
 * Profiling is off in the scenarios above: they are the engine as run. */
static void stage_profile(const struct sndev_api *api, uint32_t pointer)
{
	struct marrow_softnic_device_stages_config c = {
		.size = sizeof(c), .nic_sms = 1, .pointer = pointer, .iters = 500, .warmup = 16,
		.timeout_ns = 2000000000ull};
	struct marrow_softnic_device_stages_result r = {.size = sizeof(r)};
	const char *what = pointer ? "stage profile (pointer)" : "stage profile (inline)";
	uint64_t sum = 0;

	REQUIRE(api->stages(&c, &r) == MARROW_OK, "%s: %s", what, api->last_error());
	CHECK(r.iters == c.iters, "%s: %u iterations timed, want %u", what, r.iters, c.iters);
	CHECK(r.profiled == c.iters, "%s: %u WQEs with all five stages, want %u", what, r.profiled, c.iters);
	CHECK(r.engine_writes == c.iters + c.warmup && r.engine_error_cqes == 0, "%s: engine wrote %llu (%llu error "
	      "CQEs), want %u", what, (unsigned long long)r.engine_writes, (unsigned long long)r.engine_error_cqes,
	      c.iters + c.warmup);
	for (int k = 0; k < MARROW_SNDEV_STAGE_ENGINE; k++)
		sum += r.stage_p50_cycles[k];
	CHECK(r.stage_p50_cycles[MARROW_SNDEV_STAGE_ENGINE] > 0 && sum > 0, "%s: no engine time measured", what);
	CHECK(r.stage_p50_cycles[MARROW_SNDEV_STAGE_ENGINE] <= r.putc_p50_cycles, "%s: engine span %llu cycles is "
	      "longer than the initiator's put+completion %llu", what,
	      (unsigned long long)r.stage_p50_cycles[MARROW_SNDEV_STAGE_ENGINE], (unsigned long long)r.putc_p50_cycles);
	CHECK(r.sm_clock_khz > 0, "%s: no SM clock measured", what);
}

/* The sanitizable mode (docs/design/device-engine.md §3.1): with
 * MARROW_SANITIZE=1 the stage profiles, whose initiator is a GPU kernel
 * that compute-sanitizer would run only after the engine's persistent
 * kernel ended, are replaced by put+completion from this CPU thread, so
 * memcheck, racecheck and synccheck see every device-engine scenario. */
static int sanitize_mode(void)
{
	const char *v = getenv("MARROW_SANITIZE");

	return v != NULL && strcmp(v, "1") == 0;
}

static void putc_all(struct engine *e, uint32_t iters)
{
	scenario_putc(e, 0, 8, iters);
	scenario_putc(e, 1, 8, iters);
	scenario_putc(e, 1, 4096, iters);
}

int main(void)
{
	struct engine cpu = {.name = "cpu engine"};
	struct outcome g_cpu, g_dev, e_cpu, e_dev, m_cpu, m_dev, p_cpu, p_dev;
	struct sndev_api api;
	const char *why;

	memset(&g_cpu, 0, sizeof(g_cpu));
	memset(&e_cpu, 0, sizeof(e_cpu));
	memset(&m_cpu, 0, sizeof(m_cpu));
	memset(&p_cpu, 0, sizeof(p_cpu));
	scenario_good(&cpu, &g_cpu);
	scenario_mixed(&cpu, &m_cpu);
	scenario_pointer(&cpu, &p_cpu);
	{
		struct engine cpu2 = {.name = "cpu engine"};   /* counters apart from cpu's, which are compared */

		putc_all(&cpu2, 50);
	}
	scenario_errors(&cpu, &e_cpu);
	if (t_failures)
		return t_finish("test_softnic_device_fidelity (cpu engine)");

	why = load_api(&api);
	if (why == NULL) {
		struct marrow_softnic_device_attr a = {
			.size = sizeof(a), .nic_sms = 1, .queue_memory = MARROW_SNDEV_QUEUES_HOST, .quiet = 1};
		struct marrow_softnic_device *probe = NULL;
		int rc = api.open(&a, &probe);

		if (rc == MARROW_ENODEV)
			why = api.last_error();
		else
			REQUIRE(rc == MARROW_OK && api.close(probe) == MARROW_OK, "device engine probe: %s", api.last_error());
	}
	if (why != NULL) {
		printf("test_softnic_device_fidelity: CPU engine passed; device engine SKIP: %s\n", why);
		return 77;
	}
	/* Both engine layouts (docs/design/device-engine.md §2.4): the same
	 * CQE streams and bytes as the CPU engine, and the same counters as
	 * each other (the lane path counts what the core counts). */
	static const uint32_t layouts[2] = {MARROW_SNDEV_EXEC_THREAD, MARROW_SNDEV_EXEC_LANE};
	static const char *const names[2] = {"device engine (thread layout)", "device engine (lane layout)"};
	uint64_t ctr0[MARROW_EMU_CTR_COUNT];

	for (int l = 0; l < 2; l++) {
		struct engine dev = {.name = names[l], .device = 1, .api = &api, .exec = layouts[l]};

		memset(&g_dev, 0, sizeof(g_dev));
		memset(&e_dev, 0, sizeof(e_dev));
		memset(&m_dev, 0, sizeof(m_dev));
		memset(&p_dev, 0, sizeof(p_dev));
		scenario_good(&dev, &g_dev);
		scenario_mixed(&dev, &m_dev);
		scenario_pointer(&dev, &p_dev);
		scenario_errors(&dev, &e_dev);
		same("good path", &g_cpu, &g_dev);
		same("mixed run", &m_cpu, &m_dev);
		same("pointer WRITEs", &p_cpu, &p_dev);
		same("error path", &e_cpu, &e_dev);
		if (l == 0) {
			memcpy(ctr0, dev.ctr, sizeof(ctr0));
		} else {
			for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++) {
				if (i == MARROW_EMU_CTR_busy_passes || i == MARROW_EMU_CTR_idle_passes)
					continue;   /* passes depend on timing */
				CHECK(dev.ctr[i] == ctr0[i], "counter %d: %llu with the lane layout, %llu with the thread "
				      "layout", i, (unsigned long long)dev.ctr[i], (unsigned long long)ctr0[i]);
			}
			CHECK(dev.ctr[MARROW_EMU_CTR_wqe_rdma_write] == cpu.ctr[MARROW_EMU_CTR_wqe_rdma_write] &&
				      dev.ctr[MARROW_EMU_CTR_cqe_req] == cpu.ctr[MARROW_EMU_CTR_cqe_req],
			      "lane layout: %llu WRITEs, %llu CQEs; the CPU engine %llu, %llu",
			      (unsigned long long)dev.ctr[MARROW_EMU_CTR_wqe_rdma_write],
			      (unsigned long long)dev.ctr[MARROW_EMU_CTR_cqe_req],
			      (unsigned long long)cpu.ctr[MARROW_EMU_CTR_wqe_rdma_write],
			      (unsigned long long)cpu.ctr[MARROW_EMU_CTR_cqe_req]);
		}
		scenario_restart(&dev);
		putc_all(&dev, sanitize_mode() ? 100 : 50);
	}
	if (sanitize_mode()) {
		printf("test_softnic_device_fidelity: MARROW_SANITIZE=1: stage profiles (GPU initiator) not run\n");
	} else {
		stage_profile(&api, 0);
		stage_profile(&api, 1);
	}
	return t_finish("test_softnic_device_fidelity");
}
