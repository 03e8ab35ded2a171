/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mlx5 send-WQE, CQE64 and doorbell encoders/decoders.
 *
 * The single definition of the wire formats that the GPU kernels, the CPU
 * executor, the proxy workers and the software NIC all share. Everything is
 * byte-exact to the mlx5 ABI (offsets and constants are facts of that ABI;
 * tests/verbs_test_mlx5_golden.c proves byte identity with rdma-core's mlx5dv.h).
 *
 * What each field means, and which facts are unverified on hardware:
 * docs/design/mlx5-queue-formats.md (it names the MX_ / mx_ identifiers below).
 *
 * Usable from C99, C++ and CUDA device code: no libc calls, no host-only
 * intrinsics on the device path. Multi-byte fields are big-endian; the
 * helpers store them as 32-bit words so that a GPU thread issues aligned
 * 4-byte stores (segments are always 16-byte aligned inside an SQ ring).
 */
#ifndef MARROW_MLX5_WQE_H
#define MARROW_MLX5_WQE_H

#include <stdint.h>

#if defined(__CUDACC__)
#define MX_HD __host__ __device__ __forceinline__
#else
#define MX_HD static inline __attribute__((always_inline))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- units ---------------------------------------------------------- */
enum {
	MX_WQEBB_SIZE = 64,   /* send basic block */
	MX_WQEBB_SHIFT = 6,
	MX_DS_SIZE = 16,      /* one data-segment unit */
	MX_CQE_SIZE = 64,
	MX_MAX_WQE_DS = 63,   /* ds is 6 bits wide on a ConnectX (ds mask 0x3f) */
	MX_MAX_MSG_LEN = 0x7fffffff,
	/* Largest inline RC RDMA WRITE: 63 units * 16 B = 1008 B, less ctrl (16),
	 * raddr (16) and the inline header (4) = 972 B. docs/design/softnic-fidelity.md */
	MX_MAX_INLINE_RC_WRITE = 63 * 16 - 16 - 16 - 4,
};

/* Status the checked encoders return; same value as MARROW_ERANGE. */
#define MX_ERANGE (-34)

/* ---- send opcodes (low byte of ctrl word 0) ------------------------- */
enum {
	MX_OPCODE_NOP = 0x00,
	MX_OPCODE_SEND_INVAL = 0x01,
	MX_OPCODE_RDMA_WRITE = 0x08,
	MX_OPCODE_RDMA_WRITE_IMM = 0x09,
	MX_OPCODE_SEND = 0x0a,
	MX_OPCODE_SEND_IMM = 0x0b,
	MX_OPCODE_RDMA_READ = 0x10,
	MX_OPCODE_ATOMIC_CS = 0x11,
	MX_OPCODE_ATOMIC_FA = 0x12,
};

/* ---- fm_ce_se -------------------------------------------------------- */
enum {
	MX_CTRL_SOLICITED = 0x02,
	MX_CTRL_CQ_UPDATE = 0x08,      /* CE = 2: always write a CQE ("signaled") */
	MX_CTRL_CE_MASK = 0x0c,
	MX_CTRL_FENCE = 0x80,
};

/* ---- segment offsets and sizes -------------------------------------- */
enum {
	MX_CTRL_SEG_SIZE = 16,
	MX_RADDR_SEG_SIZE = 16,
	MX_DATA_SEG_SIZE = 16,
	MX_INLINE_HDR_SIZE = 4,
	MX_INLINE_SEG_FLAG = 0x80000000u,  /* bit 31 of byte_count: inline */
	MX_INVALID_LKEY = 0x100,
};

/* ---- CQE64 ------------------------------------------------------------ */
enum {
	MX_CQE_OFF_SRQN_UIDX = 32,
	MX_CQE_OFF_IMM = 36,
	MX_CQE_OFF_BYTE_CNT = 44,
	MX_CQE_OFF_TIMESTAMP = 48,
	MX_CQE_OFF_HW_ERR_SYND = 52,
	MX_CQE_OFF_HW_SYND_TYPE = 53,
	MX_CQE_OFF_VENDOR_ERR_SYND = 54,
	MX_CQE_OFF_SYNDROME = 55,
	MX_CQE_OFF_SOP_DROP_QPN = 56,
	MX_CQE_OFF_WQE_COUNTER = 60,
	MX_CQE_OFF_SIGNATURE = 62,
	MX_CQE_OFF_OP_OWN = 63,
};

/* CQE opcodes (op_own >> 4) */
enum {
	MX_CQE_REQ = 0,
	MX_CQE_RESP_WR_IMM = 1,
	MX_CQE_RESP_SEND = 2,
	MX_CQE_REQ_ERR = 13,
	MX_CQE_RESP_ERR = 14,
	MX_CQE_INVALID = 15,
};

/* Error syndromes (byte 55 of an error CQE) */
enum {
	MX_SYND_LOCAL_LENGTH = 0x01,
	MX_SYND_LOCAL_QP_OP = 0x02,
	MX_SYND_LOCAL_PROT = 0x04,
	MX_SYND_WR_FLUSH = 0x05,
	MX_SYND_MW_BIND = 0x06,
	MX_SYND_BAD_RESP = 0x10,
	MX_SYND_LOCAL_ACCESS = 0x11,
	MX_SYND_REMOTE_INVAL_REQ = 0x12,
	MX_SYND_REMOTE_ACCESS = 0x13,
	MX_SYND_REMOTE_OP = 0x14,
	MX_SYND_TRANSPORT_RETRY_EXC = 0x15,
	MX_SYND_RNR_RETRY_EXC = 0x16,
	MX_SYND_REMOTE_ABORTED = 0x22,
};

/* The syndrome's name, for error messages (host code; one table for every backend). */
static inline const char *mx_syndrome_name(uint8_t synd)
{
	switch (synd) {
	case MX_SYND_LOCAL_LENGTH: return "LOCAL_LENGTH";
	case MX_SYND_LOCAL_QP_OP: return "LOCAL_QP_OP";
	case MX_SYND_LOCAL_PROT: return "LOCAL_PROT";
	case MX_SYND_WR_FLUSH: return "WR_FLUSH";
	case MX_SYND_MW_BIND: return "MW_BIND";
	case MX_SYND_BAD_RESP: return "BAD_RESP";
	case MX_SYND_LOCAL_ACCESS: return "LOCAL_ACCESS";
	case MX_SYND_REMOTE_INVAL_REQ: return "REMOTE_INVAL_REQ";
	case MX_SYND_REMOTE_ACCESS: return "REMOTE_ACCESS";
	case MX_SYND_REMOTE_OP: return "REMOTE_OP";
	case MX_SYND_TRANSPORT_RETRY_EXC: return "TRANSPORT_RETRY_EXC";
	case MX_SYND_RNR_RETRY_EXC: return "RNR_RETRY_EXC";
	case MX_SYND_REMOTE_ABORTED: return "REMOTE_ABORTED";
	default: return "UNKNOWN";
	}
}

/* rdma-core initialises op_own to this: opcode INVALID, owner 0. */
#define MX_CQE_OP_OWN_INIT 0xf0u

/* Doorbell record word indices (2 x BE32) */
enum { MX_DBR_RCV = 0, MX_DBR_SND = 1 };

/* ---- byte order --------------------------------------------------------
 * The device path uses __byte_perm (one PRMT); the host path the compiler
 * builtin, which gcc and clang lower to bswap/rev on x86-64 and aarch64. */
MX_HD uint32_t mx_bswap32(uint32_t v)
{
#if defined(__CUDA_ARCH__)
	return __byte_perm(v, 0, 0x0123);
#else
	return __builtin_bswap32(v);
#endif
}

MX_HD uint16_t mx_bswap16(uint16_t v)
{
	return (uint16_t)((v >> 8) | (v << 8));
}

MX_HD uint64_t mx_bswap64(uint64_t v)
{
	return ((uint64_t)mx_bswap32((uint32_t)v) << 32) | mx_bswap32((uint32_t)(v >> 32));
}

/* Host-order value -> big-endian representation, assuming a little-endian
 * machine (x86-64, aarch64 Linux and all NVIDIA GPUs are). */
MX_HD uint32_t mx_htobe32(uint32_t v) { return mx_bswap32(v); }
MX_HD uint16_t mx_htobe16(uint16_t v) { return mx_bswap16(v); }
MX_HD uint64_t mx_htobe64(uint64_t v) { return mx_bswap64(v); }
MX_HD uint32_t mx_be32toh(uint32_t v) { return mx_bswap32(v); }
MX_HD uint16_t mx_be16toh(uint16_t v) { return mx_bswap16(v); }
MX_HD uint64_t mx_be64toh(uint64_t v) { return mx_bswap64(v); }

/* ---- sizes ------------------------------------------------------------- */

/* ds (16-byte units) of an RC RDMA WRITE carrying len bytes inline. */
MX_HD uint32_t mx_ds_inline_write(uint32_t len)
{
	return 2u + (MX_INLINE_HDR_SIZE + len + 15u) / 16u;
}

/* ds of an RC RDMA WRITE with nsge pointer data segments. */
MX_HD uint32_t mx_ds_pointer_write(uint32_t nsge)
{
	return 2u + nsge;
}

/* WQEBBs a WQE of ds units occupies. */
MX_HD uint32_t mx_wqebbs(uint32_t ds)
{
	return (ds + 3u) / 4u;
}

/* The largest inline payload whose WQE still fits in n WQEBBs and in a
 * 6-bit ds (so at most MX_MAX_INLINE_RC_WRITE from n = 16 on). */
MX_HD uint32_t mx_inline_max_for_wqebbs(uint32_t n)
{
	uint32_t m = n * MX_WQEBB_SIZE - MX_CTRL_SEG_SIZE - MX_RADDR_SEG_SIZE - MX_INLINE_HDR_SIZE;
	return m < (uint32_t)MX_MAX_INLINE_RC_WRITE ? m : (uint32_t)MX_MAX_INLINE_RC_WRITE;
}

/* Verbs counts an SQ in work requests, the WQE format in WQEBBs. The
 * largest RC WRITE a QP posts (one pointer segment, or max_inline bytes
 * inline, whichever is longer) takes this many WQEBBs; an SQ of sq_wqebbs
 * WQEBBs holds sq_wqebbs / that many such WQEs, which is the max_send_wr to
 * ask verbs for (0: not even one fits). libmlx5 sizes the ring from
 * max_send_wr rounded up to a power of two, so it may grant more. */
MX_HD uint32_t mx_max_wqebbs_per_write(uint32_t max_inline)
{
	uint32_t ds_ptr = mx_ds_pointer_write(1);
	uint32_t ds_inl = max_inline ? mx_ds_inline_write(max_inline) : 0u;

	return mx_wqebbs(ds_inl > ds_ptr ? ds_inl : ds_ptr);
}

MX_HD uint32_t mx_send_wr_for_wqebbs(uint32_t sq_wqebbs, uint32_t max_inline)
{
	return sq_wqebbs / mx_max_wqebbs_per_write(max_inline);
}

/* Posting-side check of an inline RC WRITE (what rdma-core does in
 * software; the NIC never sees max_inline_data): 0 and *ds, or MX_ERANGE
 * when len exceeds max_inline or the WQE would need ds > 63. */
MX_HD int mx_ds_inline_write_checked(uint32_t len, uint32_t max_inline, uint32_t *ds)
{
	uint32_t d;

	if (len > max_inline || len > (uint32_t)MX_MAX_INLINE_RC_WRITE)
		return MX_ERANGE;
	d = mx_ds_inline_write(len);
	if (ds)
		*ds = d;
	return 0;
}

/* Posting-side check of a pointer RC WRITE with nsge data segments. */
MX_HD int mx_ds_pointer_write_checked(uint32_t nsge, uint32_t *ds)
{
	uint32_t d = mx_ds_pointer_write(nsge);

	if (nsge > (uint32_t)MX_MAX_WQE_DS - 2u)
		return MX_ERANGE;
	if (ds)
		*ds = d;
	return 0;
}

/* ---- encoders -----------------------------------------------------------
 * seg points at the segment start inside the ring (16-byte aligned). */

MX_HD void mx_store32(void *p, uint32_t v) { *(volatile uint32_t *)p = v; }

/* Control segment. wqe_idx is the free-running WQEBB producer counter of the
 * WQE's first WQEBB (mod 2^16). imm_be is stored as given (verbs passes the
 * immediate already in network order). Returns MX_ERANGE and writes nothing
 * when ds > 63: a ConnectX reads ds as 6 bits, so ds 64 would read as 0. */
MX_HD int mx_set_ctrl_seg(void *seg, uint16_t wqe_idx, uint8_t opcode, uint8_t opmod,
			  uint32_t qpn, uint8_t fm_ce_se, uint8_t ds, uint8_t signature,
			  uint32_t imm_be)
{
	uint32_t *w = (uint32_t *)seg;
	if (ds > MX_MAX_WQE_DS)
		return MX_ERANGE;
	mx_store32(&w[0], mx_htobe32(((uint32_t)opmod << 24) | ((uint32_t)wqe_idx << 8) | opcode));
	mx_store32(&w[1], mx_htobe32((qpn << 8) | ds));
	/* bytes 8..11: signature, dci_stream_channel_id (BE16, 0 for RC), fm_ce_se */
	mx_store32(&w[2], (uint32_t)signature | ((uint32_t)fm_ce_se << 24));
	mx_store32(&w[3], imm_be);
	return 0;
}

/* Remote-address segment. */
MX_HD void mx_set_raddr_seg(void *seg, uint64_t raddr, uint32_t rkey)
{
	uint32_t *w = (uint32_t *)seg;
	mx_store32(&w[0], mx_htobe32((uint32_t)(raddr >> 32)));
	mx_store32(&w[1], mx_htobe32((uint32_t)raddr));
	mx_store32(&w[2], mx_htobe32(rkey));
	mx_store32(&w[3], 0);
}

/* Pointer (gather/scatter) data segment. Bit 31 of len is cleared, unlike
 * mlx5dv_set_data_seg which passes it through: split transfers so that
 * len <= MX_MAX_MSG_LEN. */
MX_HD void mx_set_data_seg(void *seg, uint32_t len, uint32_t lkey, uint64_t addr)
{
	uint32_t *w = (uint32_t *)seg;
	mx_store32(&w[0], mx_htobe32(len & 0x7fffffffu));
	mx_store32(&w[1], mx_htobe32(lkey));
	mx_store32(&w[2], mx_htobe32((uint32_t)(addr >> 32)));
	mx_store32(&w[3], mx_htobe32((uint32_t)addr));
}

/* Inline segment header; the payload follows at seg + 4. */
MX_HD void mx_set_inline_hdr(void *seg, uint32_t len)
{
	mx_store32(seg, mx_htobe32(len | MX_INLINE_SEG_FLAG));
}

/* ---- DC address vector (datagram segment) --------------------------------
 * A DC initiator (DCI) names its destination in every WQE: between the ctrl
 * and the remote-address segment sits the address vector of the target DCT
 * (docs/design/dc-transport.md). Its first 16 bytes (the base AV) hold the
 * DC access key, the DCT number, rate/SL and the LID; a set bit 31 of the
 * DCT word (extended AV) says 32 more bytes follow with the GRH part (RoCE,
 * or IB across subnets). rdma-core always posts the extended form; UCX posts
 * the base form when there is no GRH. */
enum {
	MX_AV_BASE_SIZE = 16,
	MX_AV_FULL_SIZE = 48,
	MX_AV_EXTENDED = 0x80000000u,  /* bit 31 of dqp_dct */
	MX_AV_GRH_PRESENT = 1u << 30,  /* bit 30 of grh_gid_fl: IB with a GRH; 0 on RoCE */
	MX_AV_OFF_DC_KEY = 0,
	MX_AV_OFF_DQP_DCT = 8,
	MX_AV_OFF_STAT_RATE_SL = 12,
	MX_AV_OFF_FL_MLID = 13,
	MX_AV_OFF_RLID = 14,
	MX_AV_OFF_RMAC = 20,
	MX_AV_OFF_TCLASS = 26,
	MX_AV_OFF_HOP_LIMIT = 27,
	MX_AV_OFF_GRH_GID_FL = 28,
	MX_AV_OFF_RGID = 32,
};

/* What a DCI's WQE says about its destination. rlid is the destination LID
 * on IB and the RoCE v2 UDP source port on Ethernet; sl is 4 bits on IB, and
 * on RoCE the priority goes in bits 3..1 (as the kernel's mlx5 AH sets it). */
struct mx_dc_av {
	uint64_t dc_key;
	uint32_t dctn;          /* 24-bit DCT number */
	uint16_t rlid;
	uint8_t sl;
	uint8_t static_rate;    /* 4 bits */
	uint8_t src_path_bits;  /* 7 bits */
	uint8_t extended;       /* 1: 48-byte AV with the GRH part */
	uint8_t roce;           /* RoCE: sl as priority, no GRH-present bit */
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t tclass;
	uint32_t flow_label;    /* 20 bits */
	uint8_t rgid[16];
	uint8_t rmac[6];
};

/* Bytes of the AV a WQE carries: 16 (base) or 48 (extended). */
MX_HD uint32_t mx_dc_av_size(const struct mx_dc_av *av)
{
	return av->extended ? MX_AV_FULL_SIZE : MX_AV_BASE_SIZE;
}

/* ds of a DC RDMA WRITE: ctrl, the AV, raddr, then len bytes inline. */
MX_HD uint32_t mx_ds_dc_inline_write(const struct mx_dc_av *av, uint32_t len)
{
	return (MX_CTRL_SEG_SIZE + mx_dc_av_size(av) + MX_RADDR_SEG_SIZE + MX_INLINE_HDR_SIZE + len +
		MX_DS_SIZE - 1) / MX_DS_SIZE;
}

/* ds of a DC RDMA WRITE with nsge pointer data segments. */
MX_HD uint32_t mx_ds_dc_pointer_write(const struct mx_dc_av *av, uint32_t nsge)
{
	return (MX_CTRL_SEG_SIZE + mx_dc_av_size(av) + MX_RADDR_SEG_SIZE) / MX_DS_SIZE + nsge;
}

/* Writes the AV at seg (right after the ctrl segment) and returns its size in
 * bytes, or MX_ERANGE and writes nothing when a field does not fit its bits
 * (a ConnectX would read a truncated value as another destination). */
MX_HD int mx_set_dc_av_seg(void *seg, const struct mx_dc_av *av)
{
	uint32_t *w = (uint32_t *)seg;
	uint8_t sl_bits;

	if (av->dctn > 0xffffffu || av->static_rate > 0xf || av->src_path_bits > 0x7f ||
	    av->flow_label > 0xfffffu || (av->roce ? av->sl > 7 : av->sl > 0xf) ||
	    (av->roce && !av->extended))
		return MX_ERANGE;
	sl_bits = av->roce ? (uint8_t)(av->sl << 1) : av->sl;
	mx_store32(&w[0], mx_htobe32((uint32_t)(av->dc_key >> 32)));
	mx_store32(&w[1], mx_htobe32((uint32_t)av->dc_key));
	mx_store32(&w[2], mx_htobe32(av->dctn | (av->extended ? MX_AV_EXTENDED : 0)));
	/* bytes 12..15: stat_rate_sl, fl_mlid, rlid (BE16) */
	mx_store32(&w[3], (uint32_t)(uint8_t)((av->static_rate << 4) | sl_bits) |
				  ((uint32_t)av->src_path_bits << 8) |
				  ((uint32_t)mx_htobe16(av->rlid) << 16));
	if (!av->extended)
		return MX_AV_BASE_SIZE;
	mx_store32(&w[4], 0); /* reserved0 */
	/* bytes 20..27: rmac[6], tclass, hop_limit */
	mx_store32(&w[5], (uint32_t)av->rmac[0] | ((uint32_t)av->rmac[1] << 8) |
				  ((uint32_t)av->rmac[2] << 16) | ((uint32_t)av->rmac[3] << 24));
	mx_store32(&w[6], (uint32_t)av->rmac[4] | ((uint32_t)av->rmac[5] << 8) |
				  ((uint32_t)av->tclass << 16) | ((uint32_t)av->hop_limit << 24));
	mx_store32(&w[7], mx_htobe32((av->roce ? 0u : MX_AV_GRH_PRESENT) |
				     ((uint32_t)av->sgid_index << 20) | av->flow_label));
	for (int i = 0; i < 4; i++)
		mx_store32(&w[8 + i], (uint32_t)av->rgid[4 * i] | ((uint32_t)av->rgid[4 * i + 1] << 8) |
					      ((uint32_t)av->rgid[4 * i + 2] << 16) |
					      ((uint32_t)av->rgid[4 * i + 3] << 24));
	return MX_AV_FULL_SIZE;
}

/* The 8-byte value a producer stores to the UAR doorbell register, as a
 * little-endian uint64: bytes 0..3 = BE32(idx << 8 | opcode), bytes 4..7 =
 * BE32(qpn << 8 | ds). NVSHMEM/DOCA pass the exclusive producer index with
 * opcode = ds = 0; rdma-core passes the last WQE's ctrl word. */
MX_HD uint64_t mx_doorbell_value(uint16_t idx, uint8_t opcode, uint32_t qpn, uint8_t ds)
{
	uint32_t lo = mx_htobe32(((uint32_t)idx << 8) | opcode);
	uint32_t hi = mx_htobe32((qpn << 8) | ds);
	return ((uint64_t)hi << 32) | lo;
}

/* Value of the SQ doorbell-record word: exclusive WQEBB producer counter. */
MX_HD uint32_t mx_dbrec_send_value(uint32_t pi)
{
	return mx_htobe32(pi & 0xffffu);
}

/* ---- doorbell / dbrec decoders (software NIC side) ------------------------ */
MX_HD uint16_t mx_doorbell_idx(uint64_t db)
{
	return (uint16_t)((mx_be32toh((uint32_t)db) >> 8) & 0xffffu);
}

MX_HD uint32_t mx_doorbell_qpn(uint64_t db)
{
	return mx_be32toh((uint32_t)(db >> 32)) >> 8;
}

/* ds field of a doorbell (6 bits, as the NIC reads it): 0 for the
 * NVSHMEM/DOCA convention, the last WQE's ds for rdma-core's. */
MX_HD uint32_t mx_doorbell_ds(uint64_t db)
{
	return mx_be32toh((uint32_t)(db >> 32)) & 0x3fu;
}

/* Exclusive WQEBB index a doorbell asks the NIC to execute up to: the
 * index itself when ds = 0 (exclusive producer index), else the end of the
 * WQE it names (rdma-core rings with the last WQE's ctrl segment). */
MX_HD uint16_t mx_doorbell_end(uint64_t db)
{
	return (uint16_t)(mx_doorbell_idx(db) + (mx_doorbell_ds(db) + 3u) / 4u);
}

/* ---- WQE decoders ------------------------------------------------------ */
MX_HD uint32_t mx_ld_be32(const void *p) { return mx_be32toh(*(const volatile uint32_t *)p); }

MX_HD uint8_t mx_ctrl_opcode(const void *ctrl) { return (uint8_t)(mx_ld_be32(ctrl) & 0xff); }
MX_HD uint8_t mx_ctrl_opmod(const void *ctrl) { return (uint8_t)(mx_ld_be32(ctrl) >> 24); }
MX_HD uint16_t mx_ctrl_wqe_idx(const void *ctrl) { return (uint16_t)(mx_ld_be32(ctrl) >> 8); }
MX_HD uint32_t mx_ctrl_qpn(const void *ctrl) { return mx_ld_be32((const uint8_t *)ctrl + 4) >> 8; }
/* The ctrl ds field as the NIC reads it: 6 bits (MLX5_WQE_CTRL_DS_MASK). */
MX_HD uint8_t mx_ctrl_ds(const void *ctrl) { return (uint8_t)(mx_ld_be32((const uint8_t *)ctrl + 4) & 0x3f); }
MX_HD uint8_t mx_ctrl_fm_ce_se(const void *ctrl) { return ((const volatile uint8_t *)ctrl)[11]; }
MX_HD uint32_t mx_ctrl_imm_be(const void *ctrl) { return *(const volatile uint32_t *)((const uint8_t *)ctrl + 12); }

MX_HD uint64_t mx_raddr(const void *seg)
{
	return ((uint64_t)mx_ld_be32(seg) << 32) | mx_ld_be32((const uint8_t *)seg + 4);
}
MX_HD uint32_t mx_raddr_rkey(const void *seg) { return mx_ld_be32((const uint8_t *)seg + 8); }

MX_HD uint32_t mx_data_byte_count(const void *seg) { return mx_ld_be32(seg); }
MX_HD uint32_t mx_data_lkey(const void *seg) { return mx_ld_be32((const uint8_t *)seg + 4); }
MX_HD uint64_t mx_data_addr(const void *seg)
{
	return ((uint64_t)mx_ld_be32((const uint8_t *)seg + 8) << 32) | mx_ld_be32((const uint8_t *)seg + 12);
}

/* DC address vector: the DCT a DCI's WQE targets, its access key, and the
 * AV's size in the WQE (bit 31 of the DCT word: extended, 48 bytes). */
MX_HD uint32_t mx_av_dctn(const void *av) { return mx_ld_be32((const uint8_t *)av + MX_AV_OFF_DQP_DCT) & 0xffffffu; }
MX_HD uint64_t mx_av_dc_key(const void *av)
{
	return ((uint64_t)mx_ld_be32(av) << 32) | mx_ld_be32((const uint8_t *)av + 4);
}
MX_HD uint32_t mx_av_wqe_size(const void *av)
{
	return (mx_ld_be32((const uint8_t *)av + MX_AV_OFF_DQP_DCT) & MX_AV_EXTENDED) ? MX_AV_FULL_SIZE
										     : MX_AV_BASE_SIZE;
}

/* ---- CQE64 decoders ------------------------------------------------------ */
/* op_own is the byte a poller spins on; the software NIC publishes bytes
 * 60..63 (wqe_counter, signature, op_own) with one 32-bit release store. On
 * the host the poller loads that same aligned word with acquire, so the body
 * read after it is ordered in C11 terms (what ThreadSanitizer checks, and it
 * pairs only same-address atomics), not only by a later fence. */
MX_HD uint8_t mx_cqe_op_own(const void *cqe)
{
#if defined(__CUDA_ARCH__)
	return ((const volatile uint8_t *)cqe)[MX_CQE_OFF_OP_OWN];
#else
	uint32_t tail = __atomic_load_n((const uint32_t *)((const uint8_t *)cqe + MX_CQE_OFF_WQE_COUNTER),
					__ATOMIC_ACQUIRE);
	uint8_t b[4];

	__builtin_memcpy(b, &tail, 4); /* memory order, whatever the host's endianness */
	return b[MX_CQE_OFF_OP_OWN - MX_CQE_OFF_WQE_COUNTER];
#endif
}
MX_HD uint8_t mx_cqe_opcode(const void *cqe) { return (uint8_t)(mx_cqe_op_own(cqe) >> 4); }
MX_HD uint8_t mx_cqe_owner(const void *cqe) { return (uint8_t)(mx_cqe_op_own(cqe) & 1); }
MX_HD uint8_t mx_cqe_syndrome(const void *cqe) { return ((const volatile uint8_t *)cqe)[MX_CQE_OFF_SYNDROME]; }
MX_HD uint8_t mx_cqe_vendor_syndrome(const void *cqe) { return ((const volatile uint8_t *)cqe)[MX_CQE_OFF_VENDOR_ERR_SYND]; }
/* One aligned 16-bit load: two byte loads could pair the halves of two
 * different CQEs when the slot is being rewritten (collapsed CQ). */
MX_HD uint16_t mx_cqe_wqe_counter(const void *cqe)
{
#if defined(__CUDA_ARCH__)
	return mx_be16toh(*(const volatile uint16_t *)((const uint8_t *)cqe + MX_CQE_OFF_WQE_COUNTER));
#else
	/* The whole published word (see mx_cqe_op_own): a collapsed CQ's slot is
	 * rewritten while the poller reads it. */
	uint32_t tail = __atomic_load_n((const uint32_t *)((const uint8_t *)cqe + MX_CQE_OFF_WQE_COUNTER),
					__ATOMIC_ACQUIRE);
	uint16_t be;

	__builtin_memcpy(&be, &tail, 2); /* bytes 60..61 */
	return mx_be16toh(be);
#endif
}
MX_HD uint32_t mx_cqe_qpn(const void *cqe) { return mx_ld_be32((const uint8_t *)cqe + MX_CQE_OFF_SOP_DROP_QPN) & 0xffffffu; }
MX_HD uint8_t mx_cqe_sop(const void *cqe) { return (uint8_t)(mx_ld_be32((const uint8_t *)cqe + MX_CQE_OFF_SOP_DROP_QPN) >> 24); }
MX_HD uint32_t mx_cqe_byte_cnt(const void *cqe) { return mx_ld_be32((const uint8_t *)cqe + MX_CQE_OFF_BYTE_CNT); }
MX_HD uint32_t mx_cqe_imm_be(const void *cqe) { return *(const volatile uint32_t *)((const uint8_t *)cqe + MX_CQE_OFF_IMM); }

/* Owner rule for a normal CQ of 2^log_n entries: the entry for the
 * free-running consumer index ci is valid iff its opcode is not INVALID and
 * its owner bit equals the lap parity of ci. */
MX_HD int mx_cqe_is_valid(const void *cqe, uint32_t ci, uint32_t log_n)
{
	uint8_t oo = mx_cqe_op_own(cqe);
	return (oo >> 4) != MX_CQE_INVALID && (oo & 1u) == ((ci >> log_n) & 1u);
}

/* ---- CQE64 encoders (software NIC side) ------------------------------------
 * Writes every byte except op_own; the caller publishes op_own last, after a
 * release fence, so that a poller never sees a partial CQE. */
MX_HD void mx_cqe_fill_body(void *cqe, uint8_t sop, uint32_t qpn, uint16_t wqe_counter,
			    uint32_t byte_cnt, uint32_t imm_be, uint8_t syndrome,
			    uint8_t vendor_syndrome)
{
	uint32_t *w = (uint32_t *)cqe;
	for (int i = 0; i < 13; i++)   /* bytes 0..51 */
		mx_store32(&w[i], 0);
	mx_store32(&w[MX_CQE_OFF_IMM / 4], imm_be);
	mx_store32(&w[MX_CQE_OFF_BYTE_CNT / 4], mx_htobe32(byte_cnt));
	/* bytes 52..55: hw_err_synd, hw_synd_type, vendor_err_synd, syndrome */
	mx_store32(&w[13], ((uint32_t)vendor_syndrome << 16) | ((uint32_t)syndrome << 24));
	mx_store32(&w[14], mx_htobe32(((uint32_t)sop << 24) | (qpn & 0xffffffu)));
	/* bytes 60..63: wqe_counter BE16 (one 16-bit store, so a poller never
	 * sees half of it), signature, op_own (left for publish) */
	volatile uint8_t *b = (volatile uint8_t *)cqe;
	*(volatile uint16_t *)(b + MX_CQE_OFF_WQE_COUNTER) = mx_htobe16(wqe_counter);
	b[MX_CQE_OFF_SIGNATURE] = 0;
}

MX_HD uint8_t mx_cqe_op_own_value(uint8_t cqe_opcode, uint32_t owner)
{
	return (uint8_t)((cqe_opcode << 4) | (owner & 1u));
}

#ifdef __cplusplus
}
#endif

#endif /* MARROW_MLX5_WQE_H */
