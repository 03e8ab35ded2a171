/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_mlx5.h without a NIC: the ibv_modify_qp attributes and masks built
 * for INIT/RTR/RTS (IB and RoCE, GRH choice, PSN/QPN masks, MTU choice),
 * refusal of bad input, GID choice, and the "no device" answer of
 * marrow_mlx5_device_open on this host. Where an mlx5 NIC exists the last
 * part instead creates a QP and checks its views, so the test passes there.
 *
 * The sources are compiled into this test (one translation unit) so it
 * needs neither a NIC nor the built shim; the masks are compared with the
 * numeric values of docs/design/mlx5-queue-formats.md §5.4, not with the same
 * macros.
 */
#define _GNU_SOURCE
#include "verbs/verbs_loader.c"
#undef _DEFAULT_SOURCE /* features.h set it; verbs_probe.c sets it again */
/* One translation unit lets gcc see the loader's long strings flow into the
 * probe's fields; truncation there is intended (snprintf). */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "verbs/verbs_probe.c"
#include "verbs/mlx5_attr.c"
#include "verbs/mlx5_device.c"
#include "verbs/mlx5_qp.c"
#include "verbs/mlx5_devx_qp.c"
#include "verbs/mlx5_devx_api.c"
#include "verbs/verbs_abi.c" /* the layout table marrow_abi_query reads */

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

/* Reference masks (attr-mask bits of docs/design/mlx5-queue-formats.md §5.4). */
#define REF_INIT_MASK (1 | (1 << 4) | (1 << 5) | (1 << 3))
#define REF_RTR_MASK (1 | (1 << 7) | (1 << 8) | (1 << 20) | (1 << 12) | (1 << 17) | (1 << 15))
#define REF_RTS_MASK (1 | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 16) | (1 << 13))

static struct mlx5_local_end ib_local(void)
{
	struct mlx5_local_end l = {
		.port = 1, .link_layer = 1, .active_mtu = 5, .sgid_index = 0,
		.psn = 0x123456, .access = 1 | 2 | 4,
		.max_rd_atomic = 16, .max_dest_rd_atomic = 16,
	};
	return l;
}

static struct marrow_mlx5_peer_info ib_peer(void)
{
	struct marrow_mlx5_peer_info p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.qpn = 0x1a2b3;
	p.psn = 0xabcdef;
	p.lid = 7;
	p.link_layer = 1;
	p.mtu = 3;
	return p;
}

static struct marrow_mlx5_conn_params defaults(void)
{
	struct marrow_mlx5_conn_params k = { .size = sizeof(k) };

	marrow_mlx5_conn_params_default(&k);
	return k;
}

static void test_defaults(void)
{
	struct marrow_mlx5_conn_params k = { .size = 8 };

	CHECK(marrow_mlx5_conn_params_default(&k) == MARROW_EINVAL, "small size accepted");
	k = defaults();
	CHECK(k.size == sizeof(k) && k.timeout == 14 && k.retry_cnt == 7 && k.rnr_retry == 6 &&
	      k.path_mtu == 0 && k.hop_limit == 64 && k.max_rd_atomic == 0 && k.max_dest_rd_atomic == 0, "defaults %u %u %u",
	      k.timeout, k.retry_cnt, k.rnr_retry);
}

static void test_init(void)
{
	struct mlx5_local_end l = ib_local();
	struct marrow_mlx5_conn_params k = defaults();
	struct ibv_qp_attr a;
	int mask = -1;

	CHECK(mlx5_build_qp_attr(IBV_QPS_INIT, &l, NULL, &k, &a, &mask) == MARROW_OK, "%s", marrow_last_error());
	CHECK(mask == REF_INIT_MASK, "INIT mask 0x%x", mask);
	/* local write (1) is an MR right, not a QP one: masked off */
	CHECK(a.qp_state == IBV_QPS_INIT && a.port_num == 1 && a.pkey_index == 0 &&
	      a.qp_access_flags == 6, "INIT attr state %d port %u access %u", a.qp_state, a.port_num,
	      a.qp_access_flags);
}

