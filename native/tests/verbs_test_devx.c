/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The DevX runtime (mlx5_devx_qp.c) against a fake libmlx5 table: every
 * command it issues is compared byte for byte with the PRM encoder fed the
 * values the fakes handed out (and a few fields are read back at their PRM
 * bit offsets); an injected failure at each step frees everything created
 * so far, newest first; destruction runs QP, CQ, DBR/CQ/SQ umems, UAR and
 * (devx_qp_open) then frees the GPU memory;
 * missing entry points give the "unavailable" reason; the dma-buf and
 * BlueFlame fallbacks leave a note; host-side resume reads the DBRs through
 * the copy callback; the caps queries and what they decide (ts_format, depth
 * caps, LAG port in RST2INIT), the 32-bit EQ number in CREATE_CQ, and reset /
 * recovery (2RST_QP, the first connect's boxes again, the QP doorbell record
 * cleared, leftover CQEs stepped over). "GPU memory" here is host memory
 * behind that callback. Needs no NIC.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs/mlx5_devx_qp.c"
#include "verbs/verbs_abi.c" /* this library's marrow_abi_table, which marrow_fail's module needs */

static int failures;
#define CHECK(c, ...)                                                          \
	do {                                                                   \
		if (!(c)) {                                                    \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);            \
			printf(__VA_ARGS__);                                   \
			printf("\n");                                          \
			failures++;                                            \
		}                                                              \
	} while (0)

/* ---- the fake library -------------------------------------------------- */
enum { MAXLOG = 64 };
static char calls[MAXLOG][48];  /* "umem_reg:7", "obj_create:CQ", ... */
static int ncalls;
static int fail_at = -1;        /* index of the call that fails; -1: none */
static int nc_refused;          /* alloc_uar(NC) fails */
static int uar_refused;         /* alloc_uar fails for every kind */
static uint8_t cmds[16][PRM_MODIFY_QP_IN_BYTES];
static size_t cmd_len[16];
static int ncmds;
static struct mlx5dv_devx_umem umems[3];
static int nu;
static struct mlx5dv_devx_umem_in last_umem_in;
static struct mlx5dv_devx_uar uar_obj = {.page_id = 0x00abcd};
static int objs[2]; /* fake objects: address only */
static int nobj;
static uint32_t fake_eqn = 0x17;

static int step(const char *fmt, unsigned v)
{
	if (ncalls < MAXLOG)
		snprintf(calls[ncalls], sizeof(calls[0]), fmt, v);
	return ncalls++ == fail_at;
}

static struct ibv_context *f_open(struct ibv_device *d, struct mlx5dv_context_attr *a)
{
	(void)d; (void)a;
	return NULL;
}

static struct mlx5dv_devx_umem *f_umem_reg(struct ibv_context *c, void *addr, size_t n, uint32_t acc)
{
	(void)c; (void)addr; (void)n; (void)acc;
	if (step("umem_reg:%u", 0x100u + (unsigned)nu)) {
		errno = EFAULT;
		return NULL;
	}
	umems[nu].umem_id = 0x100u + (unsigned)nu;
	return &umems[nu++];
}

static struct mlx5dv_devx_umem *f_umem_reg_ex(struct ibv_context *c, struct mlx5dv_devx_umem_in *in)
{
	(void)c;
	last_umem_in = *in;
	if (step("umem_reg_ex:%u", 0x100u + (unsigned)nu)) {
		errno = EFAULT;
		return NULL;
	}
	umems[nu].umem_id = 0x100u + (unsigned)nu;
	return &umems[nu++];
}

static int f_umem_dereg(struct mlx5dv_devx_umem *u)
{
	step("umem_dereg:%u", u->umem_id);
	return 0;
}

