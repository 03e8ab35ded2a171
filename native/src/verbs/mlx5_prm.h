/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mlx5 PRM command encoders for GPU-resident queues through DevX (the
 * commands mlx5dv_devx_obj_create / _obj_modify carry): CREATE_CQ,
 * CREATE_QP and the RC state changes RST2INIT, INIT2RTR, RTR2RTS, with the
 * SQ/CQ buffers and doorbell records in DevX umem (GPU memory registered
 * with mlx5dv_devx_umem_reg). Pure byte encoding, no rdma-core call: the
 * field offsets below are facts of the mlx5 programmer's reference
 * (PRM), as the kernel's mlx5_ifc.h declares them; they are listed with
 * their meaning in docs/design/mlx5-queue-formats.md §6 and every one is
 * checked by native/tests/test_mlx5_prm_golden.c.
 *
 * Convention (PRM): a command is an array of big-endian 32-bit words; a
 * field is (bit offset, width), bit 0 being the most significant bit of
 * word 0. Fields never straddle a word, except the 64-bit ones, which are
 * word aligned.
 *
 * The DevX runtime that issues them is mlx5_devx_qp.c
 * (docs/design/mlx5-queue-formats.md §7).
 */
#ifndef MARROW_MLX5_PRM_H
#define MARROW_MLX5_PRM_H

#include <stdint.h>
#include <string.h>

#include "marrow/mlx5_wqe.h"

/* ---- opcodes ------------------------------------------------------------- */
enum {
	PRM_OP_CREATE_CQ = 0x400,
	PRM_OP_CREATE_QP = 0x500,
	PRM_OP_RST2INIT_QP = 0x502,
	PRM_OP_INIT2RTR_QP = 0x503,
	PRM_OP_RTR2RTS_QP = 0x504,
	PRM_OP_2RST_QP = 0x50a,
	PRM_OP_QUERY_HCA_CAP = 0x100,
	PRM_OP_QUERY_LAG = 0x842,
};

/* ---- sizes in bytes (without trailing page-address lists) ------------------ */
enum {
	PRM_CQC_BYTES = 0x200 / 8,           /* 64 */
	PRM_ADS_BYTES = 0x160 / 8,           /* 44 */
	PRM_QPC_BYTES = 0x740 / 8,           /* 232 */
	PRM_CREATE_CQ_IN_BYTES = 0x880 / 8,  /* 272 */
	PRM_CREATE_QP_IN_BYTES = 0x880 / 8,  /* 272 */
	PRM_MODIFY_QP_IN_BYTES = 0x880 / 8,  /* 272: rst2init / init2rtr / rtr2rts */
	PRM_OUT_BYTES = 0x80 / 8,            /* 16: status, syndrome, object id */
	PRM_2RST_QP_IN_BYTES = 0x80 / 8,     /* 16: header and qpn only */
	PRM_QUERY_IN_BYTES = 0x80 / 8,       /* 16: query_hca_cap_in, query_lag_in */
	PRM_QUERY_HCA_CAP_OUT_BYTES = 0x80 / 8 + 0x8000 / 8, /* header + the capability union */
	PRM_QUERY_LAG_OUT_BYTES = 0x80 / 8,  /* header + the 64-bit LAG context */
};

/* A field: bit offset from the start of its structure, width in bits. */
#define PRM_F(off, width) (off), (width)

/* Command header (every *_in). */
#define PRM_IN_OPCODE PRM_F(0x00, 16)
#define PRM_IN_UID PRM_F(0x10, 16)
#define PRM_IN_OP_MOD PRM_F(0x30, 16)
/* Command output header: status (8 bits), syndrome; the created object's id. */
#define PRM_OUT_STATUS PRM_F(0x00, 8)
#define PRM_OUT_SYNDROME PRM_F(0x20, 32)
#define PRM_OUT_OBJ_ID PRM_F(0x48, 24)   /* cqn of create_cq_out, qpn of create_qp_out */