static void test_rtr_ib(void)
{
	struct mlx5_local_end l = ib_local();
	struct marrow_mlx5_peer_info p = ib_peer();
	struct marrow_mlx5_conn_params k = defaults();
	struct ibv_qp_attr a;
	int mask;

	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_OK, "%s", marrow_last_error());
	CHECK(mask == REF_RTR_MASK, "RTR mask 0x%x", mask);
	CHECK(a.qp_state == IBV_QPS_RTR && a.dest_qp_num == 0x1a2b3 && a.rq_psn == 0xabcdef, "RTR ids");
	CHECK(a.path_mtu == IBV_MTU_1024, "mtu = min(local 4096, peer 1024), got %d", a.path_mtu);
	CHECK(a.ah_attr.dlid == 7 && a.ah_attr.port_num == 1 && a.ah_attr.is_global == 0, "IB AV without GRH");
	CHECK(a.max_dest_rd_atomic == 16 && a.min_rnr_timer == 12, "rd atomic (default 16) / rnr timer: %u",
	      a.max_dest_rd_atomic);

	/* A GID alone does not force a GRH on IB while the LID routes... */
	p.gid[0] = 0xfe;
	p.gid[1] = 0x80;
	p.gid[15] = 0x01;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_OK && !a.ah_attr.is_global,
	      "LID-routed IB peer got a GRH");
	/* ...a LID-less peer with a GID does, and so does the flag. */
	p.lid = 0;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_OK && a.ah_attr.is_global,
	      "LID-less IB peer without GRH: %s", marrow_last_error());
	CHECK(memcmp(a.ah_attr.grh.dgid.raw, p.gid, 16) == 0, "dgid copied");
	p.lid = 7;
	k.flags = MARROW_MLX5_CONN_FORCE_GRH;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_OK && a.ah_attr.is_global &&
	      a.ah_attr.dlid == 7, "FORCE_GRH ignored");
	/* IB peer with neither a LID nor a GID cannot be reached. */
	p = ib_peer();
	p.lid = 0;
	k = defaults();
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL &&
	      ERR_HAS("subnet manager"), "LID 0 no GID: %s", marrow_last_error());
	p.lid = 0xc001; /* multicast range */
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL,
	      "multicast LID accepted");
}

static void test_rtr_roce(void)
{
	struct mlx5_local_end l = ib_local();
	struct marrow_mlx5_peer_info p = ib_peer();
	struct marrow_mlx5_conn_params k = defaults();
	struct ibv_qp_attr a;
	int mask;

	l.link_layer = 2;
	l.sgid_index = 3;
	p.link_layer = 2;
	p.lid = 0;
	/* ::ffff:10.0.0.2, the usual RoCE v2 GID */
	p.gid[10] = 0xff;
	p.gid[11] = 0xff;
	p.gid[12] = 10;
	p.gid[15] = 2;
	k.traffic_class = 106;
	k.hop_limit = 255;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_OK, "%s", marrow_last_error());
	CHECK(mask == REF_RTR_MASK, "RoCE RTR mask 0x%x", mask);
	CHECK(a.ah_attr.is_global == 1 && a.ah_attr.grh.sgid_index == 3 && a.ah_attr.grh.hop_limit == 255 &&
	      a.ah_attr.grh.traffic_class == 106 && a.ah_attr.dlid == 0, "RoCE GRH fields");
	CHECK(memcmp(a.ah_attr.grh.dgid.raw, p.gid, 16) == 0, "RoCE dgid");

	memset(p.gid, 0, 16);
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("all-zero GID"),
	      "zero RoCE GID: %s", marrow_last_error());
	p.gid[15] = 1;
	l.sgid_index = -1;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("GID index"),
	      "bad sgid: %s", marrow_last_error());
	l.sgid_index = 0;
	p.link_layer = 1;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL &&
	      ERR_HAS("link layers differ"), "IB/RoCE mix: %s", marrow_last_error());
}