static struct mlx5dv_devx_uar *f_alloc_uar(struct ibv_context *c, uint32_t flags)
{
	(void)c;
	if (step("alloc_uar:%u", flags) || uar_refused || (flags == MLX5DV_UAR_ALLOC_TYPE_NC && nc_refused)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return &uar_obj;
}

static void f_free_uar(struct mlx5dv_devx_uar *u)
{
	step("free_uar:%u", u->page_id);
}

static int f_query_eqn(struct ibv_context *c, uint32_t vector, uint32_t *eqn)
{
	(void)c;
	if (step("query_eqn:%u", vector))
		return EINVAL;
	*eqn = fake_eqn;
	return 0;
}

static void record(const void *in, size_t len)
{
	if (ncmds < 16 && len <= sizeof(cmds[0])) {
		memcpy(cmds[ncmds], in, len);
		cmd_len[ncmds++] = len;
	}
}

static struct mlx5dv_devx_obj *f_obj_create(struct ibv_context *c, const void *in, size_t inlen, void *out,
					    size_t outlen)
{
	unsigned op = prm_get32(in, PRM_IN_OPCODE);

	(void)c;
	record(in, inlen);
	memset(out, 0, outlen);
	if (step("obj_create:%x", op)) {
		prm_set(out, PRM_OUT_STATUS, 0x3); /* bad parameter */
		prm_set(out, PRM_OUT_SYNDROME, 0xdeadbeef);
		errno = EREMOTEIO;
		return NULL;
	}
	prm_set(out, PRM_OUT_OBJ_ID, op == PRM_OP_CREATE_CQ ? 0x000c01 : 0x000a51);
	return (struct mlx5dv_devx_obj *)&objs[nobj++];
}

static int f_obj_modify(struct mlx5dv_devx_obj *o, const void *in, size_t inlen, void *out, size_t outlen)
{
	(void)o;
	record(in, inlen);
	memset(out, 0, outlen);
	if (step("obj_modify:%x", prm_get32(in, PRM_IN_OPCODE))) {
		prm_set(out, PRM_OUT_STATUS, 0x3);
		return EREMOTEIO;
	}
	return 0;
}

static int f_obj_destroy(struct mlx5dv_devx_obj *o)
{
	step("obj_destroy:%u", (unsigned)((int *)o - objs));
	return 0;
}

static int f_init_obj(struct mlx5dv_obj *o, uint64_t t)
{
	(void)o; (void)t;
	return 0;
}

/* QUERY_HCA_CAP / QUERY_LAG: answers written at the PRM's bit offsets as
 * numbers (mlx5_ifc.h's cmd_hca_cap, roce_cap, lagc), not with the macros
 * under test. */
static uint32_t cap_ra_req = 4, cap_ra_res = 3, cap_sq_ts = 1, cap_roce = 1, cap_roce_ts = 2;
static uint32_t cap_lag_ports, cap_lag_aff, lag_state_reply;
static int general_fails;

static int f_general_cmd(struct ibv_context *c, const void *in, size_t inlen, void *out, size_t outlen)
{
	unsigned op = prm_get32(in, 0x00, 16), op_mod = prm_get32(in, 0x30, 16);

	(void)c;
	record(in, inlen);
	memset(out, 0, outlen);
	if (step("general:%x", op << 8 | op_mod) || general_fails)
		return EIO;
	if (op == 0x100 && op_mod == 1) {          /* general device caps, current */
		prm_set(out, 0x80 + 0x14a, 6, cap_ra_req);
		prm_set(out, 0x80 + 0x15a, 6, cap_ra_res);
		prm_set(out, 0x80 + 0x21d, 1, cap_roce);
		prm_set(out, 0x80 + 0x278, 1, cap_lag_aff);
		prm_set(out, 0x80 + 0x27c, 4, cap_lag_ports);
		prm_set(out, 0x80 + 0x440, 2, cap_sq_ts);
	} else if (op == 0x100 && op_mod == 9) {   /* RoCE caps (type 4), current */
		prm_set(out, 0x80 + 0x1e, 2, cap_roce_ts);
	} else if (op == 0x842) {
		prm_set(out, 0x40 + 0x1d, 3, lag_state_reply);
	}
	return 0;
}

static const struct devx_fns fake = {
	.open_device = f_open, .umem_reg = f_umem_reg, .umem_reg_ex = f_umem_reg_ex,
	.umem_dereg = f_umem_dereg, .alloc_uar = f_alloc_uar, .free_uar = f_free_uar,
	.obj_create = f_obj_create, .obj_modify = f_obj_modify, .obj_destroy = f_obj_destroy,
	.query_eqn = f_query_eqn, .init_obj = f_init_obj, .general_cmd = f_general_cmd,
};

/* "GPU memory": host pages behind the copy callbacks. */
static uint8_t sq_mem[4096 * 4] __attribute__((aligned(4096)));
static uint8_t cq_mem[64 * 256] __attribute__((aligned(4096)));
static uint8_t dbr_mem[4096] __attribute__((aligned(4096)));
static int copies;

static int to_gpu(void *ctx, void *dst, const void *src, size_t n)
{
	(void)ctx;
	copies++;
	memcpy(dst, src, n);
	return 0;
}

static int from_gpu(void *ctx, void *dst, const void *src, size_t n)
{
	(void)ctx;
	memcpy(dst, src, n);
	return 0;
}

static void reset_fake(void)
{
	ncalls = ncmds = nu = nobj = copies = 0;
	fail_at = -1;
	nc_refused = uar_refused = 0;
	fake_eqn = 0x17;
	cap_ra_req = 4, cap_ra_res = 3, cap_sq_ts = 1, cap_roce = 1, cap_roce_ts = 2;
	cap_lag_ports = cap_lag_aff = lag_state_reply = 0;
	general_fails = 0;
	memset(calls, 0, sizeof(calls));
	memset(cq_mem, 0x5a, sizeof(cq_mem));
	memset(dbr_mem, 0x5a, sizeof(dbr_mem));
}

static struct devx_qp_spec spec(int dmabuf)
{
	struct devx_qp_spec s = {
		.ctx = (struct ibv_context *)&objs, /* never dereferenced by the runtime */
		.pdn = 0x00beef,
		.log_sq_wqebb_cnt = 8,
		.log_cqe_cnt = 8,
		.sq = {sq_mem, sizeof(sq_mem), dmabuf ? 11 : -1, 0},
		.cq = {cq_mem, sizeof(cq_mem), dmabuf ? 12 : -1, 0x4000},
		.dbr = {dbr_mem, sizeof(dbr_mem), dmabuf ? 13 : -1, 0x8000},
		.copy = {to_gpu, from_gpu, NULL},
	};
	return s;
}

/* The bits of every command the runtime issues, from the encoder fed the fakes' values. */
static void commands_are_exact(void)
{
	struct devx_qp_spec s = spec(0);
	struct devx_qp q;
	uint8_t want[PRM_MODIFY_QP_IN_BYTES];
	struct prm_cq_args ca = {.log_cqe_cnt = 8, .uar_page = 0x00abcd, .eqn = 0x17, .cq_umem_id = 0x101,
				 .dbr_umem_id = 0x102, .dbr_offset = DEVX_CQ_DBR_OFFSET};
	struct prm_qp_args qa = {.pd = 0x00beef, .log_sq_wqebb_cnt = 8, .uar_page = 0x00abcd, .cqn_snd = 0xc01,
				 .cqn_rcv = 0xc01, .wq_umem_id = 0x100, .dbr_umem_id = 0x102,
				 .dbr_offset = DEVX_QP_DBR_OFFSET};
	struct prm_rtr_args rtr = {.remote_qpn = 0x777, .mtu = 3, .rq_psn = 0x1234, .min_rnr_timer = 12,
				   .log_rra_max = 0, .port = 1, .roce = 1, .rgid = {0xfe, 0x80}, .rmac = {1, 2, 3, 4, 5, 6},
				   .hop_limit = 64, .sgid_index = 3, .udp_sport = 0xc123};
	struct prm_rts_args rts = {.sq_psn = 0x4321, .ack_timeout = 14, .retry_cnt = 7, .rnr_retry = 6};
	uint32_t pi, ci;

	reset_fake();
	CHECK(devx_qp_create(&fake, &s, &q) == MARROW_OK, "create: %s", marrow_last_error());
	CHECK(q.cqn == 0xc01 && q.qpn == 0xa51 && q.eqn == 0x17, "ids cqn 0x%x qpn 0x%x eqn 0x%x", q.cqn, q.qpn, q.eqn);
	CHECK(ncmds == 2, "two create commands, got %d", ncmds);
	prm_create_cq(want, &ca);
	CHECK(cmd_len[0] == PRM_CREATE_CQ_IN_BYTES && memcmp(cmds[0], want, PRM_CREATE_CQ_IN_BYTES) == 0,
	      "CREATE_CQ bytes differ from the encoder's");
	/* read back at the PRM's bit offsets: cq_umem_id, cqc.dbr_umem_id, cqc.c_eqn, cqc.dbr_addr (low word) */
	CHECK(prm_get32(cmds[0], 0x2c0, 32) == 0x101 && prm_get32(cmds[0], 0x80 + 0x20, 32) == 0x102 &&
	      prm_get32(cmds[0], 0x80 + 0xb8, 8) == 0x17 && prm_get32(cmds[0], 0x80 + 0x1e0, 32) == 64,
	      "CREATE_CQ fields at their PRM offsets");
	prm_create_qp(want, &qa);
	CHECK(cmd_len[1] == PRM_CREATE_QP_IN_BYTES && memcmp(cmds[1], want, PRM_CREATE_QP_IN_BYTES) == 0,
	      "CREATE_QP bytes differ from the encoder's");
	CHECK(prm_get32(cmds[1], 0xc0 + 0x28, 24) == 0xbeef && prm_get32(cmds[1], 0xc0 + 0x3e8, 24) == 0xc01 &&
	      prm_get32(cmds[1], 0x840, 32) == 0x100 && prm_get32(cmds[1], 0xc0 + 0x720, 32) == 0x102,
	      "CREATE_QP pd / cqn_snd / wq_umem_id / dbr_umem_id at their PRM offsets");
	/* first image of the GPU memory */
	for (int i = 0; i < 256; i++)
		CHECK(cq_mem[i * 64 + 63] == 0xf0 && cq_mem[i * 64] == 0, "CQE %d op_own 0x%02x", i, cq_mem[i * 64 + 63]);
	for (int i = 0; i < DEVX_DBR_BYTES; i++)
		CHECK(dbr_mem[i] == 0, "DBR byte %d = 0x%02x", i, dbr_mem[i]);
	CHECK(q.note[0] == '\0', "no fallback taken, note '%s'", q.note);

	CHECK(devx_qp_connect(&q, 1, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, &rtr, &rts) == MARROW_OK,
	      "connect: %s", marrow_last_error());
	CHECK(ncmds == 5 && q.state == IBV_QPS_RTS, "three modify commands (%d), state %d", ncmds, q.state);
	prm_rst2init(want, &(struct prm_init_args){.qpn = 0xa51, .port = 1, .rre = 1, .rwe = 1});
	CHECK(memcmp(cmds[2], want, PRM_MODIFY_QP_IN_BYTES) == 0, "RST2INIT bytes");
	rtr.qpn = 0xa51;
	prm_init2rtr(want, &rtr);
	CHECK(memcmp(cmds[3], want, PRM_MODIFY_QP_IN_BYTES) == 0, "INIT2RTR bytes");
	CHECK(prm_get32(cmds[3], 0x48, 24) == 0xa51 && prm_get32(cmds[3], 0xc0 + 0xa8, 24) == 0x777,
	      "INIT2RTR qpn / remote_qpn at their PRM offsets");
	rts.qpn = 0xa51;
	prm_rtr2rts(want, &rts);
	CHECK(memcmp(cmds[4], want, PRM_MODIFY_QP_IN_BYTES) == 0, "RTR2RTS bytes");
	CHECK(devx_qp_connect(&q, 1, 0, &rtr, &rts) == MARROW_EINVAL, "connect twice is refused");

	/* host-side resume: SQ counter in QP DBR word 1, CQ consumer index in CQ DBR word 0 */
	dbr_mem[4] = 0; dbr_mem[5] = 0; dbr_mem[6] = 0x01; dbr_mem[7] = 0x23;
	dbr_mem[64] = 0xff; dbr_mem[65] = 0x00; dbr_mem[66] = 0x00; dbr_mem[67] = 0x45;
	CHECK(devx_qp_read_indexes(&q, &pi, &ci) == MARROW_OK && pi == 0x123 && ci == 0x45,
	      "resume pi 0x%x ci 0x%x", pi, ci);

	/* destruction order */
	ncalls = 0;
	CHECK(devx_qp_destroy(&q) == MARROW_OK, "destroy: %s", marrow_last_error());
	const char *order[] = {"obj_destroy:1", "obj_destroy:0", "umem_dereg:258", "umem_dereg:257",
			       "umem_dereg:256", "free_uar:43981"};
	CHECK(ncalls == 6, "%d release calls", ncalls);
	for (int i = 0; i < 6; i++)
		CHECK(strcmp(calls[i], order[i]) == 0, "release %d: %s, want %s", i, calls[i], order[i]);
}

/* Fail every step in turn: what was created is released newest first, exactly once. */
static void every_failure_releases_in_reverse(void)
{
	const char *create_order[] = {"alloc_uar:1", "umem_reg:256", "umem_reg:257", "umem_reg:258", "query_eqn:0",
				      "obj_create:400", "obj_create:500"};
	const char *release_of[] = {"free_uar:43981", "umem_dereg:256", "umem_dereg:257", "umem_dereg:258", NULL,
				    "obj_destroy:0", "obj_destroy:1"};

	for (int k = 0; k < 7; k++) {
		struct devx_qp_spec s = spec(0);
		struct devx_qp q;
		int rc, n = 0, x = 0; /* x: extra calls of the failing step */

		reset_fake();
		if (k == 0) { /* the UAR: NC refused, then BF refused too */
			uar_refused = 1;
			x = 1;
		} else {
			fail_at = k;
		}
		rc = devx_qp_create(&fake, &s, &q);
		CHECK(rc != MARROW_OK, "step %d (%s) failure is reported", k, create_order[k]);
		CHECK(strcmp(calls[k], create_order[k]) == 0, "step %d is %s, want %s", k, calls[k], create_order[k]);
		CHECK(q.f == NULL && q.qp == NULL && q.cq == NULL && q.uar == NULL && q.sq_umem == NULL,
		      "step %d: the QP holds nothing after a failure", k);
		/* releases: the objects of steps k-1 .. 0, newest first, skipping query_eqn */
		for (int j = k - 1; j >= 0; j--) {
			if (release_of[j] == NULL)
				continue;
			CHECK(strcmp(calls[k + 1 + x + n], release_of[j]) == 0, "step %d: release %d is '%s', want '%s'", k, n,
			      calls[k + 1 + x + n], release_of[j]);
			n++;
		}
		CHECK(ncalls == k + 1 + x + n, "step %d: %d calls, want %d (no extra release)", k, ncalls, k + 1 + x + n);
		if (k >= 5)
			CHECK(strstr(marrow_last_error(), "syndrome 0xdeadbeef") != NULL &&
			      strstr(marrow_last_error(), k == 5 ? "CREATE_CQ" : "CREATE_QP") != NULL,
			      "step %d: message names the command and syndrome: %s", k, marrow_last_error());
	}
}

static void connect_failure_names_the_step(void)
{
	struct devx_qp_spec s = spec(0);
	struct devx_qp q;
	struct prm_rtr_args rtr = {.remote_qpn = 1, .mtu = 5, .port = 1};
	struct prm_rts_args rts = {.ack_timeout = 14};

	reset_fake();
	CHECK(devx_qp_create(&fake, &s, &q) == MARROW_OK, "create: %s", marrow_last_error());
	fail_at = ncalls + 1; /* RST2INIT passes, INIT2RTR fails */
	CHECK(devx_qp_connect(&q, 1, 0, &rtr, &rts) == MARROW_EIO, "INIT2RTR failure is reported");
	CHECK(strstr(marrow_last_error(), "INIT2RTR_QP on QP 0xa51") != NULL, "message: %s", marrow_last_error());
	/* as the verbs path: back to RESET (2RST_QP) so that connect may run again */
	CHECK(strcmp(calls[ncalls - 1], "obj_modify:50a") == 0 && q.state == IBV_QPS_RESET,
	      "after the failure: %s, state %d", calls[ncalls - 1], q.state);
	CHECK(devx_qp_connect(&q, 1, 0, &rtr, &rts) == MARROW_OK, "connect again: %s", marrow_last_error());
	CHECK(devx_qp_destroy(&q) == MARROW_OK, "destroy after a failed connect");
}

static void missing_symbols_are_named(void)
{
	struct devx_fns f = fake;
	struct devx_qp_spec s = spec(0);
	struct devx_qp q;

	CHECK(devx_fns_missing(&fake)[0] == '\0', "the full table misses nothing");
	f.umem_reg_ex = NULL;
	f.general_cmd = NULL;
	CHECK(devx_fns_missing(&f)[0] == '\0', "optional entries do not count");
	f.obj_create = NULL;
	CHECK(strcmp(devx_fns_missing(&f), "mlx5dv_devx_obj_create") == 0, "names obj_create");
	reset_fake();
	CHECK(devx_qp_create(&f, &s, &q) == MARROW_ENODEV, "unavailable is ENODEV");
	CHECK(strstr(marrow_last_error(), "devx unavailable") && strstr(marrow_last_error(), "mlx5dv_devx_obj_create"),
	      "reason: %s", marrow_last_error());
	CHECK(ncalls == 0 && copies == 0, "nothing touched (%d calls, %d copies)", ncalls, copies);
	f = fake;
	f.alloc_uar = NULL;
	CHECK(strcmp(devx_fns_missing(&f), "mlx5dv_devx_alloc_uar") == 0, "names alloc_uar");
}

static void dmabuf_and_fallback_notes(void)
{
	struct devx_qp_spec s = spec(1);
	struct devx_fns f = fake;
	struct devx_qp q;

	reset_fake();
	CHECK(devx_qp_create(&fake, &s, &q) == MARROW_OK, "dma-buf create: %s", marrow_last_error());
	CHECK(strncmp(calls[1], "umem_reg_ex", 11) == 0, "dma-buf uses umem_reg_ex: %s", calls[1]);
	CHECK(last_umem_in.dmabuf_fd == 13 && last_umem_in.comp_mask == MLX5DV_UMEM_MASK_DMABUF &&
	      (uintptr_t)last_umem_in.addr == 0x8000 && last_umem_in.pgsz_bitmap == 4096 &&
	      last_umem_in.size == sizeof(dbr_mem), "umem_in of the DBR: fd %d mask 0x%llx addr %p pgsz 0x%llx",
	      last_umem_in.dmabuf_fd, (unsigned long long)last_umem_in.comp_mask, last_umem_in.addr,
	      (unsigned long long)last_umem_in.pgsz_bitmap);
	devx_qp_destroy(&q);

	f.umem_reg_ex = NULL;
	nc_refused = 1;
	reset_fake();
	nc_refused = 1;
	CHECK(devx_qp_create(&f, &s, &q) == MARROW_OK, "fallback create: %s", marrow_last_error());
	CHECK(strncmp(calls[2], "umem_reg:", 9) == 0, "no reg_ex: plain umem_reg (%s)", calls[2]);
	CHECK(strstr(q.note, "umem_reg_ex") && strstr(q.note, "BlueFlame"), "note: %s", q.note);
	CHECK(strcmp(calls[0], "alloc_uar:1") == 0 && strcmp(calls[1], "alloc_uar:0") == 0, "NC then BF: %s, %s",
	      calls[0], calls[1]);
	devx_qp_destroy(&q);
}

static void bad_specs_are_refused(void)
{
	struct devx_qp_spec s = spec(0);
	struct devx_qp q;

	reset_fake();
	s.sq.len = 4096; /* 2^8 WQEBBs need 16 KiB */
	CHECK(devx_qp_create(&fake, &s, &q) == MARROW_EINVAL && strstr(marrow_last_error(), "SQ buffer"),
	      "short SQ: %s", marrow_last_error());
	s = spec(0);
	s.cq.addr = cq_mem + 64;
	CHECK(devx_qp_create(&fake, &s, &q) == MARROW_EINVAL && strstr(marrow_last_error(), "aligned"),
	      "unaligned CQ: %s", marrow_last_error());
	s = spec(1);
	s.dbr.dmabuf_offset = 100;
	CHECK(devx_qp_create(&fake, &s, &q) == MARROW_EINVAL, "unaligned dma-buf offset");
	s = spec(0);
	s.copy.from_gpu = NULL;
	CHECK(devx_qp_create(&fake, &s, &q) == MARROW_EINVAL, "missing copy callback");
	CHECK(ncalls == 0, "nothing called for a bad spec (%d)", ncalls);
}

static void link_local_mac(void)
{
	const uint8_t gid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff, 0xfe, 0x01, 0x02, 0x03};
	const uint8_t v4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
	uint8_t mac[6];

