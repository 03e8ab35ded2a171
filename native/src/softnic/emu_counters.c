/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Emulator counters. Each engine thread counts into a private array and
 * publishes it into its own block under a seqlock (single writer, no atomic
 * read-modify-write); a reader copies every block with the seqlock retry
 * rule and sums them. Each block is therefore an exact snapshot of one
 * thread at one point; with several threads the sum is a consistent cut per
 * thread. A CQE is published only after the counters that describe it, so a
 * reader that has seen a CQE reads counters that include it. What each
 * counter counts: docs/design/software-nic.md §9.
 */
#include <string.h>

#include "emu_internal.h"

static const char *const counter_names[] = {
#define MARROW_EMU_COUNTER_NAME(n) "emu_" #n,
	MARROW_EMU_COUNTERS(MARROW_EMU_COUNTER_NAME)
#undef MARROW_EMU_COUNTER_NAME
};

MARROW_API int marrow_emu_counter_count(void)
{
	return MARROW_EMU_CTR_COUNT;
}

MARROW_API const char *marrow_emu_counter_name(int id)
{
	if (id < 0 || id >= MARROW_EMU_CTR_COUNT)
		return NULL;
	return counter_names[id];
}

/* local[] holds running totals, so publishing is a straight copy of every
 * counter: no per-counter test, add or reset; unrolled, it is one load and
 * one store per counter (it runs once per CQE). */
void emu_counters_publish(struct emu_thread *t)
{
	struct emu_ctr_block *b = &t->pub;
	uint32_t s = b->seq;

	__atomic_store_n(&b->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
#pragma GCC unroll 64
	for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
		__atomic_store_n(&b->v[i], t->local[i], __ATOMIC_RELAXED);
	__atomic_store_n(&b->seq, s + 2, __ATOMIC_RELEASE);
}

static void read_block(const struct emu_ctr_block *b, uint64_t *v)
{
	for (;;) {
		uint32_t s1 = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);

		if (s1 & 1) {
			emu_cpu_relax();
			continue;
		}
		for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
			v[i] = __atomic_load_n(&b->v[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&b->seq, __ATOMIC_RELAXED) == s1)
			return;
	}
}

MARROW_API int marrow_emu_counters_read(struct marrow_emu_device *dev, uint64_t *out, uint32_t n)
{
	uint64_t sum[MARROW_EMU_CTR_COUNT] = { 0 };
	uint64_t v[MARROW_EMU_CTR_COUNT];
	int rc = emu_dev_check(dev, "marrow_emu_counters_read");

	if (rc)
		return rc;
	if (out == NULL && n != 0)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_counters_read: out is NULL");
	if (n > MARROW_EMU_CTR_COUNT)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_counters_read: n %u exceeds the %d counters",
				   n, MARROW_EMU_CTR_COUNT);
	for (uint32_t i = 0; i < dev->nthreads; i++) {
		read_block(&dev->threads[i].pub, v);
		for (int j = 0; j < MARROW_EMU_CTR_COUNT; j++)
			sum[j] += v[j];
	}
	if (n)
		memcpy(out, sum, n * sizeof(uint64_t));
	return MARROW_OK;
}
