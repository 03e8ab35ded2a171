/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * DC transport on the software NIC (docs/design/dc-transport.md): one DCI
 * streams RDMA WRITEs to eight DCTs (each in a PD of its own), switching
 * destination on every WQE, base and extended address vectors, inline and
 * pointer data, the ring wrapping; every byte of every target is compared
 * with a model, guard bytes around each target region never change. Then
 * the errors: a wrong DC key (REMOTE_ACCESS), a DCT number nobody answers
 * to (TRANSPORT_RETRY_EXC after the ACK-timeout retries), an rkey of
 * another DCT's PD (REMOTE_ACCESS), a ds too short for the AV it carries
 * (LOCAL_QP_OP) — each writes nothing and leaves the DCI in ERR.
 */
#include "emu_test_util.h"

#define NDCT 8
#define REGION 4096
#define GUARD 64
#define GUARD_BYTE 0x5A
#define SRC_SLOT 2048
#define MAX_INL 128

struct dct_side {
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *mr;
	struct marrow_emu_dct *dct;
	uint32_t dctn, rkey;
	uint64_t key;
	uint8_t *mem;      /* GUARD + REGION + GUARD bytes; the MR is the middle */
	uint8_t model[REGION];
};

struct ctx {
	struct marrow_emu_device *dev;
	struct marrow_emu_pd *pd;       /* the DCI's */
	struct marrow_emu_mr *smr;
	uint32_t lkey;
	uint8_t *src;                   /* NDCT * SRC_SLOT bytes */
	struct t_cq cq;
	struct t_qp dci;
	struct dct_side d[NDCT];
};