	CHECK(devx_mac_from_link_local_gid(gid, mac) == 0 && mac[0] == 0x00 && mac[1] == 0x02 && mac[2] == 0xc9 &&
	      mac[3] == 0x01 && mac[4] == 0x02 && mac[5] == 0x03, "EUI-64 -> MAC");
	CHECK(devx_mac_from_link_local_gid(v4, mac) == -1, "an IPv4-mapped GID has no MAC in it");
}

/* ---- devx_qp_open: GPU memory from caller operations (a CPU stand-in) -- */
static uint8_t *mem_raw;          /* what the stand-in allocated */
static void *mem_given;           /* what it handed out: deliberately not 4 KiB aligned */
static size_t mem_len;
static int mem_alloc_fails, dmabuf_refused, mem_frees, from_copies;
static int last_fd = -1;

static int m_alloc(void *ctx, uint64_t len, void **gpu)
{
	(void)ctx;
	if (step("mem_alloc:%u", (unsigned)(len >> 12)) || mem_alloc_fails)
		return marrow_fail(MARROW_ENOMEM, "stand-in: out of GPU memory");
	mem_raw = aligned_alloc(4096, len + 4096);
	mem_len = len;
	memset(mem_raw, 0x5a, len + 4096);
	mem_given = mem_raw + 256;
	*gpu = mem_given;
	return 0;
}