/* create_cq_in */
#define PRM_CREATE_CQ_CTX 0x80
#define PRM_CREATE_CQ_UMEM_OFFSET PRM_F(0x280, 64)
#define PRM_CREATE_CQ_UMEM_ID PRM_F(0x2c0, 32)
#define PRM_CREATE_CQ_UMEM_VALID PRM_F(0x2e0, 1)
/* cqc (the CQ context) */
#define PRM_CQC_DBR_UMEM_VALID PRM_F(0x06, 1)
#define PRM_CQC_CQE_SZ PRM_F(0x08, 3)        /* 0 = 64-byte CQEs */
#define PRM_CQC_CC PRM_F(0x0b, 1)            /* collapsed: every CQE in slot 0 */
#define PRM_CQC_OI PRM_F(0x0e, 1)            /* overrun ignore */
#define PRM_CQC_DBR_UMEM_ID PRM_F(0x20, 32)
#define PRM_CQC_LOG_CQ_SIZE PRM_F(0x63, 5)
#define PRM_CQC_UAR_PAGE PRM_F(0x68, 24)
/* The completion EQ: c_eqn_or_apu_element, the whole word (the old 8-bit
 * c_eqn at 0xb8 is its low byte; EQ numbers above 255 need the word). */
#define PRM_CQC_C_EQN_OR_APU_ELEMENT PRM_F(0xa0, 32)
#define PRM_CQC_LOG_PAGE_SIZE PRM_F(0xc3, 5) /* log2(page) - 12 */
#define PRM_CQC_DBR_ADDR PRM_F(0x1c0, 64)    /* with a DBR umem: offset into it */