static void test_rts(void)
{
	struct mlx5_local_end l = ib_local();
	struct marrow_mlx5_conn_params k = defaults();
	struct ibv_qp_attr a;
	int mask;

	CHECK(mlx5_build_qp_attr(IBV_QPS_RTS, &l, NULL, &k, &a, &mask) == MARROW_OK, "%s", marrow_last_error());
	CHECK(mask == REF_RTS_MASK, "RTS mask 0x%x", mask);
	CHECK(a.qp_state == IBV_QPS_RTS && a.sq_psn == 0x123456 && a.timeout == 14 && a.retry_cnt == 7 &&
	      a.rnr_retry == 6 && a.max_rd_atomic == 16, "RTS attr");
}

static void test_psn_qpn_masks(void)
{
	struct mlx5_local_end l = ib_local();
	struct marrow_mlx5_peer_info p = ib_peer();
	struct marrow_mlx5_conn_params k = defaults();
	struct ibv_qp_attr a;
	int mask;

	p.psn = 0xffffff; /* the largest legal PSN */
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_OK && a.rq_psn == 0xffffff,
	      "max PSN refused: %s", marrow_last_error());
	p.psn = 0x1000000;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("24 bits"),
	      "25-bit peer PSN: %s", marrow_last_error());
	p = ib_peer();
	l.psn = 0x1000000;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTS, &l, NULL, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("24 bits"),
	      "25-bit local PSN: %s", marrow_last_error());
	CHECK(mask == 0, "mask left set on failure");
	l = ib_local();
	p.qpn = 0;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("QPN"),
	      "QPN 0: %s", marrow_last_error());
	p.qpn = 0x1000000;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL, "25-bit QPN");
	p = ib_peer();
	p.size = 16;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("size"),
	      "short peer struct: %s", marrow_last_error());
}

static void test_mtu(void)
{
	struct mlx5_local_end l = ib_local();
	struct marrow_mlx5_peer_info p = ib_peer();
	struct marrow_mlx5_conn_params k = defaults();
	enum ibv_mtu m;

	CHECK(mlx5_mtu_bytes(1) == 256 && mlx5_mtu_bytes(5) == 4096 && mlx5_mtu_bytes(0) == 0 &&
	      mlx5_mtu_bytes(6) == 0, "mtu enum");
	CHECK(mlx5_pick_mtu(&l, &p, &k, &m) == MARROW_OK && m == IBV_MTU_1024, "auto mtu %d", m);
	p.mtu = 5;
	l.active_mtu = 2;
	CHECK(mlx5_pick_mtu(&l, &p, &k, &m) == MARROW_OK && m == IBV_MTU_512, "auto mtu (local min) %d", m);
	l.active_mtu = 5;
	k.path_mtu = 4;
	CHECK(mlx5_pick_mtu(&l, &p, &k, &m) == MARROW_OK && m == IBV_MTU_2048, "explicit mtu %d", m);
	p.mtu = 3;
	k.path_mtu = 5;
	CHECK(mlx5_pick_mtu(&l, &p, &k, &m) == MARROW_EINVAL && ERR_HAS("exceeds"), "4K over 1K: %s",
	      marrow_last_error());
	k.path_mtu = 7;
	CHECK(mlx5_pick_mtu(&l, &p, &k, &m) == MARROW_EINVAL, "mtu enum 7 accepted");
	k.path_mtu = 0;
	p.mtu = 0;
	CHECK(mlx5_pick_mtu(&l, &p, &k, &m) == MARROW_EINVAL && ERR_HAS("peer MTU"), "peer mtu 0: %s",
	      marrow_last_error());
}

