/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Golden bytes of the DevX PRM commands mlx5_prm.h builds (CREATE_CQ,
 * CREATE_QP, RST2INIT, INIT2RTR, RTR2RTS). The field layouts below are
 * written here a second time, as facts of the PRM (the kernel's
 * mlx5_ifc.h: mlx5_ifc_create_cq_in_bits, _cqc_bits, _create_qp_in_bits,
 * _qpc_bits, _ads_bits, _rst2init/_init2rtr/_rtr2rts_qp_in_bits), and
 * read back with a bit reader of this file's own: every field a builder
 * sets must hold its value at exactly that place, and no other bit of the
 * command may be set. A few whole bytes are checked literally as well.
 * Needs no device (the commands are only encoded).
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "verbs/mlx5_prm.h"

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

/* Bit i of the command, bit 0 = MSB of byte 0 (the PRM's numbering). */
static int bit(const uint8_t *b, uint32_t i)
{
	return (b[i / 8] >> (7 - i % 8)) & 1;
}

static uint64_t get(const uint8_t *b, uint32_t off, uint32_t width)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < width; i++)
		v = (v << 1) | (uint64_t)bit(b, off + i);
	return v;
}

static void clear(uint8_t *b, uint32_t off, uint32_t width)
{
	for (uint32_t i = off; i < off + width; i++)
		b[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
}

struct fact {
	const char *name;
	uint32_t off, width;
	uint64_t want;
};

/* Every fact holds its value, and nothing else is set. */
static void check_facts(const char *cmd, const uint8_t *in, size_t len, const struct fact *f, size_t n)
{
	uint8_t rest[512];

	memcpy(rest, in, len);
	for (size_t i = 0; i < n; i++) {
		uint64_t got = get(in, f[i].off, f[i].width);
		CHECK(got == f[i].want, "%s.%s (bit 0x%x, %u bits) = 0x%llx, want 0x%llx", cmd, f[i].name, f[i].off,
		      f[i].width, (unsigned long long)got, (unsigned long long)f[i].want);
		clear(rest, f[i].off, f[i].width);
	}
	for (size_t i = 0; i < len; i++)
		CHECK(rest[i] == 0, "%s: byte %zu = 0x%02x is set by no field of the command", cmd, i, rest[i]);
}

/* Offsets from the PRM, absolute within each command (cqc at 0x80 of
 * create_cq_in; qpc at 0xc0 of create_qp_in and the modify commands; the
 * primary address path at 0xc0 of the qpc, i.e. 0x180). */
enum { CQC = 0x80, QPC = 0xc0, ADS = 0xc0 + 0xc0 };

static void create_cq(void)
{
	uint8_t in[PRM_CREATE_CQ_IN_BYTES];
	struct prm_cq_args a = {.log_cqe_cnt = 10, .uar_page = 0x123456, .eqn = 0x1235a, .cq_umem_id = 0xa1b2c3d4,
				.cq_umem_offset = 0x1122334455667788ull, .dbr_umem_id = 0x0badf00d,
				.dbr_offset = 0x40, .collapsed = 1, .overrun_ignore = 1};
	const struct fact f[] = {
		{"opcode", 0x00, 16, 0x400},
		{"cqc.dbr_umem_valid", CQC + 0x06, 1, 1},
		{"cqc.cqe_sz", CQC + 0x08, 3, 0},
		{"cqc.cc", CQC + 0x0b, 1, 1},
		{"cqc.oi", CQC + 0x0e, 1, 1},
		{"cqc.dbr_umem_id", CQC + 0x20, 32, 0x0badf00d},
		{"cqc.log_cq_size", CQC + 0x63, 5, 10},
		{"cqc.uar_page", CQC + 0x68, 24, 0x123456},
		/* c_eqn_or_apu_element: the whole word (the old c_eqn was its low byte) */
		{"cqc.c_eqn_or_apu_element", CQC + 0xa0, 32, 0x1235a},
		{"cqc.log_page_size", CQC + 0xc3, 5, 0},
		{"cqc.dbr_addr", CQC + 0x1c0, 64, 0x40},
		{"cq_umem_offset", 0x280, 64, 0x1122334455667788ull},
		{"cq_umem_id", 0x2c0, 32, 0xa1b2c3d4},
		{"cq_umem_valid", 0x2e0, 1, 1},
	};

	CHECK(sizeof(in) == 272, "create_cq_in is 0x880 bits");
	prm_create_cq(in, &a);
	check_facts("create_cq_in", in, sizeof(in), f, sizeof(f) / sizeof(f[0]));
	/* Literal bytes: the opcode, then log_cq_size 10 in byte 28 and the UAR page after it. */
	CHECK(in[0] == 0x04 && in[1] == 0x00, "opcode bytes %02x %02x", in[0], in[1]);
	CHECK(in[28] == 0x0a && in[29] == 0x12 && in[30] == 0x34 && in[31] == 0x56, "cqc word 3: %02x %02x %02x %02x",
	      in[28], in[29], in[30], in[31]);
	CHECK(in[17] == 0x12, "cqc byte 1 (cc bit 3, oi bit 6 of the first word): 0x%02x", in[17]);
}

static void create_qp(void)
{
	uint8_t in[PRM_CREATE_QP_IN_BYTES];
	struct prm_qp_args a = {.pd = 0x00beef, .log_sq_wqebb_cnt = 8, .uar_page = 0x654321, .cqn_snd = 0x000401,
				.cqn_rcv = 0x000402, .user_index = 0x77, .wq_umem_id = 0x01020304,
				.wq_umem_offset = 0x1000, .dbr_umem_id = 0x05060708, .dbr_offset = 0x80,
				.ts_format = 1};
	const struct fact f[] = {
		{"opcode", 0x00, 16, 0x500},
		{"qpc.st", QPC + 0x08, 8, 0},
		{"qpc.pm_state", QPC + 0x13, 2, 3},
		{"qpc.pd", QPC + 0x28, 24, 0x00beef},
		{"qpc.log_sq_size", QPC + 0x51, 4, 8},
		{"qpc.ts_format", QPC + 0x58, 2, 1},
		{"qpc.uar_page", QPC + 0x68, 24, 0x654321},
		{"qpc.user_index", QPC + 0x88, 24, 0x77},
		{"qpc.log_page_size", QPC + 0xa3, 5, 0},
		{"qpc.cqn_snd", QPC + 0x3e8, 24, 0x401},
		{"qpc.cqn_rcv", QPC + 0x4e8, 24, 0x402},
		{"qpc.dbr_addr", QPC + 0x500, 64, 0x80},
		{"qpc.rq_type", QPC + 0x565, 3, 3},
		{"qpc.dbr_umem_valid", QPC + 0x683, 1, 1},
		{"qpc.dbr_umem_id", QPC + 0x720, 32, 0x05060708},
		{"wq_umem_offset", 0x800, 64, 0x1000},
		{"wq_umem_id", 0x840, 32, 0x01020304},
		{"wq_umem_valid", 0x860, 1, 1},
	};

	CHECK(sizeof(in) == 272, "create_qp_in is 0x880 bits");
	prm_create_qp(in, &a);
	check_facts("create_qp_in", in, sizeof(in), f, sizeof(f) / sizeof(f[0]));
	CHECK(in[0] == 0x05 && in[1] == 0x00, "opcode bytes %02x %02x", in[0], in[1]);
	/* qpc word 1 (bytes 28..31): pd 0x00beef in the low 24 bits */
	CHECK(in[29] == 0x00 && in[30] == 0xbe && in[31] == 0xef, "pd bytes %02x %02x %02x", in[29], in[30], in[31]);
}

static void modify(void)
{
	uint8_t in[PRM_MODIFY_QP_IN_BYTES];
	const struct fact init[] = {
		{"opcode", 0x00, 16, 0x502},
		{"qpn", 0x48, 24, 0x1234},
		{"qpc.pm_state", QPC + 0x13, 2, 3},
		{"qpc.lag_tx_port_affinity", QPC + 0x04, 4, 2},
		{"qpc.ads.vhca_port_num", ADS + 0x128, 8, 1},
		{"qpc.rre", QPC + 0x490, 1, 0},
		{"qpc.rwe", QPC + 0x491, 1, 1},
		{"qpc.rae", QPC + 0x492, 1, 0},
	};

	CHECK(sizeof(in) == 272, "modify_qp_in is 0x880 bits");
	prm_rst2init(in, &(struct prm_init_args){.qpn = 0x1234, .port = 1, .rwe = 1, .lag_tx_port = 2});
	check_facts("rst2init_qp_in", in, sizeof(in), init, sizeof(init) / sizeof(init[0]));

	struct prm_rtr_args r = {.qpn = 0x1234, .remote_qpn = 0x5678, .mtu = 5, .rq_psn = 0xabcdef, .min_rnr_timer = 12,
				 .log_rra_max = 4, .port = 1, .roce = 1,
				 .rgid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55},
				 .rmac = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55}, .hop_limit = 64, .sgid_index = 3,
				 .udp_sport = 0xc000, .sl = 5, .traffic_class = 0x6a, .roce_v2 = 1};
	const struct fact rtr[] = {
		{"opcode", 0x00, 16, 0x503},
		{"qpn", 0x48, 24, 0x1234},
		{"qpc.mtu", QPC + 0x40, 3, 5},
		{"qpc.log_msg_max", QPC + 0x43, 5, 30},
		{"qpc.remote_qpn", QPC + 0xa8, 24, 0x5678},
		{"qpc.next_rcv_psn", QPC + 0x4a8, 24, 0xabcdef},
		{"qpc.min_rnr_nak", QPC + 0x4a3, 5, 12},
		{"qpc.log_rra_max", QPC + 0x488, 3, 4},
		{"qpc.ads.vhca_port_num", ADS + 0x128, 8, 1},
		/* RoCE: grh stays 0 (the kernel sets it on InfiniBand only); the
		 * priority goes to eth_prio, the traffic class to tclass and dscp */
		{"qpc.ads.grh", ADS + 0x28, 1, 0},
		{"qpc.ads.eth_prio", ADS + 0x121, 3, 5},
		{"qpc.ads.tclass", ADS + 0x64, 8, 0x6a},
		{"qpc.ads.dscp", ADS + 0x10a, 6, 0x6a >> 2},
		{"qpc.ads.hop_limit", ADS + 0x58, 8, 64},
		{"qpc.ads.src_addr_index", ADS + 0x48, 8, 3},
		{"qpc.ads.udp_sport", ADS + 0x110, 16, 0xc000},
		{"qpc.ads.rgid[0..7]", ADS + 0x80, 64, 0xfe80000000000000ull},
		{"qpc.ads.rgid[8..15]", ADS + 0xc0, 64, 0x021122fffe334455ull},
		{"qpc.ads.rmac_47_32", ADS + 0x130, 16, 0x0211},
		{"qpc.ads.rmac_31_0", ADS + 0x140, 32, 0x22334455},
	};
	prm_init2rtr(in, &r);
	check_facts("init2rtr_qp_in (RoCE)", in, sizeof(in), rtr, sizeof(rtr) / sizeof(rtr[0]));
	/* the GID as bytes: ads starts at byte 0x180 / 8 = 48, rgid 16 bytes later */
	CHECK(in[64] == 0xfe && in[65] == 0x80 && in[79] == 0x55, "rgid bytes %02x %02x .. %02x", in[64], in[65], in[79]);

	struct prm_rtr_args ib = {.qpn = 7, .remote_qpn = 9, .mtu = 4, .rq_psn = 1, .min_rnr_timer = 1, .port = 2,
				  .rlid = 0x0042, .sl = 5};
	const struct fact rtr_ib[] = {
		{"opcode", 0x00, 16, 0x503},
		{"qpn", 0x48, 24, 7},
		{"qpc.mtu", QPC + 0x40, 3, 4},
		{"qpc.log_msg_max", QPC + 0x43, 5, 30},
		{"qpc.remote_qpn", QPC + 0xa8, 24, 9},
		{"qpc.next_rcv_psn", QPC + 0x4a8, 24, 1},
		{"qpc.min_rnr_nak", QPC + 0x4a3, 5, 1},
		{"qpc.ads.vhca_port_num", ADS + 0x128, 8, 2},
		{"qpc.ads.rlid", ADS + 0x30, 16, 0x42},
		{"qpc.ads.sl", ADS + 0x124, 4, 5},
	};
	prm_init2rtr(in, &ib);
	check_facts("init2rtr_qp_in (IB)", in, sizeof(in), rtr_ib, sizeof(rtr_ib) / sizeof(rtr_ib[0]));

	struct prm_rts_args s = {.qpn = 0x1234, .sq_psn = 0x00fedc, .ack_timeout = 14, .retry_cnt = 7, .rnr_retry = 6,
				 .log_sra_max = 2};
	const struct fact rts[] = {
		{"opcode", 0x00, 16, 0x504},
		{"qpn", 0x48, 24, 0x1234},
		{"qpc.next_send_psn", QPC + 0x3c8, 24, 0x00fedc},
		{"qpc.retry_count", QPC + 0x38d, 3, 7},
		{"qpc.rnr_retry", QPC + 0x390, 3, 6},
		{"qpc.log_sra_max", QPC + 0x388, 3, 2},
		{"qpc.ads.ack_timeout", ADS + 0x40, 5, 14},
	};
	prm_rtr2rts(in, &s);
	check_facts("rtr2rts_qp_in", in, sizeof(in), rts, sizeof(rts) / sizeof(rts[0]));

	/* qp_2rst_in: 0x80 bits, opcode and qpn */
	uint8_t rst[PRM_2RST_QP_IN_BYTES];
	const struct fact rst_f[] = {
		{"opcode", 0x00, 16, 0x50a},
		{"qpn", 0x48, 24, 0xabcdef},
	};
	CHECK(sizeof(rst) == 16, "qp_2rst_in is 0x80 bits");
	prm_2rst(rst, 0xabcdef);
	check_facts("qp_2rst_in", rst, sizeof(rst), rst_f, sizeof(rst_f) / sizeof(rst_f[0]));
}