/* create_qp_in */
#define PRM_CREATE_QP_OPT_PARAM_MASK PRM_F(0x80, 32)
#define PRM_CREATE_QP_QPC 0xc0
#define PRM_CREATE_QP_WQ_UMEM_OFFSET PRM_F(0x800, 64)
#define PRM_CREATE_QP_WQ_UMEM_ID PRM_F(0x840, 32)
#define PRM_CREATE_QP_WQ_UMEM_VALID PRM_F(0x860, 1)
/* rst2init_qp_in / init2rtr_qp_in / rtr2rts_qp_in */
#define PRM_MODIFY_QP_QPN PRM_F(0x48, 24)
#define PRM_MODIFY_QP_OPT_PARAM_MASK PRM_F(0x80, 32)
#define PRM_MODIFY_QP_QPC 0xc0
/* qpc (the QP context) */
#define PRM_QPC_STATE PRM_F(0x00, 4)
#define PRM_QPC_LAG_TX_PORT_AFFINITY PRM_F(0x04, 4) /* 1-based LAG port; 0 = none */
#define PRM_QPC_ST PRM_F(0x08, 8)              /* 0 = RC */
#define PRM_QPC_PM_STATE PRM_F(0x13, 2)        /* 3 = migrated */
#define PRM_QPC_PD PRM_F(0x28, 24)
#define PRM_QPC_MTU PRM_F(0x40, 3)             /* 1 = 256 .. 5 = 4096 */
#define PRM_QPC_LOG_MSG_MAX PRM_F(0x43, 5)
#define PRM_QPC_LOG_RQ_SIZE PRM_F(0x49, 4)
#define PRM_QPC_LOG_RQ_STRIDE PRM_F(0x4d, 3)
#define PRM_QPC_NO_SQ PRM_F(0x50, 1)
#define PRM_QPC_LOG_SQ_SIZE PRM_F(0x51, 4)     /* log2 of the SQ in WQEBBs */
#define PRM_QPC_TS_FORMAT PRM_F(0x58, 2)       /* PRM_TS_FORMAT_* */
#define PRM_QPC_UAR_PAGE PRM_F(0x68, 24)
#define PRM_QPC_USER_INDEX PRM_F(0x88, 24)
#define PRM_QPC_LOG_PAGE_SIZE PRM_F(0xa3, 5)
#define PRM_QPC_REMOTE_QPN PRM_F(0xa8, 24)
#define PRM_QPC_PRI_PATH 0xc0                  /* ads of the primary address path */
#define PRM_QPC_LOG_ACK_REQ_FREQ PRM_F(0x380, 4)
#define PRM_QPC_LOG_SRA_MAX PRM_F(0x388, 3)
#define PRM_QPC_RETRY_COUNT PRM_F(0x38d, 3)
#define PRM_QPC_RNR_RETRY PRM_F(0x390, 3)
#define PRM_QPC_NEXT_SEND_PSN PRM_F(0x3c8, 24)
#define PRM_QPC_CQN_SND PRM_F(0x3e8, 24)
#define PRM_QPC_LOG_RRA_MAX PRM_F(0x488, 3)
#define PRM_QPC_ATOMIC_MODE PRM_F(0x48c, 4)
#define PRM_QPC_RRE PRM_F(0x490, 1)
#define PRM_QPC_RWE PRM_F(0x491, 1)
#define PRM_QPC_RAE PRM_F(0x492, 1)
#define PRM_QPC_MIN_RNR_NAK PRM_F(0x4a3, 5)
#define PRM_QPC_NEXT_RCV_PSN PRM_F(0x4a8, 24)
#define PRM_QPC_CQN_RCV PRM_F(0x4e8, 24)
#define PRM_QPC_DBR_ADDR PRM_F(0x500, 64)      /* with a DBR umem: offset into it */
#define PRM_QPC_RQ_TYPE PRM_F(0x565, 3)        /* 3 = zero-size RQ */
#define PRM_QPC_DBR_UMEM_VALID PRM_F(0x683, 1)
#define PRM_QPC_DBR_UMEM_ID PRM_F(0x720, 32)
/* ads (address path), relative to its start */
#define PRM_ADS_PKEY_INDEX PRM_F(0x10, 16)
#define PRM_ADS_GRH PRM_F(0x28, 1)
#define PRM_ADS_RLID PRM_F(0x30, 16)
#define PRM_ADS_ACK_TIMEOUT PRM_F(0x40, 5)
#define PRM_ADS_SRC_ADDR_INDEX PRM_F(0x48, 8)
#define PRM_ADS_HOP_LIMIT PRM_F(0x58, 8)
#define PRM_ADS_TCLASS PRM_F(0x64, 8)
#define PRM_ADS_FLOW_LABEL PRM_F(0x6c, 20)
#define PRM_ADS_RGID 0x80                      /* 16 bytes */
#define PRM_ADS_DSCP PRM_F(0x10a, 6)           /* RoCE v2: IP DSCP = traffic class >> 2 */
#define PRM_ADS_UDP_SPORT PRM_F(0x110, 16)
#define PRM_ADS_ETH_PRIO PRM_F(0x121, 3)       /* RoCE: VLAN priority (PCP) = sl */
#define PRM_ADS_SL PRM_F(0x124, 4)             /* InfiniBand service level */
#define PRM_ADS_VHCA_PORT_NUM PRM_F(0x128, 8)
#define PRM_ADS_RMAC_47_32 PRM_F(0x130, 16)
#define PRM_ADS_RMAC_31_0 PRM_F(0x140, 32)

/* qp_2rst_in (same layout as qp_2err_in) */
#define PRM_2RST_QP_QPN PRM_F(0x48, 24)

/* query_hca_cap_in / _out: op_mod = (capability type << 1) | 1 (current values);
 * the capability starts at bit 0x80 of the output. */
