/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Lap-bit wrap. First the encoding itself: a zeroed slot reads empty at lap
 * 0, a descriptor published for position h is valid at h and invalid at
 * h + N (the next lap expects the other parity), fields round-trip. Then a
 * 2-slot ring carries 20000 requests (10000 laps) per handoff, each to its
 * own destination word, with the worker checking ring order.
 */
#include "test_proxy_rig.h"

enum { N_MSG = 20000 / PX_TEST_SCALE };

static void encoding(void)
{
	const uint32_t log = 3; /* 8 slots */
	struct mpr_desc d = { 0, 0 };
	uint64_t w1;

	CHECK(!mpr_valid(d.w1, 0, log));                 /* zeroed ring: empty */
	for (uint64_t h = 0; h < 64; h++) {
		w1 = mpr_w1(8, MPR_OP_WRITE, 3, (uint32_t)h) | mpr_lap_bit(h, log);
		CHECK(mpr_valid(w1, h, log));
		CHECK(!mpr_valid(w1, h + 8, log));      /* stale after one lap */
		CHECK(mpr_valid(w1, h + 16, log) == 1); /* parity repeats every 2 laps; tail never gets there */
	}
	w1 = mpr_w1(MPR_MAX_SIZE, MPR_OP_WRITE, 0xffff, 0x7fff) | (1ull << 63);
	CHECK(mpr_size(w1) == MPR_MAX_SIZE && mpr_opcode(w1) == MPR_OP_WRITE && mpr_dst(w1) == 0xffff &&
	      mpr_tag(w1) == 0x7fff);
	CHECK(mpr_local_off(mpr_w0(0xdeadbeef, 0x12345678)) == 0xdeadbeef);
	CHECK(mpr_remote_off(mpr_w0(0xdeadbeef, 0x12345678)) == 0x12345678);
	CHECK(mpr_arena_bytes(2, 1) % 4096 == 0);
	CHECK((uint8_t *)mpr_slots_of((void *)0x10000, 2, 1, 1) - (uint8_t *)0x10000 == 4096 + 32);
}

static void laps(uint32_t handoff)
{
	struct rig r;
	uint64_t half, ticket;

	rig_open(&r, 1, 1, 1, 4, handoff, 5, 2ull * N_MSG * 8 + 65536);
	half = r.len / 2;
	OK(marrow_proxy_start(r.px));
	for (uint32_t k = 0; k < N_MSG; k++) {
		uint64_t v = 0xAB00000000000000ull | k;

		memcpy(r.buf + k * 8, &v, 8);
		OK(marrow_proxy_enqueue(r.px, 0, k * 8, (uint32_t)(half + k * 8), 8, 0, 5000000000ull, &ticket));
		CHECK(ticket == k);
	}
	OK(marrow_proxy_wait(r.px, 0, N_MSG, 5000000000ull));
	for (uint32_t k = 0; k < N_MSG; k++) {
		uint64_t v;

		memcpy(&v, r.buf + half + k * 8, 8);
		CHECK(v == (0xAB00000000000000ull | k));
	}
	rig_close(&r);
}

int main(void)
{
	encoding();
	laps(MARROW_PROXY_TUNED);
	laps(MARROW_PROXY_BASELINE);
	printf("test_proxy_wrap: OK\n");
	return 0;
}