static int m_free(void *ctx, void *gpu)
{
	(void)ctx;
	step("mem_free:%u", gpu == mem_given);
	mem_frees++;
	free(mem_raw);
	mem_raw = NULL;
	return 0;
}

static int m_dmabuf(void *ctx, void *gpu, uint64_t len, int32_t *fd, uint64_t *off)
{
	(void)ctx;
	step("dmabuf:%u", ((uintptr_t)gpu % 4096) == 0 && (uint8_t *)gpu + len <= mem_raw + mem_len + 4096);
	if (dmabuf_refused)
		return marrow_fail(MARROW_ENOSYS, "stand-in: no dma-buf");
	*fd = last_fd = open("/dev/null", O_RDONLY);
	*off = 0x10000; /* where gpu sits inside the exported buffer */
	return 0;
}

static int m_from_gpu(void *ctx, void *dst, const void *src, size_t n)
{
	(void)ctx;
	from_copies++;
	memcpy(dst, src, n);
	return 0;
}

static struct marrow_mlx5_gpu_mem_ops stand_in(void)
{
	struct marrow_mlx5_gpu_mem_ops o = {
		.size = sizeof(o), .alloc = m_alloc, .free = m_free, .dmabuf_fd = m_dmabuf,
		.to_gpu = to_gpu, .from_gpu = m_from_gpu, .ctx = NULL,
	};
	return o;
}