#define PRM_QUERY_OP_MOD PRM_F(0x30, 16)
#define PRM_HCA_CAP_OUT 0x80
/* cmd_hca_cap (type 0, general device), relative to the capability */
#define PRM_CAP_LOG_MAX_RA_REQ_QP PRM_F(0x14a, 6) /* requester read/atomic depth, log2 */
#define PRM_CAP_LOG_MAX_RA_RES_QP PRM_F(0x15a, 6) /* responder read/atomic depth, log2 */
#define PRM_CAP_ROCE PRM_F(0x21d, 1)              /* RoCE caps (type 4) exist */
#define PRM_CAP_LAG_TX_PORT_AFFINITY PRM_F(0x278, 1)
#define PRM_CAP_NUM_LAG_PORTS PRM_F(0x27c, 4)
#define PRM_CAP_SQ_TS_FORMAT PRM_F(0x440, 2)      /* PRM_TS_CAP_* */
/* roce_cap (type 4), relative to the capability */
#define PRM_ROCE_CAP_QP_TS_FORMAT PRM_F(0x1e, 2)  /* PRM_TS_CAP_* */
/* query_lag_out: the LAG context at 0x40 */
#define PRM_QUERY_LAG_STATE PRM_F(0x40 + 0x1d, 3) /* non-zero: the ports are bonded */

enum {
	PRM_HCA_CAP_GENERAL = 0x0,
	PRM_HCA_CAP_ROCE = 0x4,
	PRM_HCA_CAP_CUR = 0x1,
	/* what the capability says the QP timestamps can be */
	PRM_TS_CAP_FREE_RUNNING = 0x0,
	PRM_TS_CAP_REAL_TIME = 0x1,
	PRM_TS_CAP_FREE_RUNNING_AND_REAL_TIME = 0x2,
	/* qpc.ts_format */
	PRM_TS_FORMAT_FREE_RUNNING = 0x0,
	PRM_TS_FORMAT_DEFAULT = 0x1,
	PRM_TS_FORMAT_REAL_TIME = 0x2,
};

enum {
	PRM_QPC_ST_RC = 0x0,
	PRM_QPC_PM_STATE_MIGRATED = 0x3,
	PRM_QPC_RQ_TYPE_ZERO_SIZE = 0x3,
	PRM_QPC_ATOMIC_MODE_UP_TO_8B = 0x3,
};

/* Sets the width-bit field at bit offset off (64-bit fields: word aligned). */
static inline void prm_set(void *buf, uint32_t off, uint32_t width, uint64_t v)
{
	uint32_t *w = (uint32_t *)buf;

	if (width == 64) {
		w[off / 32] = mx_htobe32((uint32_t)(v >> 32));
		w[off / 32 + 1] = mx_htobe32((uint32_t)v);
		return;
	}
	uint32_t shift = 32u - (off % 32u) - width;
	uint32_t mask = (width == 32 ? 0xffffffffu : ((1u << width) - 1u)) << shift;
	uint32_t dw = mx_be32toh(w[off / 32]);

	dw = (dw & ~mask) | (((uint32_t)v << shift) & mask);
	w[off / 32] = mx_htobe32(dw);
}

/* Field relative to a sub-structure that starts at bit `base`. */
static inline void prm_set_at(void *buf, uint32_t base, uint32_t off, uint32_t width, uint64_t v)
{
	prm_set(buf, base + off, width, v);
}

/* The field a command's output names (status, syndrome, the new object id). */
static inline uint32_t prm_get32(const void *buf, uint32_t off, uint32_t width)
{
	const uint32_t *w = (const uint32_t *)buf;
	uint32_t shift = 32u - (off % 32u) - width;

	return (mx_be32toh(w[off / 32]) >> shift) & (width == 32 ? 0xffffffffu : ((1u << width) - 1u));
}

/* CREATE_CQ with the CQE ring and its doorbell record in DevX umems. */
struct prm_cq_args {
	uint32_t log_cqe_cnt;      /* CQEs: 2^log */
	uint32_t uar_page;         /* the UAR's page id (mlx5dv_devx_uar.page_id) */
	uint32_t eqn;              /* completion EQ (mlx5dv_devx_query_eqn) */
	uint32_t cq_umem_id;
	uint64_t cq_umem_offset;
	uint32_t dbr_umem_id;
	uint64_t dbr_offset;       /* byte offset of the 8-byte CQ DBR in its umem */
	uint32_t collapsed;        /* cc */
	uint32_t overrun_ignore;   /* oi */
};

