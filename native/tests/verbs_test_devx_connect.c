/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_mlx5_gpu_qp_connect / _reset (mlx5_devx_api.c) end to end without a
 * NIC: the loaded symbol table's port query and DevX entry points are
 * replaced by fakes that record every command box, and a GPU QP is built by
 * hand around them. Checked, with mlx5_prm.h's field accessors on the
 * recorded boxes:
 *  - RoCE priority: sl -> ads.eth_prio, traffic_class -> ads.tclass and (RoCE
 *    v2) ads.dscp = tc >> 2, no grh bit; InfiniBand: sl -> ads.sl;
 *  - the connect-parameter checker the verbs path uses refuses every value
 *    out of range before any command is issued (timeout 0, rnr_retry 7,
 *    retry_cnt 9, hop_limit 0, depths above the caps, an IB peer on a RoCE
 *    port, QPN 1 and 25-bit QPN/PSN, a RoCE peer without GID, sl 8 on RoCE),
 *    naming the parameter, its value and its range;
 *  - read/atomic depths: rounded down (3 -> log2 1), default 16 clamped to
 *    the HCA caps;
 *  - reset: 2RST_QP, then connect brings the QP back with the same boxes.
 * docs/design/mlx5-queue-formats.md §5.5, §6.1, §7.4. One translation unit,
 * as verbs_test_mlx5_attrs.
 */
#define _GNU_SOURCE
#include "verbs/verbs_loader.c"
#undef _DEFAULT_SOURCE
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "verbs/verbs_probe.c"
#include "verbs/mlx5_attr.c"
#include "verbs/mlx5_device.c"
#include "verbs/mlx5_qp.c"
#include "verbs/mlx5_devx_qp.c"
#include "verbs/mlx5_devx_api.c"
#include "verbs/verbs_abi.c"

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			failures++;					\
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__,	\
				__LINE__, #cond);			\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

#define ERR_HAS(s) (strstr(marrow_last_error(), (s)) != NULL)

/* ---- fakes ------------------------------------------------------------- */
static uint8_t boxes[16][PRM_MODIFY_QP_IN_BYTES];
static size_t box_len[16];
static int nbox;
static int port_link_layer = IBV_LINK_LAYER_ETHERNET;
static int obj; /* the fake QP object: address only */
static uint8_t dbr[128];

static int f_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *pa)
{
	(void)c;
	(void)port;
	memset(pa, 0, sizeof(*pa));
	pa->state = IBV_PORT_ACTIVE;
	pa->active_mtu = IBV_MTU_4096;
	pa->link_layer = (uint8_t)port_link_layer;
	pa->lid = port_link_layer == IBV_LINK_LAYER_ETHERNET ? 0 : 9;
	return 0;
}

static int f_obj_modify(struct mlx5dv_devx_obj *o, const void *in, size_t inlen, void *out, size_t outlen)
{
	(void)o;
	if (nbox < 16 && inlen <= sizeof(boxes[0])) {
		memcpy(boxes[nbox], in, inlen);
		box_len[nbox++] = inlen;
	}
	memset(out, 0, outlen);
	return 0;
}

static uint8_t cq_ring[64 * 4];

static int copy_fn(void *ctx, void *dst, const void *src, size_t n)
{
	(void)ctx;
	memcpy(dst, src, n);
	return 0;
}

static struct marrow_mlx5_device dev;
static struct marrow_mlx5_gpu_qp gq;

/* A RoCE v2 device (GID index 3) and a DevX QP 0xa51 in RESET whose caps
 * give depths 16 (requester) and 8 (responder). */