static uint64_t a(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* The AV of target i: base or extended (the GRH part filled with values the
 * engine must skip, not read as the remote address). */
static struct mx_dc_av av_of(const struct ctx *x, int i, int extended, uint64_t key)
{
	struct mx_dc_av av;

	memset(&av, 0, sizeof(av));
	av.dc_key = key;
	av.dctn = x->d[i].dctn;
	av.rlid = (uint16_t)(0x100 + i);
	av.sl = (uint8_t)(i & 0xf);
	av.extended = (uint8_t)extended;
	if (extended) {
		av.sgid_index = 3;
		av.hop_limit = 64;
		av.tclass = 0x28;
		av.flow_label = 0xabcde;
		for (int b = 0; b < 16; b++)
			av.rgid[b] = (uint8_t)(0xf0 ^ (b * 17 + i));
	}
	return av;
}

/* Posts one DC RDMA WRITE (inline when sg is NULL, else one pointer
 * segment) with ds from mx_ds_dc_*; ds_override != 0 replaces it (for the
 * malformed case). Returns the WQE's start counter. */
static uint16_t dc_post(struct t_qp *q, const struct mx_dc_av *av, uint64_t raddr, uint32_t rkey,
			const uint8_t *data, uint32_t len, const struct t_sge *sg, uint32_t ds_override)
{
	uint8_t w[16 * 64];
	uint16_t c = q->pi;
	uint32_t avsz = mx_dc_av_size(av);
	uint32_t ds = sg ? mx_ds_dc_pointer_write(av, 1) : mx_ds_dc_inline_write(av, len);
	uint32_t off = MX_CTRL_SEG_SIZE + avsz;

	memset(w, 0, sizeof(w));
	if (ds_override)
		ds = ds_override;
	mx_set_ctrl_seg(w, c, MX_OPCODE_RDMA_WRITE, 0, q->v.qpn, MX_CTRL_CQ_UPDATE, (uint8_t)ds, 0, 0);
	REQUIRE(mx_set_dc_av_seg(w + MX_CTRL_SEG_SIZE, av) == (int)avsz, "mx_set_dc_av_seg refused the AV");
	mx_set_raddr_seg(w + off, raddr, rkey);
	off += MX_RADDR_SEG_SIZE;
	if (sg) {
		mx_set_data_seg(w + off, sg->len, sg->lkey, sg->addr);
	} else {
		mx_set_inline_hdr(w + off, len);
		memcpy(w + off + MX_INLINE_HDR_SIZE, data, len);
	}
	t_wqe_copy(q, c, 0, w, mx_wqebbs(ds) * MX_WQEBB_SIZE);
	q->pi = (uint16_t)(c + mx_wqebbs(ds));
	return c;
}

static void check_targets(const struct ctx *x, const char *when)
{
	for (int i = 0; i < NDCT; i++) {
		const struct dct_side *d = &x->d[i];
		int bad = -1;

		for (int b = 0; b < GUARD && bad < 0; b++)
			if (d->mem[b] != GUARD_BYTE || d->mem[GUARD + REGION + b] != GUARD_BYTE)
				bad = b;
		CHECK(bad < 0, "%s: DCT %d: guard byte %d changed", when, i, bad);
		bad = -1;
		for (int b = 0; b < REGION && bad < 0; b++)
			if (d->mem[GUARD + b] != d->model[b])
				bad = b;
		CHECK(bad < 0, "%s: DCT %d (0x%x): byte %d is 0x%02x, expected 0x%02x", when, i, d->dctn, bad,
		      bad < 0 ? 0 : d->mem[GUARD + bad], bad < 0 ? 0 : d->model[bad]);
	}
}

static void make_dci(struct ctx *x)
{
	struct marrow_emu_qp_attr qa = {
		.size = sizeof(qa), .send_cq = x->cq.cq, .log_sq_wqebb_cnt = 6,
		.max_inline_data = MAX_INL, .access = MARROW_ACCESS_LOCAL_WRITE,
	};

	memset(&x->dci, 0, sizeof(x->dci));
	OK(marrow_emu_dci_create(x->pd, &qa, &x->dci.qp, &x->dci.v));
	OK(marrow_emu_qp_modify(x->dci.qp, MARROW_QPS_INIT, 0));
	OK(marrow_emu_qp_modify(x->dci.qp, MARROW_QPS_RTR, 0));   /* no peer: a DCI has none */
	OK(marrow_emu_qp_modify(x->dci.qp, MARROW_QPS_RTS, 0));
}

static void setup(struct ctx *x)
{
	uint64_t seed = 77;

	memset(x, 0, sizeof(*x));
	x->dev = t_open(MARROW_EMU_POLL_IDLE, 2);
	OK(marrow_emu_device_time_divisor(x->dev, 1000));
	OK(marrow_emu_pd_alloc(x->dev, &x->pd));
	x->src = t_alloc(NDCT * SRC_SLOT, 0);
	OK(marrow_emu_mr_reg(x->pd, x->src, NDCT * SRC_SLOT, MARROW_ACCESS_LOCAL_WRITE, &x->smr, &x->lkey,
			     NULL));
	t_cq_create(x->dev, 6, 0, &x->cq);
	for (int i = 0; i < NDCT; i++) {
		struct dct_side *d = &x->d[i];
		struct marrow_emu_dct_attr da = { .size = sizeof(da), .access = MARROW_ACCESS_REMOTE_WRITE };

		OK(marrow_emu_pd_alloc(x->dev, &d->pd));
		d->mem = t_alloc(GUARD + REGION + GUARD, GUARD_BYTE);
		OK(marrow_emu_mr_reg(d->pd, d->mem + GUARD, REGION,
				     MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &d->mr, NULL, &d->rkey));
		memset(d->mem + GUARD, GUARD_BYTE, REGION);
		memset(d->model, GUARD_BYTE, REGION);
		d->key = t_rand(&seed);
		da.dc_key = d->key;
		OK(marrow_emu_dct_create(d->pd, &da, &d->dct, &d->dctn));
	}
	make_dci(x);
}

static void teardown(struct ctx *x)
{
	OK(marrow_emu_qp_destroy(x->dci.qp));
	for (int i = 0; i < NDCT; i++) {
		if (x->d[i].dct)
			OK(marrow_emu_dct_destroy(x->d[i].dct));
		OK(marrow_emu_mr_dereg(x->d[i].mr));
		OK(marrow_emu_pd_free(x->d[i].pd));
		free(x->d[i].mem);
	}
	OK(marrow_emu_mr_dereg(x->smr));
	OK(marrow_emu_cq_destroy(x->cq.cq));
	OK(marrow_emu_pd_free(x->pd));
	OK(marrow_emu_device_close(x->dev));
	free(x->src);
}

/* One DCI, eight DCTs: every WQE to the next target, AV form, data kind
 * and size drawn at random; a batch of 8 per doorbell, every WQE signaled. */
static void test_stream(struct ctx *x)
{
	uint64_t seed = 4242;
	uint32_t counts[2][2] = { { 0, 0 }, { 0, 0 } };   /* [extended][pointer] */
	struct t_ctrs c0 = t_counters(x->dev), c1;
	const int rounds = 300;

	for (int r = 0; r < rounds; r++) {
		uint16_t at[NDCT];

		for (int k = 0; k < NDCT; k++) {
			int i = (k * 3 + r) % NDCT;   /* a different target order every round */
			struct dct_side *d = &x->d[i];
			int ext = (int)(t_rand(&seed) & 1), ptr = (int)(t_rand(&seed) & 1);
			uint32_t len = ptr ? 1 + (uint32_t)(t_rand(&seed) % SRC_SLOT)
					   : 1 + (uint32_t)(t_rand(&seed) % MAX_INL);
			uint32_t off = (uint32_t)(t_rand(&seed) % (REGION - len + 1));
			uint8_t *s = x->src + (size_t)k * SRC_SLOT;
			struct mx_dc_av av = av_of(x, i, ext, d->key);
			struct t_sge sg = { a(s), len, x->lkey };

			for (uint32_t b = 0; b < len; b++)
				s[b] = (uint8_t)t_rand(&seed);
			memcpy(d->model + off, s, len);
			at[k] = dc_post(&x->dci, &av, a(d->mem + GUARD + off), d->rkey, s, len, ptr ? &sg : NULL, 0);
			counts[ext][ptr]++;
		}
		t_ring(&x->dci);
		for (int k = 0; k < NDCT; k++)
			if (!t_expect_cqe(&x->cq, MX_CQE_REQ, 0, x->dci.v.qpn, at[k], NULL))
				return;
	}
	check_targets(x, "stream");
	c1 = t_counters_settled(x->dev);
	CHECK_DELTA(c0, c1, wqe_rdma_write, rounds * NDCT);
	CHECK_DELTA(c0, c1, cqe_req, rounds * NDCT);
	CHECK_DELTA(c0, c1, cqe_req_err, 0);
	CHECK(counts[0][0] && counts[0][1] && counts[1][0] && counts[1][1],
	      "stream did not mix base/extended AVs with inline/pointer data");
	CHECK(t_qp_state(&x->dci) == MARROW_QPS_RTS, "DCI left RTS after a clean stream");
	printf("  ok stream: %d WQEs to %d DCTs (base/ext x inline/pointer: %u %u %u %u)\n", rounds * NDCT,
	       NDCT, counts[0][0], counts[0][1], counts[1][0], counts[1][1]);
}

/* A failing WQE: error CQE with synd (vendor vsynd), nothing written, the
 * DCI in ERR; a later good WQE is flushed. Then the DCI is recreated. */
static void expect_fail(struct ctx *x, const char *what, uint8_t synd, uint8_t vsynd, int bad_ds,
			struct mx_dc_av av, int target, uint32_t rkey)
{
	uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t cqe[64];
	struct dct_side *d = &x->d[target];
	uint16_t c, c2;
	struct mx_dc_av good = av_of(x, 0, 0, x->d[0].key);

	c = dc_post(&x->dci, &av, a(d->mem + GUARD + 8), rkey, data, 8, NULL, bad_ds);
	c2 = dc_post(&x->dci, &good, a(x->d[0].mem + GUARD + 16), x->d[0].rkey, data, 8, NULL, 0);
	t_ring(&x->dci);
	if (t_expect_cqe(&x->cq, MX_CQE_REQ_ERR, synd, x->dci.v.qpn, c, cqe)) {
		CHECK(mx_cqe_vendor_syndrome(cqe) == vsynd, "%s: vendor syndrome 0x%02x, expected 0x%02x", what,
		      mx_cqe_vendor_syndrome(cqe), vsynd);
		printf("  ok %s: syndrome 0x%02x vendor 0x%02x\n", what, synd, mx_cqe_vendor_syndrome(cqe));
	}
	t_expect_cqe(&x->cq, MX_CQE_REQ_ERR, MX_SYND_WR_FLUSH, x->dci.v.qpn, c2, NULL);
	CHECK(t_qp_state(&x->dci) == MARROW_QPS_ERR, "%s: DCI not in ERR", what);
	check_targets(x, what);
	OK(marrow_emu_qp_destroy(x->dci.qp));
	make_dci(x);
}

static void test_errors(struct ctx *x)
{
	struct mx_dc_av av;

	/* Wrong DC key, base and extended AV. */
	av = av_of(x, 2, 0, x->d[2].key ^ 1);
	expect_fail(x, "wrong DC key (base AV)", MX_SYND_REMOTE_ACCESS, 0xE7, 0, av, 2, x->d[2].rkey);
	av = av_of(x, 5, 1, x->d[3].key);   /* another DCT's key */
	expect_fail(x, "wrong DC key (extended AV)", MX_SYND_REMOTE_ACCESS, 0xE7, 0, av, 5, x->d[5].rkey);
	/* The rkey of DCT 1's region sent to DCT 4: not in DCT 4's PD. */
	av = av_of(x, 4, 1, x->d[4].key);
	expect_fail(x, "rkey of another DCT's PD", MX_SYND_REMOTE_ACCESS, 0xE4, 0, av, 1, x->d[1].rkey);
	/* An rkey nobody registered. */
	av = av_of(x, 6, 0, x->d[6].key);
	expect_fail(x, "unknown rkey", MX_SYND_REMOTE_ACCESS, 0xE4, 0, av, 6, 0x7777700u | 0x33);
	/* Unknown DCT: a number in no table (nothing answers). Timers at
	 * time divisor 1000: timeout 10 (4.2 ms / 1000), retry_cnt 2. */
	OK(marrow_emu_qp_set_timers(x->dci.qp, 10, 2, 6, 12));
	av = av_of(x, 0, 0, x->d[0].key);
	av.dctn = 0xabcdef;
	expect_fail(x, "unknown DCT", MX_SYND_TRANSPORT_RETRY_EXC, 0xED, 0, av, 0, x->d[0].rkey);
	/* A destroyed DCT: its number finds nothing any more. */
	OK(marrow_emu_qp_set_timers(x->dci.qp, 10, 2, 6, 12));
	av = av_of(x, 7, 1, x->d[7].key);
	OK(marrow_emu_dct_destroy(x->d[7].dct));
	x->d[7].dct = NULL;
	expect_fail(x, "destroyed DCT", MX_SYND_TRANSPORT_RETRY_EXC, 0xED, 0, av, 7, x->d[7].rkey);
	/* ds counting only part of an extended AV: ctrl + 48 B AV + raddr is 5
	 * units, ds 4 (an RC write's ds plus one) cannot hold it. */
	av = av_of(x, 3, 1, x->d[3].key);
	expect_fail(x, "ds short of the extended AV", MX_SYND_LOCAL_QP_OP, 0xE8, 4, av, 3, x->d[3].rkey);
	/* ds 2: not even the base AV and raddr. */
	av = av_of(x, 3, 0, x->d[3].key);
	expect_fail(x, "ds short of the base AV", MX_SYND_LOCAL_QP_OP, 0xE8, 2, av, 3, x->d[3].rkey);
}

/* ds counts the AV: 1 unit (base) or 3 (extended) more than an RC WRITE. */
static void test_ds(void)
{
	struct mx_dc_av base = { .dctn = 1 }, ext = { .dctn = 1, .extended = 1 };

	CHECK(mx_ds_dc_inline_write(&base, 8) == 4 && mx_ds_inline_write(8) == 3,
	      "8 B inline: DC base ds %u, RC ds %u", mx_ds_dc_inline_write(&base, 8), mx_ds_inline_write(8));
	CHECK(mx_ds_dc_inline_write(&ext, 8) == 6, "8 B inline, extended AV: ds %u",
	      mx_ds_dc_inline_write(&ext, 8));
	CHECK(mx_ds_dc_pointer_write(&base, 1) == 4 && mx_ds_dc_pointer_write(&ext, 1) == 6,
	      "pointer: ds %u / %u", mx_ds_dc_pointer_write(&base, 1), mx_ds_dc_pointer_write(&ext, 1));
	CHECK(mx_ds_dc_inline_write(&ext, MAX_INL) == (16 + 48 + 16 + 4 + MAX_INL + 15) / 16,
	      "%u B inline, extended AV: ds %u", MAX_INL, mx_ds_dc_inline_write(&ext, MAX_INL));
}

/* Control path: DCT numbers come from the QPN space, a DCI has no RQ, a PD
 * with a DCT cannot be freed. */
static void test_control(struct ctx *x)
{
	struct marrow_emu_qp_attr qa = {
		.size = sizeof(qa), .send_cq = x->cq.cq, .recv_cq = x->cq.cq, .log_sq_wqebb_cnt = 6,
		.log_rq_wqe_cnt = 2, .max_rq_sge = 1,
	};
	struct marrow_emu_dct_attr da = { .size = sizeof(da), .comp_mask = 1 };
	struct marrow_emu_qp *q = NULL;
	struct marrow_emu_dct *d = NULL;
	struct marrow_emu_pd *pd = NULL;
	struct marrow_qp_view v;
	uint32_t n;

	for (int i = 0; i < NDCT; i++) {
		CHECK(x->d[i].dctn != x->dci.v.qpn && x->d[i].dctn <= 0xffffff, "DCT %d number 0x%x", i,
		      x->d[i].dctn);
		for (int j = 0; j < i; j++)
			CHECK(x->d[i].dctn != x->d[j].dctn, "DCTs %d and %d share number 0x%x", i, j, x->d[i].dctn);
	}
	FAILS(MARROW_EINVAL, marrow_emu_dci_create(x->pd, &qa, &q, &v));
	FAILS(MARROW_EINVAL, marrow_emu_dct_create(x->d[0].pd, &da, &d, &n));
	/* A PD holding nothing but a DCT. */
	OK(marrow_emu_pd_alloc(x->dev, &pd));
	da.comp_mask = 0;
	OK(marrow_emu_dct_create(pd, &da, &d, &n));
	FAILS(MARROW_EBUSY, marrow_emu_pd_free(pd));
	OK(marrow_emu_dct_destroy(d));
	OK(marrow_emu_pd_free(pd));
	FAILS(MARROW_EINVAL, marrow_emu_dct_destroy(NULL));
}

int main(void)
{
	struct ctx *x = calloc(1, sizeof(*x));

	REQUIRE(x != NULL, "out of memory");
	test_ds();
	setup(x);
	test_control(x);
	test_stream(x);
	test_errors(x);
	teardown(x);
	free(x);
	return t_finish("test_softnic_dc");
}