static void test_bad_input(void)
{
	struct mlx5_local_end l = ib_local();
	struct marrow_mlx5_peer_info p = ib_peer();
	struct marrow_mlx5_conn_params k = defaults();
	struct ibv_qp_attr a;
	int mask;

	CHECK(mlx5_build_qp_attr(IBV_QPS_RESET, &l, &p, &k, &a, &mask) == MARROW_EINVAL &&
	      ERR_HAS("RESET"), "RESET target: %s", marrow_last_error());
	CHECK(mlx5_build_qp_attr(IBV_QPS_ERR, &l, &p, &k, &a, &mask) == MARROW_EINVAL, "ERR target");
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, NULL, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("peer"),
	      "RTR without peer: %s", marrow_last_error());
	CHECK(mlx5_build_qp_attr(IBV_QPS_INIT, NULL, &p, &k, &a, &mask) == MARROW_EINVAL, "NULL local");
	l.port = 0;
	CHECK(mlx5_build_qp_attr(IBV_QPS_INIT, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("port"),
	      "port 0: %s", marrow_last_error());
	l = ib_local();
	l.link_layer = 0;
	CHECK(mlx5_build_qp_attr(IBV_QPS_INIT, &l, &p, &k, &a, &mask) == MARROW_EINVAL, "link layer 0");
	l = ib_local();
	k.timeout = 0;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTS, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("forever"),
	      "timeout 0: %s", marrow_last_error());
	k = defaults();
	k.rnr_retry = 7;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTS, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("forever"),
	      "rnr_retry 7: %s", marrow_last_error());
	k = defaults();
	k.sl = 16;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("sl"), "sl 16");
	k = defaults();
	k.flags = 0x80;
	CHECK(mlx5_build_qp_attr(IBV_QPS_INIT, &l, &p, &k, &a, &mask) == MARROW_EINVAL && ERR_HAS("flags"),
	      "unknown flags");
	/* the shared checker's depth rule: 1..cap, rounded down, default 16 clamped */
	k = defaults();
	k.max_rd_atomic = 32;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTS, &l, &p, &k, &a, &mask) == MARROW_EINVAL &&
	      ERR_HAS("max_rd_atomic 32 outside 1..16"), "max_rd_atomic 32: %s", marrow_last_error());
	k = defaults();
	k.max_dest_rd_atomic = 17;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_EINVAL &&
	      ERR_HAS("max_dest_rd_atomic 17 outside 1..16"), "max_dest_rd_atomic 17: %s", marrow_last_error());
	k = defaults();
	k.max_rd_atomic = 3;
	k.max_dest_rd_atomic = 3;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTS, &l, &p, &k, &a, &mask) == MARROW_OK && a.max_rd_atomic == 2,
	      "requester depth 3 rounds down to 2: %u", a.max_rd_atomic);
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_OK && a.max_dest_rd_atomic == 2,
	      "responder depth 3 rounds down to 2: %u", a.max_dest_rd_atomic);
	k = defaults();
	l.max_rd_atomic = 8;
	l.max_dest_rd_atomic = 4;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTS, &l, &p, &k, &a, &mask) == MARROW_OK && a.max_rd_atomic == 8,
	      "default depth clamped to the requester cap 8: %u", a.max_rd_atomic);
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTR, &l, &p, &k, &a, &mask) == MARROW_OK && a.max_dest_rd_atomic == 4,
	      "default depth clamped to the responder cap 4: %u", a.max_dest_rd_atomic);
	l = ib_local();
	l.link_layer = 2;
	k = defaults();
	k.sl = 8;
	CHECK(mlx5_build_qp_attr(IBV_QPS_RTS, &l, &p, &k, &a, &mask) == MARROW_EINVAL &&
	      ERR_HAS("sl 8 outside 0..7 on RoCE"), "sl 8 on RoCE: %s", marrow_last_error());
}

static void test_pick_gid(void)
{
	union ibv_gid g[4];
	int v2[4] = { 0, 1, 0, 1 };

	memset(g, 0, sizeof(g));
	CHECK(mlx5_pick_gid(4, g, v2) == -1, "all-zero table");
	g[0].raw[0] = 0xfe; g[0].raw[1] = 0x80; g[0].raw[15] = 1; /* v1 link-local */
	g[1] = g[0];                                              /* v2 link-local */
	CHECK(mlx5_pick_gid(4, g, v2) == 1, "v2 link-local over v1");
	g[3].raw[10] = 0xff; g[3].raw[11] = 0xff; g[3].raw[12] = 10; /* v2 ::ffff:10.x */
	CHECK(mlx5_pick_gid(4, g, v2) == 3, "routable v2 preferred");
	v2[1] = v2[3] = 0;
	CHECK(mlx5_pick_gid(4, g, v2) == 0, "no v2: first non-zero");
}

