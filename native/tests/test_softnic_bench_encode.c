/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_emu_bench_encode (what JMH's WqeEncodeBenchmark times): the WQEs it
 * leaves in the ring read back, with mlx5_wqe.h's accessors, as the RC RDMA
 * WRITEs it promises (opcode, WQEBB counter, QPN, ds, signaling, remote
 * address, inline or pointer data), wrapping around the ring; bad arguments
 * fail with a message and write nothing.
 */
#include "emu_test_util.h"

enum { LOG_SQ = 6, SQ_BYTES = (1 << LOG_SQ) * MX_WQEBB_SIZE, QPN = 0x1234 };

/* Checks the WQE at WQEBB counter c. */
static void check_wqe(const uint8_t *sq, uint16_t c, uint32_t ds, int signaled, uint32_t len, int inl)
{
	const uint8_t *w = sq + (size_t)(c & ((1u << LOG_SQ) - 1)) * MX_WQEBB_SIZE;

	CHECK(mx_ctrl_opcode(w) == MX_OPCODE_RDMA_WRITE, "WQE %u: opcode 0x%x", c, mx_ctrl_opcode(w));
	CHECK(mx_ctrl_wqe_idx(w) == c, "WQE %u: wqe_idx %u", c, mx_ctrl_wqe_idx(w));
	CHECK(mx_ctrl_qpn(w) == QPN, "WQE %u: qpn 0x%x", c, mx_ctrl_qpn(w));
	CHECK(mx_ctrl_ds(w) == ds, "WQE %u: ds %u, expected %u", c, mx_ctrl_ds(w), ds);
	CHECK(!!(mx_ctrl_fm_ce_se(w) & MX_CTRL_CQ_UPDATE) == signaled, "WQE %u: fm_ce_se 0x%x", c,
	      mx_ctrl_fm_ce_se(w));
	CHECK(mx_raddr(w + MX_CTRL_SEG_SIZE) == 0x2000 && mx_raddr_rkey(w + MX_CTRL_SEG_SIZE) == 2,
	      "WQE %u: raddr/rkey", c);
	if (inl) {
		CHECK(mx_ld_be32(w + 32) == (len | MX_INLINE_SEG_FLAG), "WQE %u: inline header 0x%x", c,
		      mx_ld_be32(w + 32));
	} else {
		CHECK(mx_data_byte_count(w + 32) == len && mx_data_lkey(w + 32) == 1 &&
		      mx_data_addr(w + 32) == 0x1000, "WQE %u: data segment", c);
	}
}

int main(void)
{
	uint8_t *sq = t_alloc(SQ_BYTES, 0xee);
	uint8_t *copy = t_alloc(SQ_BYTES, 0);

	/* 8 bytes inline: one WQEBB each; 70 WQEs wrap the 64-WQEBB ring, so
	 * slots 0..5 hold WQEs 64..69 and the last one (counter 69) is signaled. */
	OK(marrow_emu_bench_encode(sq, SQ_BYTES, LOG_SQ, QPN, 8, 64, 70));
	for (uint16_t c = 6; c < 64; c++)
		check_wqe(sq, c, mx_ds_inline_write(8), 0, 8, 1);
	for (uint16_t c = 64; c < 70; c++)
		check_wqe(sq, c, mx_ds_inline_write(8), c == 69, 8, 1);

	/* 100 bytes inline: ds 2 + (4 + 100 + 15) / 16 = 9, three WQEBBs each. */
	memset(sq, 0xee, SQ_BYTES);
	OK(marrow_emu_bench_encode(sq, SQ_BYTES, LOG_SQ, QPN, 100, 128, 5));
	for (uint16_t i = 0; i < 5; i++)
		check_wqe(sq, (uint16_t)(3 * i), 9, i == 4, 100, 1);

	/* Above max_inline: one pointer segment, ds 3, one WQEBB each. */
	memset(sq, 0xee, SQ_BYTES);
	OK(marrow_emu_bench_encode(sq, SQ_BYTES, LOG_SQ, QPN, 4096, 64, 3));
	for (uint16_t c = 0; c < 3; c++)
		check_wqe(sq, c, 3, c == 2, 4096, 0);
	CHECK(sq[3 * MX_WQEBB_SIZE] == 0xee, "a WQEBB past the last WQE was written");

	/* Bad arguments: a status, a message, and the ring untouched. */
	memcpy(copy, sq, SQ_BYTES);
	FAILS(MARROW_EINVAL, marrow_emu_bench_encode(NULL, SQ_BYTES, LOG_SQ, QPN, 8, 64, 1));
	FAILS(MARROW_EINVAL, marrow_emu_bench_encode(sq, SQ_BYTES, 40, QPN, 8, 64, 1));
	FAILS(MARROW_EINVAL, marrow_emu_bench_encode(sq, SQ_BYTES, LOG_SQ, 1u << 24, 8, 64, 1));
	FAILS(MARROW_EINVAL, marrow_emu_bench_encode(sq, SQ_BYTES, LOG_SQ, QPN, 8, MX_MAX_INLINE_RC_WRITE + 1, 1));
	FAILS(MARROW_EINVAL, marrow_emu_bench_encode(sq, SQ_BYTES - 1, LOG_SQ, QPN, 8, 64, 1));
	/* 200 bytes inline take 4 WQEBBs: not in a ring of 2. */
	FAILS(MARROW_EINVAL, marrow_emu_bench_encode(sq, SQ_BYTES, 1, QPN, 200, 220, 1));
	CHECK(memcmp(copy, sq, SQ_BYTES) == 0, "a failed call wrote into the ring");
	free(sq);
	free(copy);
	return t_finish("test_softnic_bench_encode");
}