static void setup(int link_layer)
{
	struct verbs_syms *s = (struct verbs_syms *)verbs_syms_get();

	s->query_port = f_query_port;
	s->devx.obj_modify = f_obj_modify;
	port_link_layer = link_layer;
	memset(&dev, 0, sizeof(dev));
	pthread_mutex_init(&dev.lock, NULL);
	snprintf(dev.name, sizeof(dev.name), "fake_mlx5");
	dev.port = 1;
	dev.gid_index = 3;
	dev.gid_roce_v2 = 1;
	memset(&gq, 0, sizeof(gq));
	gq.dev = &dev;
	gq.psn = 0x4321;
	gq.access = IBV_ACCESS_REMOTE_WRITE;
	gq.q.f = &s->devx;
	gq.q.qp = (struct mlx5dv_devx_obj *)&obj;
	gq.q.qpn = 0xa51;
	gq.q.state = IBV_QPS_RESET;
	gq.q.spec.caps.max_rd_atomic = 16;
	gq.q.spec.caps.max_dest_rd_atomic = 8;
	gq.q.spec.dbr.addr = dbr;
	gq.q.spec.cq.addr = cq_ring;
	gq.q.spec.log_cqe_cnt = 2;
	devx_cq_image(cq_ring, 4);
	gq.q.spec.copy.to_gpu = copy_fn;
	gq.q.spec.copy.from_gpu = copy_fn;
	nbox = 0;
}

static struct marrow_mlx5_peer_info roce_peer(void)
{
	/* link-local GID: the MAC comes from it, no address handle needed */
	static const uint8_t gid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
	struct marrow_mlx5_peer_info p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.qpn = 0x777;
	p.psn = 0x1234;
	p.link_layer = IBV_LINK_LAYER_ETHERNET;
	p.mtu = IBV_MTU_1024;
	memcpy(p.gid, gid, 16);
	return p;
}

static struct marrow_mlx5_conn_params params(void)
{
	struct marrow_mlx5_conn_params k = {.size = sizeof(k)};

	marrow_mlx5_conn_params_default(&k);
	return k;
}

/* Fields of a recorded modify box (the QPC at 0xc0, its primary path at 0xc0 inside). */
#define QPC_F(box, f) prm_get32(boxes[box], PRM_MODIFY_QP_QPC + f)
#define ADS_F(box, f) prm_get32(boxes[box], PRM_MODIFY_QP_QPC + PRM_QPC_PRI_PATH + f)

static void roce_priority_reaches_the_address_path(void)
{
	struct marrow_mlx5_peer_info p = roce_peer();
	struct marrow_mlx5_conn_params k = params();

	setup(IBV_LINK_LAYER_ETHERNET);
	k.sl = 5;
	k.traffic_class = 0x6a; /* DSCP 26 (AF31), ECN bits 2 */
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, &p, &k) == MARROW_OK, "connect: %s", marrow_last_error());
	CHECK(nbox == 3, "RST2INIT, INIT2RTR, RTR2RTS: %d boxes", nbox);
	CHECK(prm_get32(boxes[1], PRM_IN_OPCODE) == PRM_OP_INIT2RTR_QP, "box 1 is INIT2RTR");
	CHECK(ADS_F(1, PRM_ADS_ETH_PRIO) == 5, "ads.eth_prio %u, want sl 5", ADS_F(1, PRM_ADS_ETH_PRIO));
	CHECK(ADS_F(1, PRM_ADS_DSCP) == 0x1a, "ads.dscp 0x%x, want 0x6a >> 2", ADS_F(1, PRM_ADS_DSCP));
	CHECK(ADS_F(1, PRM_ADS_TCLASS) == 0x6a, "ads.tclass 0x%x", ADS_F(1, PRM_ADS_TCLASS));
	CHECK(ADS_F(1, PRM_ADS_GRH) == 0, "ads.grh %u: RoCE leaves it 0", ADS_F(1, PRM_ADS_GRH));
	CHECK(ADS_F(1, PRM_ADS_SL) == 0, "ads.sl %u is the IB field", ADS_F(1, PRM_ADS_SL));
	CHECK(ADS_F(1, PRM_ADS_HOP_LIMIT) == 64 && ADS_F(1, PRM_ADS_SRC_ADDR_INDEX) == 3 &&
	      ADS_F(1, PRM_ADS_RMAC_31_0) == 0x22334455, "hop limit %u, sgid index %u, rmac low 0x%x",
	      ADS_F(1, PRM_ADS_HOP_LIMIT), ADS_F(1, PRM_ADS_SRC_ADDR_INDEX), ADS_F(1, PRM_ADS_RMAC_31_0));

	/* RoCE v1 GID: no DSCP (no IP header to carry it) */
	setup(IBV_LINK_LAYER_ETHERNET);
	dev.gid_roce_v2 = 0;
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, &p, &k) == MARROW_OK && ADS_F(1, PRM_ADS_DSCP) == 0 &&
	      ADS_F(1, PRM_ADS_ETH_PRIO) == 5, "RoCE v1: dscp %u eth_prio %u", ADS_F(1, PRM_ADS_DSCP),
	      ADS_F(1, PRM_ADS_ETH_PRIO));

	/* InfiniBand: sl in the 4-bit sl field */
	setup(IBV_LINK_LAYER_INFINIBAND);
	p = roce_peer();
	p.link_layer = IBV_LINK_LAYER_INFINIBAND;
	p.lid = 0x42;
	memset(p.gid, 0, 16);
	k.sl = 11;
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, &p, &k) == MARROW_OK, "IB connect: %s", marrow_last_error());
	CHECK(ADS_F(1, PRM_ADS_SL) == 11 && ADS_F(1, PRM_ADS_ETH_PRIO) == 0 && ADS_F(1, PRM_ADS_RLID) == 0x42,
	      "IB: ads.sl %u eth_prio %u rlid 0x%x", ADS_F(1, PRM_ADS_SL), ADS_F(1, PRM_ADS_ETH_PRIO),
	      ADS_F(1, PRM_ADS_RLID));
}