static void test_errno_map(void)
{
	CHECK(mlx5_status_from_errno(EPERM) == MARROW_EPERM && mlx5_status_from_errno(EACCES) == MARROW_EPERM &&
	      mlx5_status_from_errno(ENOMEM) == MARROW_ENOMEM && mlx5_status_from_errno(EINVAL) == MARROW_EINVAL &&
	      mlx5_status_from_errno(ETIMEDOUT) == MARROW_EIO, "errno map");
	CHECK(strcmp(mlx5_qp_state_name(IBV_QPS_RTS), "RTS") == 0 && strcmp(mlx5_qp_state_name(99), "UNKNOWN") == 0,
	      "state names");
}

/* qp_create refuses bad attributes before any verbs call, so a fake device
 * with plausible limits reaches every check without a NIC. */
static void test_qp_attr_checks(void)
{
	struct marrow_mlx5_device fake;
	struct marrow_mlx5_qp_attr qa = { .size = sizeof(qa), .log_sq_wqebb_cnt = 8, .log_cqe_cnt = 8,
					  .max_inline_data = 220, .access = 7 };
	struct marrow_qp_view v = { .size = sizeof(v) };
	struct marrow_cq_view cv = { .size = sizeof(cv) };
	struct marrow_mlx5_qp *q = (struct marrow_mlx5_qp *)&fake;

	memset(&fake, 0, sizeof(fake));
	snprintf(fake.name, sizeof(fake.name), "fake");
	fake.dattr.max_qp_wr = 32768;
	fake.dattr.max_cqe = 1 << 22;
	qa.placement = MARROW_MLX5_QUEUES_GPU;
	CHECK(marrow_mlx5_qp_create(&fake, &qa, &q, &v, &cv) == MARROW_ENOSYS && ERR_HAS("DevX") && q == NULL,
	      "gpu placement: %s", marrow_last_error());
	qa.placement = 9;
	CHECK(marrow_mlx5_qp_create(&fake, &qa, &q, &v, &cv) == MARROW_EINVAL && ERR_HAS("placement"), "placement 9");
	qa.placement = MARROW_MLX5_QUEUES_HOST;
	qa.log_sq_wqebb_cnt = 16;
	CHECK(marrow_mlx5_qp_create(&fake, &qa, &q, &v, &cv) == MARROW_EINVAL && ERR_HAS("log_sq_wqebb_cnt"),
	      "sq 2^16: %s", marrow_last_error());
	qa.log_sq_wqebb_cnt = 8;
	fake.dattr.max_cqe = 128;
	CHECK(marrow_mlx5_qp_create(&fake, &qa, &q, &v, &cv) == MARROW_EINVAL && ERR_HAS("max_cqe"),
	      "cq above max_cqe: %s", marrow_last_error());
	fake.dattr.max_cqe = 1 << 22;
	qa.sq_psn = 0x1000000;
	CHECK(marrow_mlx5_qp_create(&fake, &qa, &q, &v, &cv) == MARROW_EINVAL && ERR_HAS("24 bits"), "psn");
	qa.sq_psn = 0;
	v.size = 8;
	CHECK(marrow_mlx5_qp_create(&fake, &qa, &q, &v, &cv) == MARROW_EINVAL && ERR_HAS("view size"), "view size");
	CHECK(marrow_mlx5_qp_create(NULL, &qa, &q, &v, &cv) == MARROW_EINVAL, "NULL device");
	v.size = sizeof(v);
	qa.log_sq_wqebb_cnt = 1;   /* 2 WQEBBs; an inline WRITE of 220 bytes needs 4 */
	CHECK(marrow_mlx5_qp_create(&fake, &qa, &q, &v, &cv) == MARROW_EINVAL && ERR_HAS("cannot hold one WQE"),
	      "SQ smaller than one WQE: %s", marrow_last_error());
	CHECK(marrow_mlx5_qp_reset(NULL) == MARROW_EINVAL, "reset NULL");
}