static void reset_mem(void)
{
	reset_fake();
	mem_alloc_fails = dmabuf_refused = mem_frees = from_copies = 0;
	last_fd = -1;
}

/* The teardown the brief of issue 9 asks for: QP, CQ, umems, UAR, then the GPU memory. */
static void open_lays_out_and_tears_down_in_order(void)
{
	struct marrow_mlx5_gpu_mem_ops ops = stand_in();
	struct devx_mem_layout l;
	struct devx_qp q;
	uint32_t pi, ci;
	uint8_t *start;

	reset_mem();
	CHECK(devx_qp_open(&fake, &ops, (struct ibv_context *)&objs, 0xbeef, 8, 8, NULL, &q) == MARROW_OK, "open: %s",
	      marrow_last_error());
	devx_mem_layout(8, 8, &l);
	CHECK(l.cq_off == 16384 && l.dbr_off == 32768 && l.total == 36864, "layout %zu %zu %zu", l.cq_off, l.dbr_off,
	      l.total);
	start = mem_raw + 4096; /* mem_given rounded up to 4 KiB */
	CHECK(q.spec.sq.addr == start && q.spec.cq.addr == start + l.cq_off && q.spec.dbr.addr == start + l.dbr_off,
	      "buffers at their 4 KiB-aligned offsets");
	CHECK(strcmp(calls[0], "mem_alloc:10") == 0 && strcmp(calls[1], "dmabuf:1") == 0,
	      "alloc of total + a page, one aligned dma-buf: %s %s", calls[0], calls[1]);
	CHECK(strcmp(calls[2], "alloc_uar:1") == 0 && strncmp(calls[3], "umem_reg_ex", 11) == 0,
	      "then the UAR and dma-buf umems: %s %s", calls[2], calls[3]);
	CHECK(last_umem_in.dmabuf_fd == last_fd && (uintptr_t)last_umem_in.addr == 0x10000 + l.dbr_off,
	      "the DBR umem: fd %d, offset 0x%llx in the dma-buf", last_umem_in.dmabuf_fd,
	      (unsigned long long)(uintptr_t)last_umem_in.addr);
	CHECK(last_fd >= 0 && fcntl(last_fd, F_GETFD) == -1, "the dma-buf fd is closed once the umems hold it");
	CHECK(q.note[0] == '\0', "no fallback: '%s'", q.note);
	for (int i = 0; i < 256; i++)
		CHECK(start[l.cq_off + (size_t)i * 64 + 63] == 0xf0, "CQE %d initialised through to_gpu", i);

	/* host-side resume through from_gpu: the host never loads the "GPU" memory itself */
	start[l.dbr_off + 6] = 0x02; start[l.dbr_off + 7] = 0x10;                      /* SQ counter 0x210 */
	start[l.dbr_off + 64 + 2] = 0x01; start[l.dbr_off + 64 + 3] = 0x08;            /* CQ ci 0x108 */
	CHECK(devx_qp_read_indexes(&q, &pi, &ci) == MARROW_OK && pi == 0x210 && ci == 0x108 && from_copies == 1,
	      "resume pi 0x%x ci 0x%x over %d copies", pi, ci, from_copies);

	ncalls = 0;
	CHECK(devx_qp_destroy(&q) == MARROW_OK, "destroy: %s", marrow_last_error());
	const char *order[] = {"obj_destroy:1", "obj_destroy:0", "umem_dereg:258", "umem_dereg:257",
			       "umem_dereg:256", "free_uar:43981", "mem_free:1"};
	CHECK(ncalls == 7, "%d teardown calls", ncalls);
	for (int i = 0; i < 7 && i < ncalls; i++)
		CHECK(strcmp(calls[i], order[i]) == 0, "teardown %d: %s, want %s", i, calls[i], order[i]);
	CHECK(mem_frees == 1 && q.mem_base == NULL, "the memory is freed once");
}