/* One refusal: EINVAL, the message names the parameter/value/range, no box issued. */
static void refused(const char *what, const struct marrow_mlx5_peer_info *p, const struct marrow_mlx5_conn_params *k,
		    const char *msg)
{
	setup(port_link_layer);
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, p, k) == MARROW_EINVAL && ERR_HAS(msg) && nbox == 0,
	      "%s: want EINVAL with '%s' and no command; got '%s', %d commands", what, msg, marrow_last_error(), nbox);
	CHECK(gq.q.state == IBV_QPS_RESET, "%s: the QP stays in RESET", what);
}

static void out_of_range_parameters_are_refused(void)
{
	struct marrow_mlx5_peer_info p = roce_peer(), bad;
	struct marrow_mlx5_conn_params k;

	port_link_layer = IBV_LINK_LAYER_ETHERNET;
	k = params(); k.timeout = 0;
	refused("timeout 0", &p, &k, "timeout 0 outside 1..31");
	k = params(); k.rnr_retry = 7;
	refused("rnr_retry 7", &p, &k, "rnr_retry 7 outside 0..6");
	k = params(); k.retry_cnt = 9;
	refused("retry_cnt 9", &p, &k, "retry_cnt 9 outside 0..7");
	k = params(); k.hop_limit = 0;
	refused("hop_limit 0", &p, &k, "hop_limit 0 outside 1..255");
	k = params(); k.max_rd_atomic = 32;
	refused("max_rd_atomic 32", &p, &k, "max_rd_atomic 32 outside 1..16");
	k = params(); k.max_dest_rd_atomic = 16; /* the responder cap is 8 here */
	refused("max_dest_rd_atomic 16", &p, &k, "max_dest_rd_atomic 16 outside 1..8");
	k = params(); k.sl = 8;
	refused("sl 8 on RoCE", &p, &k, "sl 8 outside 0..7 on RoCE");
	k = params();
	bad = p; bad.link_layer = IBV_LINK_LAYER_INFINIBAND; bad.lid = 7;
	refused("IB peer on a RoCE port", &bad, &k, "link layers differ");
	bad = p; bad.qpn = 1;
	refused("remote QPN 1", &bad, &k, "peer QPN 0x1 outside 0x2..0xffffff");
	bad = p; bad.qpn = 0x1000000;
	refused("25-bit remote QPN", &bad, &k, "peer QPN 0x1000000 outside");
	bad = p; bad.psn = 0x1000000;
	refused("25-bit PSN", &bad, &k, "peer PSN 0x1000000 outside 0..0xffffff");
	bad = p; memset(bad.gid, 0, 16);
	refused("RoCE peer without GID", &bad, &k, "all-zero GID");
}