/* QUERY_HCA_CAP / QUERY_LAG: the inputs, and the capability fields read
 * back at their offsets (cmd_hca_cap, roce_cap, lagc of mlx5_ifc.h). */
static void queries(void)
{
	uint8_t in[PRM_QUERY_IN_BYTES];
	const struct fact gen[] = {{"opcode", 0x00, 16, 0x100}, {"op_mod", 0x30, 16, 1}};
	const struct fact roce[] = {{"opcode", 0x00, 16, 0x100}, {"op_mod", 0x30, 16, (4 << 1) | 1}};
	const struct fact lag[] = {{"opcode", 0x00, 16, 0x842}};
	static const struct {
		const char *name;
		uint32_t off, width, macro_off, macro_width;
	} cap[] = {
		{"log_max_ra_req_qp", 0x14a, 6, PRM_CAP_LOG_MAX_RA_REQ_QP},
		{"log_max_ra_res_qp", 0x15a, 6, PRM_CAP_LOG_MAX_RA_RES_QP},
		{"roce", 0x21d, 1, PRM_CAP_ROCE},
		{"lag_tx_port_affinity", 0x278, 1, PRM_CAP_LAG_TX_PORT_AFFINITY},
		{"num_lag_ports", 0x27c, 4, PRM_CAP_NUM_LAG_PORTS},
		{"sq_ts_format", 0x440, 2, PRM_CAP_SQ_TS_FORMAT},
		{"roce_cap.qp_ts_format", 0x1e, 2, PRM_ROCE_CAP_QP_TS_FORMAT},
		{"query_lag_out.ctx.lag_state (from the output's start)", 0x40 + 0x1d, 3, PRM_QUERY_LAG_STATE},
	};

	prm_query_hca_cap(in, PRM_HCA_CAP_GENERAL);
	check_facts("query_hca_cap_in (general)", in, sizeof(in), gen, 2);
	prm_query_hca_cap(in, PRM_HCA_CAP_ROCE);
	check_facts("query_hca_cap_in (RoCE)", in, sizeof(in), roce, 2);
	prm_query_lag(in);
	check_facts("query_lag_in", in, sizeof(in), lag, 1);
	CHECK(PRM_HCA_CAP_OUT == 0x80, "the capability starts at bit 0x80 of query_hca_cap_out");
	for (size_t i = 0; i < sizeof(cap) / sizeof(cap[0]); i++)
		CHECK(cap[i].off == cap[i].macro_off && cap[i].width == cap[i].macro_width,
		      "%s at (0x%x, %u), mlx5_prm.h says (0x%x, %u)", cap[i].name, cap[i].off, cap[i].width,
		      cap[i].macro_off, cap[i].macro_width);
}

static void output_fields(void)
{
	/* create_cq_out / create_qp_out: status byte 0, syndrome word 1, id in the low 24 bits of word 2. */
	uint8_t out[PRM_OUT_BYTES] = {0x00, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0xaa, 0x00, 0x04, 0x07, 0, 0, 0, 0};

	CHECK(prm_get32(out, PRM_OUT_STATUS) == 0, "status");
	CHECK(prm_get32(out, PRM_OUT_SYNDROME) == 0x12345678, "syndrome 0x%x", prm_get32(out, PRM_OUT_SYNDROME));
	CHECK(prm_get32(out, PRM_OUT_OBJ_ID) == 0x000407, "object id 0x%x (the top byte is reserved)",
	      prm_get32(out, PRM_OUT_OBJ_ID));
}

int main(void)
{
	create_cq();
	create_qp();
	modify();
	queries();
	output_fields();
	if (failures) {
		printf("test_mlx5_prm_golden: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_mlx5_prm_golden: all checks passed\n");
	return 0;
}