static inline void prm_create_cq(void *in, const struct prm_cq_args *a)
{
	memset(in, 0, PRM_CREATE_CQ_IN_BYTES);
	prm_set(in, PRM_IN_OPCODE, PRM_OP_CREATE_CQ);
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_DBR_UMEM_VALID, 1);
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_CQE_SZ, 0);
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_CC, a->collapsed ? 1 : 0);
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_OI, a->overrun_ignore ? 1 : 0);
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_DBR_UMEM_ID, a->dbr_umem_id);
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_LOG_CQ_SIZE, a->log_cqe_cnt);
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_UAR_PAGE, a->uar_page);
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_C_EQN_OR_APU_ELEMENT, a->eqn);
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_LOG_PAGE_SIZE, 0);   /* 4 KiB pages */
	prm_set_at(in, PRM_CREATE_CQ_CTX, PRM_CQC_DBR_ADDR, a->dbr_offset);
	prm_set(in, PRM_CREATE_CQ_UMEM_OFFSET, a->cq_umem_offset);
	prm_set(in, PRM_CREATE_CQ_UMEM_ID, a->cq_umem_id);
	prm_set(in, PRM_CREATE_CQ_UMEM_VALID, 1);
}

/* CREATE_QP: RC, send queue only (zero-size RQ), SQ and DBR in umems. */
struct prm_qp_args {
	uint32_t pd;               /* protection domain number (mlx5dv_pd.pdn) */
	uint32_t log_sq_wqebb_cnt;
	uint32_t uar_page;
	uint32_t cqn_snd, cqn_rcv;
	uint32_t user_index;
	uint32_t wq_umem_id;
	uint64_t wq_umem_offset;
	uint32_t dbr_umem_id;
	uint64_t dbr_offset;       /* byte offset of the QP DBR (2 x BE32) in its umem */
	uint32_t ts_format;        /* PRM_TS_FORMAT_*, from the caps (devx_pick_ts_format) */
};

static inline void prm_create_qp(void *in, const struct prm_qp_args *a)
{
	const uint32_t q = PRM_CREATE_QP_QPC;

	memset(in, 0, PRM_CREATE_QP_IN_BYTES);
	prm_set(in, PRM_IN_OPCODE, PRM_OP_CREATE_QP);
	prm_set_at(in, q, PRM_QPC_ST, PRM_QPC_ST_RC);
	prm_set_at(in, q, PRM_QPC_PM_STATE, PRM_QPC_PM_STATE_MIGRATED);
	prm_set_at(in, q, PRM_QPC_PD, a->pd);
	prm_set_at(in, q, PRM_QPC_LOG_SQ_SIZE, a->log_sq_wqebb_cnt);
	prm_set_at(in, q, PRM_QPC_TS_FORMAT, a->ts_format);
	prm_set_at(in, q, PRM_QPC_RQ_TYPE, PRM_QPC_RQ_TYPE_ZERO_SIZE);
	prm_set_at(in, q, PRM_QPC_UAR_PAGE, a->uar_page);
	prm_set_at(in, q, PRM_QPC_USER_INDEX, a->user_index);
	prm_set_at(in, q, PRM_QPC_LOG_PAGE_SIZE, 0);
	prm_set_at(in, q, PRM_QPC_CQN_SND, a->cqn_snd);
	prm_set_at(in, q, PRM_QPC_CQN_RCV, a->cqn_rcv);
	prm_set_at(in, q, PRM_QPC_DBR_ADDR, a->dbr_offset);
	prm_set_at(in, q, PRM_QPC_DBR_UMEM_VALID, 1);
	prm_set_at(in, q, PRM_QPC_DBR_UMEM_ID, a->dbr_umem_id);
	prm_set(in, PRM_CREATE_QP_WQ_UMEM_OFFSET, a->wq_umem_offset);
	prm_set(in, PRM_CREATE_QP_WQ_UMEM_ID, a->wq_umem_id);
	prm_set(in, PRM_CREATE_QP_WQ_UMEM_VALID, 1);
}