/* --log-sq counts WQEBBs on both backends: verbs gets max_send_wr = 2^n over
 * the WQEBBs of the largest WQE posted (an inline WRITE of max_inline). */
static void test_log_sq_to_max_send_wr(void)
{
	struct marrow_mlx5_qp_attr qa = { .size = sizeof(qa), .log_sq_wqebb_cnt = 8 };

	qa.max_inline_data = 0;    /* pointer WRITE: ctrl + raddr + data = 3 x 16 B, 1 WQEBB */
	CHECK(mx_max_wqebbs_per_write(0) == 1 && qp_max_send_wr(&qa) == 256, "no inline: %u", qp_max_send_wr(&qa));
	qa.max_inline_data = 28;   /* 32 + 4 + 28 = 64 B: 1 WQEBB */
	CHECK(mx_max_wqebbs_per_write(28) == 1 && qp_max_send_wr(&qa) == 256, "28 B inline: %u", qp_max_send_wr(&qa));
	qa.max_inline_data = 60;   /* 96 B: 2 WQEBBs */
	CHECK(mx_max_wqebbs_per_write(60) == 2 && qp_max_send_wr(&qa) == 128, "60 B inline: %u", qp_max_send_wr(&qa));
	qa.max_inline_data = 220;  /* 256 B: 4 WQEBBs */
	CHECK(mx_max_wqebbs_per_write(220) == 4 && qp_max_send_wr(&qa) == 64, "220 B inline: %u", qp_max_send_wr(&qa));
	qa.max_inline_data = 150;  /* 186 B: 3 WQEBBs; 85 WRs x 3 fit 256 */
	CHECK(mx_max_wqebbs_per_write(150) == 3 && qp_max_send_wr(&qa) == 85, "150 B inline: %u", qp_max_send_wr(&qa));
}

/* No NIC here: ENODEV with the probe's reason. With one: a QP and views. */
static void test_open(void)
{
	struct marrow_mlx5_device_attr da = { .size = sizeof(da), .gid_index = -1 };
	struct marrow_mlx5_device *d = (struct marrow_mlx5_device *)&da;
	struct marrow_verbs_probe_info pi = { .size = sizeof(pi) };
	int rc, probe;

	CHECK(marrow_mlx5_device_open(NULL, &d) == MARROW_EINVAL, "NULL attr");
	da.size = 8;
	CHECK(marrow_mlx5_device_open(&da, &d) == MARROW_EINVAL && d == NULL, "small attr");
	da.size = sizeof(da);
	da.gid_index = -2;
	CHECK(marrow_mlx5_device_open(&da, &d) == MARROW_EINVAL && ERR_HAS("gid_index"), "gid -2");
	da.gid_index = -1;

	probe = marrow_verbs_probe(&pi);
	rc = marrow_mlx5_device_open(&da, &d);
	printf("marrow_mlx5_device_open -> %s: %s\n", marrow_status_name(rc), rc ? marrow_last_error() : da.name);
	if (probe != MARROW_OK || pi.mlx5_device_count == 0) {
		CHECK(rc == MARROW_ENODEV, "no device must be ENODEV, got %d", rc);
		CHECK(d == NULL, "out set on failure");
		CHECK(ERR_HAS("marrow_mlx5_device_open: "), "names the call: %s", marrow_last_error());
		CHECK(ERR_HAS("not found") || ERR_HAS("no RDMA device") || ERR_HAS("none is driven by mlx5"),
		      "gives the probe's reason: %s", marrow_last_error());
		return;
	}
	CHECK(rc == MARROW_OK, "open with an mlx5 NIC present: %s", marrow_last_error());
	if (rc)
		return;
	struct marrow_mlx5_qp_attr qa = { .size = sizeof(qa), .log_sq_wqebb_cnt = 7, .log_cqe_cnt = 6,
					  .max_inline_data = 60, .access = 7 };
	struct marrow_qp_view v = { .size = sizeof(v) };
	struct marrow_cq_view cv = { .size = sizeof(cv) };
	struct marrow_mlx5_qp *q = NULL;
	int st = -1;

	rc = marrow_mlx5_qp_create(d, &qa, &q, &v, &cv);
	CHECK(rc == MARROW_OK, "qp_create: %s", marrow_last_error());
	if (rc == MARROW_OK) {
		CHECK(v.sq_buf && v.dbrec && v.uar && v.qpn && v.sq_stride == 64 && v.max_inline_data >= 60,
		      "qp view");
		/* 2^7 WQEBBs asked: 64 WRs of <= 2 WQEBBs, which libmlx5 sizes as 128 WQEBBs */
		CHECK(v.sq_wqe_cnt == 128, "granted SQ of %u WQEBBs for log_sq_wqebb_cnt 7", v.sq_wqe_cnt);
		CHECK(marrow_mlx5_qp_reset(q) == MARROW_OK && v.dbrec[1] == 0, "reset: %s", marrow_last_error());
		CHECK(cv.buf && cv.dbrec && cv.cqe_cnt >= 64 && cv.cqe_size == 64, "cq view");
		CHECK(marrow_mlx5_qp_state(q, &st) == MARROW_OK && st == IBV_QPS_RESET, "state %d", st);
		CHECK(marrow_mlx5_device_close(d) == MARROW_EBUSY, "close with a live QP");
		CHECK(marrow_mlx5_qp_destroy(q) == MARROW_OK, "%s", marrow_last_error());
	}
	CHECK(marrow_mlx5_device_close(d) == MARROW_OK, "%s", marrow_last_error());
}