/* Every failing step of open: DevX objects released newest first, then the memory, once; fd closed. */
static void open_failures_free_the_memory_last(void)
{
	struct marrow_mlx5_gpu_mem_ops ops = stand_in();
	struct devx_fns f = fake;
	struct devx_qp q;

	for (int k = 2; k < 9; k++) { /* calls 0, 1: alloc and dma-buf; 2..8: the create steps */
		reset_mem();
		if (k == 2)
			uar_refused = 1; /* NC and BF both refused */
		else
			fail_at = k;
		CHECK(devx_qp_open(&fake, &ops, (struct ibv_context *)&objs, 1, 8, 8, NULL, &q) != MARROW_OK,
		      "step %d fails", k);
		CHECK(mem_frees == 1 && strcmp(calls[ncalls - 1], "mem_free:1") == 0,
		      "step %d: the memory is freed, last (%s)", k, calls[ncalls - 1]);
		CHECK(last_fd >= 0 && fcntl(last_fd, F_GETFD) == -1, "step %d: the fd is closed", k);
		CHECK(q.f == NULL && q.mem_base == NULL && q.qp == NULL, "step %d: nothing held", k);
	}
	reset_mem();
	mem_alloc_fails = 1;
	CHECK(devx_qp_open(&fake, &ops, (struct ibv_context *)&objs, 1, 8, 8, NULL, &q) == MARROW_ENOMEM &&
	      strstr(marrow_last_error(), "out of GPU memory") && ncalls == 1,
	      "a refused allocation is reported and nothing else is called: %s", marrow_last_error());
	reset_mem();
	f.obj_modify = NULL;
	CHECK(devx_qp_open(&f, &ops, (struct ibv_context *)&objs, 1, 8, 8, NULL, &q) == MARROW_ENODEV && ncalls == 0,
	      "no DevX: ENODEV before any GPU memory is taken (%d calls): %s", ncalls, marrow_last_error());
	reset_mem();
	CHECK(devx_qp_open(&fake, &ops, (struct ibv_context *)&objs, 1, 16, 8, NULL, &q) == MARROW_EINVAL && ncalls == 0,
	      "log_sq 16 refused before allocating");
	ops.size = 8;
	CHECK(devx_qp_open(&fake, &ops, (struct ibv_context *)&objs, 1, 8, 8, NULL, &q) == MARROW_EINVAL, "short ops");
}

/* No dma-buf export: umems from device pointers, and the note says so. */
static void open_without_dmabuf_notes_peer_memory(void)
{
	struct marrow_mlx5_gpu_mem_ops ops = stand_in();
	struct devx_qp q;

	reset_mem();
	dmabuf_refused = 1;
	CHECK(devx_qp_open(&fake, &ops, (struct ibv_context *)&objs, 1, 8, 8, NULL, &q) == MARROW_OK, "open: %s",
	      marrow_last_error());
	CHECK(strncmp(calls[3], "umem_reg:", 9) == 0, "device-pointer umems: %s", calls[3]);
	CHECK(strstr(q.note, "dma-buf export refused") && strstr(q.note, "peer-memory"), "note: %s", q.note);
	CHECK(devx_qp_destroy(&q) == MARROW_OK && mem_frees == 1, "destroy frees the memory");
	reset_mem();
	ops.dmabuf_fd = NULL;
	CHECK(devx_qp_open(&fake, &ops, (struct ibv_context *)&objs, 1, 8, 8, NULL, &q) == MARROW_OK &&
	      strstr(q.note, "no dma-buf export"), "no exporter: note '%s'", q.note);
	devx_qp_destroy(&q);
}

/* ---- the value defects of part 4 (docs/design/mlx5-queue-formats.md §7.3, §7.4) ---- */

/* CREATE_CQ names the EQ in the 32-bit c_eqn_or_apu_element (an EQN above
 * 255 survives); CREATE_QP's ts_format is the one the caps chose. */