/* RST2INIT: port, pkey index 0, remote rights (write; read and atomics on
 * request) and, on bonded ports, the LAG port the QP sends from. */
struct prm_init_args {
	uint32_t qpn, port;
	uint32_t rre, rwe, rae;
	uint32_t lag_tx_port;      /* 1..num_lag_ports where LAG is active; 0 = leave unset */
};

static inline void prm_rst2init(void *in, const struct prm_init_args *a)
{
	const uint32_t q = PRM_MODIFY_QP_QPC;

	memset(in, 0, PRM_MODIFY_QP_IN_BYTES);
	prm_set(in, PRM_IN_OPCODE, PRM_OP_RST2INIT_QP);
	prm_set(in, PRM_MODIFY_QP_QPN, a->qpn);
	prm_set_at(in, q, PRM_QPC_PM_STATE, PRM_QPC_PM_STATE_MIGRATED);
	prm_set_at(in, q, PRM_QPC_LAG_TX_PORT_AFFINITY, a->lag_tx_port);
	prm_set_at(in, q + PRM_QPC_PRI_PATH, PRM_ADS_VHCA_PORT_NUM, a->port);
	prm_set_at(in, q, PRM_QPC_RRE, a->rre ? 1 : 0);
	prm_set_at(in, q, PRM_QPC_RWE, a->rwe ? 1 : 0);
	prm_set_at(in, q, PRM_QPC_RAE, a->rae ? 1 : 0);
	if (a->rae)
		prm_set_at(in, q, PRM_QPC_ATOMIC_MODE, PRM_QPC_ATOMIC_MODE_UP_TO_8B);
}

/* INIT2RTR. RoCE: the destination GID and MAC (an address handle's
 * content), hop limit, traffic class, source GID index, UDP source port and
 * the priority (eth_prio = sl, dscp = traffic class >> 2 on RoCE v2); the
 * grh bit stays 0 on RoCE, as the kernel's address-path setup leaves it.
 * InfiniBand: the destination LID and the service level (grh 0).
 * docs/design/mlx5-queue-formats.md §6.1. */
struct prm_rtr_args {
	uint32_t qpn, remote_qpn;
	uint32_t mtu;              /* PRM code: 1 = 256 B .. 5 = 4096 B */
	uint32_t rq_psn;
	uint32_t min_rnr_timer;    /* IB RNR timer code */
	uint32_t log_rra_max;      /* responder RDMA read / atomic depth, log2 */
	uint32_t port;
	uint32_t roce;             /* 1: RoCE, rgid/rmac; 0: InfiniBand, rlid */
	uint8_t rgid[16];
	uint8_t rmac[6];
	uint32_t hop_limit, sgid_index, udp_sport, rlid;
	uint32_t sl;               /* IB: ads.sl (4 bits); RoCE: ads.eth_prio (3 bits) */
	uint32_t traffic_class;    /* RoCE: ads.tclass */
	uint32_t roce_v2;          /* RoCE v2 GID: ads.dscp = traffic_class >> 2 */
};