/* The loader's DevX table: where libmlx5 loaded, its reason agrees with
 * devx_fns_missing of the very table; a GPU QP without a device is refused. */
static void test_devx_loader(void)
{
	const struct verbs_syms *s = verbs_syms_get();

	if (s->mlx5_loaded && s->error[0] == '\0' && s->qp_error[0] == '\0') {
		const char *missing = devx_fns_missing(&s->devx);

		CHECK(missing[0] == '\0' ? s->devx_error[0] == '\0' : strstr(s->devx_error, missing) != NULL,
		      "devx_error '%s' vs missing '%s'", s->devx_error, missing);
		printf("libmlx5 %s: DevX %s%s\n", s->mlx5_version, s->devx_error[0] ? "unavailable: " : "entry points resolved",
		       s->devx_error);
	} else {
		CHECK(s->devx_error[0] != '\0', "without libibverbs/libmlx5 DevX has a reason");
	}
	CHECK(marrow_mlx5_gpu_qp_create(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0) == MARROW_EINVAL,
	      "NULL arguments refused");
	CHECK(marrow_mlx5_gpu_qp_indexes(NULL, NULL, NULL) == MARROW_EINVAL, "indexes: NULL refused");
	CHECK(marrow_mlx5_devx_check(NULL) == MARROW_EINVAL, "devx_check: NULL refused");
	{
		struct marrow_mlx5_device d;

		memset(&d, 0, sizeof(d));
		snprintf(d.name, sizeof(d.name), "mlx5_test");
		snprintf(d.devx_why, sizeof(d.devx_why), "mlx5dv_open_device(mlx5_test, DEVX) failed: errno 95");
		CHECK(marrow_mlx5_devx_check(&d) == MARROW_ENODEV &&
		      (strstr(marrow_last_error(), "errno 95") || strstr(marrow_last_error(), "DevX unavailable")),
		      "a context without DevX is refused with its reason: %s", marrow_last_error());
	}
}

int main(void)
{
	test_devx_loader();
	test_defaults();
	test_init();
	test_rtr_ib();
	test_rtr_roce();
	test_rts();
	test_psn_qpn_masks();
	test_mtu();
	test_bad_input();
	test_pick_gid();
	test_errno_map();
	test_qp_attr_checks();
	test_log_sq_to_max_send_wr();
	test_open();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("verbs_test_mlx5_attrs: all checks passed\n");
	return 0;
}