static void cq_eqn_is_wide_and_ts_format_follows_the_caps(void)
{
	struct devx_qp_spec s = spec(0);
	struct devx_qp q;

	reset_fake();
	fake_eqn = 0x1a7;
	s.caps.ts_format = PRM_TS_FORMAT_DEFAULT;
	CHECK(devx_qp_create(&fake, &s, &q) == MARROW_OK, "create: %s", marrow_last_error());
	CHECK(prm_get32(cmds[0], PRM_CREATE_CQ_CTX + PRM_CQC_C_EQN_OR_APU_ELEMENT) == 0x1a7,
	      "cqc.c_eqn_or_apu_element 0x%x, want the EQN 0x1a7 whole",
	      prm_get32(cmds[0], PRM_CREATE_CQ_CTX + PRM_CQC_C_EQN_OR_APU_ELEMENT));
	CHECK(prm_get32(cmds[1], PRM_CREATE_QP_QPC + PRM_QPC_TS_FORMAT) == PRM_TS_FORMAT_DEFAULT,
	      "qpc.ts_format %u, want DEFAULT (1) as the caps said",
	      prm_get32(cmds[1], PRM_CREATE_QP_QPC + PRM_QPC_TS_FORMAT));
	devx_qp_destroy(&q);
}

static void caps_decide_ts_format_depths_and_lag(void)
{
	struct devx_caps c;

	/* the kernel's rule: free-running where offered, else the default */
	CHECK(devx_pick_ts_format(0) == 0 && devx_pick_ts_format(2) == 0 && devx_pick_ts_format(1) == 1,
	      "ts rule: cap 0 -> %u, 2 -> %u, 1 -> %u", devx_pick_ts_format(0), devx_pick_ts_format(2),
	      devx_pick_ts_format(1));
	reset_fake();
	CHECK(devx_caps_query(&fake, (struct ibv_context *)&objs, 1, &c) == MARROW_OK, "query: %s",
	      marrow_last_error());
	CHECK(ncmds == 2 && prm_get32(cmds[0], 0x00, 16) == 0x100 && prm_get32(cmds[0], 0x30, 16) == 1 &&
	      prm_get32(cmds[1], 0x30, 16) == 9, "RoCE port: general caps (op_mod 1) then RoCE caps (op_mod 9); "
	      "%d commands", ncmds);
	CHECK(c.max_rd_atomic == 16 && c.max_dest_rd_atomic == 8, "depth caps %u / %u, want 2^4 / 2^3",
	      c.max_rd_atomic, c.max_dest_rd_atomic);
	CHECK(c.ts_format == PRM_TS_FORMAT_FREE_RUNNING && c.lag_ports == 0, "RoCE qp_ts_format 2: free-running "
	      "(%u); no LAG (%u)", c.ts_format, c.lag_ports);
	reset_fake();
	CHECK(devx_caps_query(&fake, (struct ibv_context *)&objs, 0, &c) == MARROW_OK && ncmds == 1 &&
	      c.ts_format == PRM_TS_FORMAT_DEFAULT, "InfiniBand port: sq_ts_format 1 (real-time only) -> DEFAULT "
	      "(%u), %d commands", c.ts_format, ncmds);
	reset_fake();
	cap_lag_ports = 2;
	cap_lag_aff = 1;
	CHECK(devx_caps_query(&fake, (struct ibv_context *)&objs, 1, &c) == MARROW_OK && c.lag_ports == 2 &&
	      ncmds == 2, "LAG by capability: %u ports, %d commands (no QUERY_LAG)", c.lag_ports, ncmds);
	reset_fake();
	cap_lag_ports = 2;
	lag_state_reply = 1;
	CHECK(devx_caps_query(&fake, (struct ibv_context *)&objs, 1, &c) == MARROW_OK && c.lag_ports == 2 &&
	      ncmds == 3 && prm_get32(cmds[2], 0x00, 16) == 0x842, "LAG by QUERY_LAG state: %u ports", c.lag_ports);
	reset_fake();
	cap_lag_ports = 2;
	CHECK(devx_caps_query(&fake, (struct ibv_context *)&objs, 1, &c) == MARROW_OK && c.lag_ports == 0,
	      "two LAG ports but not bonded: no affinity (%u)", c.lag_ports);
	reset_fake();
	general_fails = 1;
	CHECK(devx_caps_query(&fake, (struct ibv_context *)&objs, 1, &c) == MARROW_EIO &&
	      strstr(marrow_last_error(), "QUERY_HCA_CAP") && c.max_rd_atomic == 0, "refused query: %s",
	      marrow_last_error());
	struct devx_fns f = fake;
	f.general_cmd = NULL;
	CHECK(devx_caps_query(&f, (struct ibv_context *)&objs, 1, &c) == MARROW_ENOSYS, "no general_cmd");
}

/* On bonded ports RST2INIT names the LAG port (1-based); elsewhere 0. */
static void lag_port_in_rst2init(void)
{
	struct prm_rtr_args rtr = {.remote_qpn = 0x777, .mtu = 3, .port = 1};
	struct prm_rts_args rts = {.ack_timeout = 14};

	for (uint32_t lag = 0; lag <= 2; lag += 2) {
		struct devx_qp_spec s = spec(0);
		struct devx_qp q;

		reset_fake();
		s.caps.lag_ports = lag;
		CHECK(devx_qp_create(&fake, &s, &q) == MARROW_OK, "create: %s", marrow_last_error());
		CHECK(devx_qp_connect(&q, 1, IBV_ACCESS_REMOTE_WRITE, &rtr, &rts) == MARROW_OK, "connect: %s",
		      marrow_last_error());
		uint32_t got = prm_get32(cmds[2], PRM_MODIFY_QP_QPC + PRM_QPC_LAG_TX_PORT_AFFINITY);
		CHECK(got == (lag ? 1 + 0xa51 % 2 : 0), "lag_ports %u: qpc.lag_tx_port_affinity %u", lag, got);
		devx_qp_destroy(&q);
	}
}