static inline void prm_init2rtr(void *in, const struct prm_rtr_args *a)
{
	const uint32_t q = PRM_MODIFY_QP_QPC, p = PRM_MODIFY_QP_QPC + PRM_QPC_PRI_PATH;

	memset(in, 0, PRM_MODIFY_QP_IN_BYTES);
	prm_set(in, PRM_IN_OPCODE, PRM_OP_INIT2RTR_QP);
	prm_set(in, PRM_MODIFY_QP_QPN, a->qpn);
	prm_set_at(in, q, PRM_QPC_MTU, a->mtu);
	prm_set_at(in, q, PRM_QPC_LOG_MSG_MAX, 30);
	prm_set_at(in, q, PRM_QPC_REMOTE_QPN, a->remote_qpn);
	prm_set_at(in, q, PRM_QPC_NEXT_RCV_PSN, a->rq_psn);
	prm_set_at(in, q, PRM_QPC_MIN_RNR_NAK, a->min_rnr_timer);
	prm_set_at(in, q, PRM_QPC_LOG_RRA_MAX, a->log_rra_max);
	prm_set_at(in, p, PRM_ADS_VHCA_PORT_NUM, a->port);
	if (a->roce) {
		prm_set_at(in, p, PRM_ADS_HOP_LIMIT, a->hop_limit);
		prm_set_at(in, p, PRM_ADS_TCLASS, a->traffic_class);
		prm_set_at(in, p, PRM_ADS_ETH_PRIO, a->sl);
		if (a->roce_v2)
			prm_set_at(in, p, PRM_ADS_DSCP, a->traffic_class >> 2);
		prm_set_at(in, p, PRM_ADS_SRC_ADDR_INDEX, a->sgid_index);
		prm_set_at(in, p, PRM_ADS_UDP_SPORT, a->udp_sport);
		memcpy((uint8_t *)in + (p + PRM_ADS_RGID) / 8, a->rgid, 16);
		prm_set_at(in, p, PRM_ADS_RMAC_47_32, ((uint32_t)a->rmac[0] << 8) | a->rmac[1]);
		prm_set_at(in, p, PRM_ADS_RMAC_31_0, ((uint32_t)a->rmac[2] << 24) | ((uint32_t)a->rmac[3] << 16) |
							((uint32_t)a->rmac[4] << 8) | a->rmac[5]);
	} else {
		prm_set_at(in, p, PRM_ADS_RLID, a->rlid);
		prm_set_at(in, p, PRM_ADS_SL, a->sl);
	}
}

/* RTR2RTS: send PSN, ACK timeout and the two retry counts. */
struct prm_rts_args {
	uint32_t qpn, sq_psn;
	uint32_t ack_timeout;      /* 4.096 us x 2^timeout */
	uint32_t retry_cnt, rnr_retry;
	uint32_t log_sra_max;      /* requester RDMA read / atomic depth, log2 */
};

static inline void prm_rtr2rts(void *in, const struct prm_rts_args *a)
{
	const uint32_t q = PRM_MODIFY_QP_QPC;

	memset(in, 0, PRM_MODIFY_QP_IN_BYTES);
	prm_set(in, PRM_IN_OPCODE, PRM_OP_RTR2RTS_QP);
	prm_set(in, PRM_MODIFY_QP_QPN, a->qpn);
	prm_set_at(in, q, PRM_QPC_NEXT_SEND_PSN, a->sq_psn);
	prm_set_at(in, q, PRM_QPC_RETRY_COUNT, a->retry_cnt);
	prm_set_at(in, q, PRM_QPC_RNR_RETRY, a->rnr_retry);
	prm_set_at(in, q, PRM_QPC_LOG_SRA_MAX, a->log_sra_max);
	prm_set_at(in, q + PRM_QPC_PRI_PATH, PRM_ADS_ACK_TIMEOUT, a->ack_timeout);
}

/* 2RST_QP: any state -> RESET (the QP keeps its number, CQ and buffers). */
static inline void prm_2rst(void *in, uint32_t qpn)
{
	memset(in, 0, PRM_2RST_QP_IN_BYTES);
	prm_set(in, PRM_IN_OPCODE, PRM_OP_2RST_QP);
	prm_set(in, PRM_2RST_QP_QPN, qpn);
}

/* QUERY_HCA_CAP of one capability type, current values. */
static inline void prm_query_hca_cap(void *in, uint32_t cap_type)
{
	memset(in, 0, PRM_QUERY_IN_BYTES);
	prm_set(in, PRM_IN_OPCODE, PRM_OP_QUERY_HCA_CAP);
	prm_set(in, PRM_QUERY_OP_MOD, (cap_type << 1) | PRM_HCA_CAP_CUR);
}

static inline void prm_query_lag(void *in)
{
	memset(in, 0, PRM_QUERY_IN_BYTES);
	prm_set(in, PRM_IN_OPCODE, PRM_OP_QUERY_LAG);
}

#endif /* MARROW_MLX5_PRM_H */