static void depths_round_down_and_default_to_16_clamped(void)
{
	struct marrow_mlx5_peer_info p = roce_peer();
	struct marrow_mlx5_conn_params k = params();

	setup(IBV_LINK_LAYER_ETHERNET);
	k.max_rd_atomic = 3;
	k.max_dest_rd_atomic = 3;
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, &p, &k) == MARROW_OK, "connect: %s", marrow_last_error());
	CHECK(QPC_F(1, PRM_QPC_LOG_RRA_MAX) == 1 && QPC_F(2, PRM_QPC_LOG_SRA_MAX) == 1,
	      "depth 3 -> 2: log_rra_max %u, log_sra_max %u", QPC_F(1, PRM_QPC_LOG_RRA_MAX),
	      QPC_F(2, PRM_QPC_LOG_SRA_MAX));
	setup(IBV_LINK_LAYER_ETHERNET);
	k = params(); /* the default: 16, clamped to the caps 16 / 8 */
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, &p, &k) == MARROW_OK, "connect: %s", marrow_last_error());
	CHECK(QPC_F(2, PRM_QPC_LOG_SRA_MAX) == 4 && QPC_F(1, PRM_QPC_LOG_RRA_MAX) == 3,
	      "default depths: log_sra_max %u (want 4), log_rra_max %u (want 3, the cap)",
	      QPC_F(2, PRM_QPC_LOG_SRA_MAX), QPC_F(1, PRM_QPC_LOG_RRA_MAX));
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, NULL, NULL) == MARROW_EINVAL, "NULL peer");
}

/* ERR -> RST -> INIT -> RTR -> RTS through the public calls. */
static void reset_then_connect_recovers(void)
{
	struct marrow_mlx5_peer_info p = roce_peer();
	struct marrow_mlx5_conn_params k = params();

	setup(IBV_LINK_LAYER_ETHERNET);
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, &p, &k) == MARROW_OK, "connect: %s", marrow_last_error());
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, &p, &k) == MARROW_EINVAL, "connect from RTS is refused");
	gq.q.state = IBV_QPS_ERR;
	memset(dbr, 0x5a, sizeof(dbr)); /* CQ consumer index 0x5a5a5a: slot 2 of 4, lap 0 of its bit 2 */
	CHECK(marrow_mlx5_gpu_qp_reset(&gq) == MARROW_OK, "reset: %s", marrow_last_error());
	CHECK(nbox == 4 && box_len[3] == PRM_2RST_QP_IN_BYTES && prm_get32(boxes[3], PRM_IN_OPCODE) == PRM_OP_2RST_QP &&
	      prm_get32(boxes[3], PRM_2RST_QP_QPN) == 0xa51, "2RST_QP of QP 0xa51 (%d boxes)", nbox);
	CHECK(dbr[0] == 0 && dbr[7] == 0 && dbr[8] == 0x5a && dbr[DEVX_CQ_DBR_OFFSET] == 0x5a,
	      "QP DBR cleared, CQ DBR kept");
	CHECK(marrow_mlx5_gpu_qp_connect(&gq, &p, &k) == MARROW_OK, "connect after reset: %s", marrow_last_error());
	CHECK(nbox == 7 && gq.q.state == IBV_QPS_RTS, "three more boxes (%d), state %d", nbox, gq.q.state);
	for (int i = 0; i < 3; i++)
		CHECK(memcmp(boxes[4 + i], boxes[i], PRM_MODIFY_QP_IN_BYTES) == 0, "transition %d repeats its box", i);
	CHECK(marrow_mlx5_gpu_qp_reset(NULL) == MARROW_EINVAL, "NULL QP");
}

int main(void)
{
	/* The loader runs once (with or without libibverbs on this host);
	 * setup() then puts the fakes into its table. */
	verbs_syms_get();
	roce_priority_reaches_the_address_path();
	out_of_range_parameters_are_refused();
	depths_round_down_and_default_to_16_clamped();
	reset_then_connect_recovers();
	if (failures) {
		fprintf(stderr, "verbs_test_devx_connect: %d check(s) failed\n", failures);
		return 1;
	}
	printf("verbs_test_devx_connect: all checks passed\n");
	return 0;
}