/* ERR -> RST -> INIT -> RTR -> RTS: 2RST_QP, then the same three boxes; the
 * QP doorbell record restarts at 0, the CQ's is left alone. */
static void recovery_resets_and_reconnects(void)
{
	struct devx_qp_spec s = spec(0);
	struct devx_qp q;
	struct prm_rtr_args rtr = {.remote_qpn = 0x777, .mtu = 3, .rq_psn = 0x1234, .port = 1, .roce = 1,
				   .rgid = {0xfe, 0x80}, .rmac = {1, 2, 3, 4, 5, 6}, .hop_limit = 64, .sl = 3};
	struct prm_rts_args rts = {.sq_psn = 0x4321, .ack_timeout = 14, .retry_cnt = 7, .rnr_retry = 6};
	uint8_t cq_dbr[8];

	reset_fake();
	CHECK(devx_qp_create(&fake, &s, &q) == MARROW_OK, "create: %s", marrow_last_error());
	CHECK(devx_qp_recover(&q) == MARROW_EINVAL, "recover before any connect is refused");
	CHECK(devx_qp_connect(&q, 1, IBV_ACCESS_REMOTE_WRITE, &rtr, &rts) == MARROW_OK, "connect: %s",
	      marrow_last_error());
	q.state = IBV_QPS_ERR; /* an error CQE moved it */
	memset(dbr_mem, 0x33, 8);             /* SQ and RQ counters moved */
	memset(dbr_mem + DEVX_CQ_DBR_OFFSET, 0x44, 8);
	memcpy(cq_dbr, dbr_mem + DEVX_CQ_DBR_OFFSET, 8);
	CHECK(devx_qp_recover(&q) == MARROW_OK, "recover: %s", marrow_last_error());
	CHECK(ncmds == 9, "2RST + three transitions after create and connect: %d commands", ncmds);
	CHECK(cmd_len[5] == PRM_2RST_QP_IN_BYTES && prm_get32(cmds[5], PRM_IN_OPCODE) == PRM_OP_2RST_QP &&
	      prm_get32(cmds[5], PRM_2RST_QP_QPN) == 0xa51, "2RST_QP box: len %zu opcode 0x%x qpn 0x%x", cmd_len[5],
	      prm_get32(cmds[5], PRM_IN_OPCODE), prm_get32(cmds[5], PRM_2RST_QP_QPN));
	for (int i = 0; i < 3; i++)
		CHECK(memcmp(cmds[6 + i], cmds[2 + i], PRM_MODIFY_QP_IN_BYTES) == 0,
		      "recovery transition %d has the first connect's box", i);
	for (int i = 0; i < 8; i++)
		CHECK(dbr_mem[i] == 0, "QP DBR byte %d = 0x%02x after RESET (SQ restarts at 0)", i, dbr_mem[i]);
	CHECK(memcmp(dbr_mem + DEVX_CQ_DBR_OFFSET, cq_dbr, 8) == 0 && q.drained == 0,
	      "no CQE left behind: the CQ doorbell record is not touched (%u drained)", q.drained);
	CHECK(q.state == IBV_QPS_RTS, "state %d", q.state);
	/* CQEs the QP left behind (an error CQE, two flushes) at consumer index
	 * 261 = slot 5 of lap 1 (owner 1): stepped over, the index goes to 264
	 * where a lap-0 leftover (owner 0) is not of this lap and stops the walk */
	q.state = IBV_QPS_ERR;
	dbr_mem[DEVX_CQ_DBR_OFFSET + 0] = 0; dbr_mem[DEVX_CQ_DBR_OFFSET + 1] = 0;
	dbr_mem[DEVX_CQ_DBR_OFFSET + 2] = 0x01; dbr_mem[DEVX_CQ_DBR_OFFSET + 3] = 0x05;
	cq_mem[5 * 64 + 63] = 0xd1;  /* requester error CQE, owner 1 */
	cq_mem[6 * 64 + 63] = 0xd1;
	cq_mem[7 * 64 + 63] = 0xd1;
	cq_mem[8 * 64 + 63] = 0x00;  /* owner 0: last lap's */
	CHECK(devx_qp_recover(&q) == MARROW_OK, "recover after an error: %s", marrow_last_error());
	CHECK(q.drained == 3 && dbr_mem[DEVX_CQ_DBR_OFFSET + 2] == 0x01 && dbr_mem[DEVX_CQ_DBR_OFFSET + 3] == 0x08,
	      "three leftover CQEs stepped over: %u drained, CQ index 0x%02x%02x (want 0x108)", q.drained,
	      dbr_mem[DEVX_CQ_DBR_OFFSET + 2], dbr_mem[DEVX_CQ_DBR_OFFSET + 3]);
	/* a refused 2RST leaves the doorbell record alone and says so */
	memset(dbr_mem, 0x33, 8);
	fail_at = ncalls;
	CHECK(devx_qp_reset(&q) == MARROW_EIO && strstr(marrow_last_error(), "2RST_QP on QP 0xa51") &&
	      dbr_mem[0] == 0x33, "refused 2RST: %s", marrow_last_error());
	devx_qp_destroy(&q);
}

int main(void)
{
	commands_are_exact();
	every_failure_releases_in_reverse();
	connect_failure_names_the_step();
	missing_symbols_are_named();
	dmabuf_and_fallback_notes();
	bad_specs_are_refused();
	link_local_mac();
	open_lays_out_and_tears_down_in_order();
	open_failures_free_the_memory_last();
	open_without_dmabuf_notes_peer_memory();
	cq_eqn_is_wide_and_ts_format_follows_the_caps();
	caps_decide_ts_format_depths_and_lag();
	lag_port_in_rst2init();
	recovery_resets_and_reconnects();
	if (failures) {
		printf("verbs_test_devx: %d failure(s)\n", failures);
		return 1;
	}
	printf("verbs_test_devx: all checks passed\n");
	return 0;
}
