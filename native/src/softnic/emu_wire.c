/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The wire model of the software NIC (docs/design/wire-model.md). The
 * engine copies bytes at memory speed; with a model set, one port per
 * device serializes every executed WRITE. An engine thread collects the
 * messages it executes into a burst and puts the burst on the port when it
 * is about to write a successful CQE, and at the end of every engine pass
 * that did work:
 *
 *   depart = max(max(t_first, port_free) + sum of its serialization times,
 *                now + the last message's serialization time)
 *   port_free = depart
 *
 * (t_first: when the burst's first message was executed; serialization
 * time = wire_bytes(len) * 8 / bits_per_s)
 *
 * and the CQE is not written before `depart` (the engine thread spins until
 * then). The port is shared by all engine threads (one atomic clock), so
 * bursts queue behind each other whole, in the order they reach the port
 * (no packet interleaving between threads). A burst of one message, what a
 * latency test has, is the per-message rule. Why bursts: one atomic update
 * of the shared clock per message, from every engine thread, capped the
 * modelled port at about 11 M msg/s on the H200 host, below the 12 M msg/s
 * that 2 KiB WRITEs need at 200 Gb/s. Each message's time is still rounded
 * up on its own, so totals equal the per-message sums. Not modeled:
 * propagation, switch hops, the ACK's return trip, link-level credits and
 * PCIe.
 *
 * Clock: emu_now_ns() (CLOCK_MONOTONIC), kept in picoseconds relative to
 * the moment the model was set, so that an 8-byte message's 2 ns at
 * 200 Gb/s does not round away.
 */
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

enum { WIRE_STATS = 5 };

/* One engine thread's view of the port, on lines of its own. */
struct wire_slot {
	uint64_t depart_ps;      /* when this thread's last burst leaves the port */
	/* The burst not yet on the port: when its first message was executed,
	 * its time, its last message's time, messages, payload and wire bytes,
	 * packets (only this engine thread touches them). */
	uint64_t pend_t0_ps, pend_ps, pend_last_ps, pend_n, pend_len, pend_bytes, pend_pkts;
	uint64_t stats[WIRE_STATS];
} __attribute__((aligned(64)));

struct emu_wire {
	struct marrow_emu_wire_model m;
	uint64_t t0_ns;
	uint64_t port_free_ps __attribute__((aligned(64)));   /* atomic */
	struct wire_slot slot[EMU_MAX_THREADS];
};

static uint64_t packets_of(const struct marrow_emu_wire_model *m, uint64_t len)
{
	return len == 0 ? 1 : (len + m->mtu - 1) / m->mtu;
}

MARROW_API int marrow_emu_wire_ib_defaults(struct marrow_emu_wire_model *m, uint64_t bits_per_s)
{
	if (m == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_wire_ib_defaults: NULL model");
	memset(m, 0, sizeof(*m));
	m->size = sizeof(*m);
	m->bits_per_s = bits_per_s;
	m->mtu = 4096;
	m->packet_overhead = 8 + 12 + 4 + 2;   /* LRH + BTH + ICRC + VCRC */
	m->write_overhead = 16;                /* RETH */
	m->imm_overhead = 4;                   /* ImmDt */
	return MARROW_OK;
}

MARROW_API uint64_t marrow_emu_wire_bytes(const struct marrow_emu_wire_model *m, uint64_t len, int with_imm)
{
	if (m == NULL || m->mtu == 0)
		return 0;
	return len + packets_of(m, len) * m->packet_overhead + m->write_overhead +
	       (with_imm ? m->imm_overhead : 0);
}

static uint64_t ps_for_bytes(uint64_t bits_per_s, uint64_t bytes)
{
	unsigned __int128 ps = (unsigned __int128)bytes * 8u * 1000000000000ull;

	return bits_per_s ? (uint64_t)((ps + bits_per_s - 1) / bits_per_s) : 0;
}

MARROW_API uint64_t marrow_emu_wire_time_ps(const struct marrow_emu_wire_model *m, uint64_t len, int with_imm)
{
	if (m == NULL)
		return 0;
	return ps_for_bytes(m->bits_per_s, marrow_emu_wire_bytes(m, len, with_imm));
}

static int check_model(const struct marrow_emu_wire_model *m)
{
	static const char fn[] = "marrow_emu_device_set_wire";

	if (m->size != sizeof(*m))
		return marrow_fail(MARROW_EINVAL, "%s: model size %u != %zu", fn, m->size, sizeof(*m));
	if (m->comp_mask != 0)
		return marrow_fail(MARROW_EINVAL, "%s: comp_mask must be 0", fn);
	if (m->bits_per_s > 10000000000000ull)
		return marrow_fail(MARROW_EINVAL, "%s: %llu b/s is above the 10 Tb/s this model accepts", fn,
				   (unsigned long long)m->bits_per_s);
	if (m->mtu < 256 || m->mtu > 4096 || (m->mtu & (m->mtu - 1)) != 0)
		return marrow_fail(MARROW_EINVAL, "%s: mtu %u is not an IB MTU (256, 512, 1024, 2048, 4096)",
				   fn, m->mtu);
	if (m->packet_overhead > 4096 || m->write_overhead > 4096 || m->imm_overhead > 4096)
		return marrow_fail(MARROW_EINVAL, "%s: overheads above 4096 bytes", fn);
	return MARROW_OK;
}

MARROW_API int marrow_emu_device_set_wire(struct marrow_emu_device *dev, const struct marrow_emu_wire_model *m)
{
	struct emu_wire *w = NULL, *old;
	int rc = emu_dev_check(dev, "marrow_emu_device_set_wire");

	if (rc)
		return rc;
	if (m != NULL && m->bits_per_s != 0) {
		rc = check_model(m);
		if (rc)
			return rc;
		w = emu_zalloc64(sizeof(*w));
		if (w == NULL)
			return marrow_fail(MARROW_ENOMEM, "marrow_emu_device_set_wire: out of memory");
		w->m = *m;
		w->t0_ns = emu_now_ns();
	}
	pthread_mutex_lock(&dev->ctl_lock);
	emu_quiesce(dev);
	old = dev->wire;
	dev->wire = w;
	emu_unquiesce(dev);
	pthread_mutex_unlock(&dev->ctl_lock);
	free(old);
	return MARROW_OK;
}

MARROW_API int marrow_emu_wire_stats(struct marrow_emu_device *dev, uint64_t *out, uint32_t n)
{
	int rc = emu_dev_check(dev, "marrow_emu_wire_stats");
	struct emu_wire *w;

	if (rc)
		return rc;
	if (out == NULL || n > WIRE_STATS)
		return marrow_fail(MARROW_EINVAL, "marrow_emu_wire_stats: out is NULL or n %u > %d", n, WIRE_STATS);
	memset(out, 0, n * sizeof(*out));
	pthread_mutex_lock(&dev->ctl_lock);
	w = dev->wire;
	if (w != NULL)
		for (uint32_t i = 0; i < EMU_MAX_THREADS; i++)
			for (uint32_t k = 0; k < n; k++)
				out[k] += __atomic_load_n(&w->slot[i].stats[k], __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dev->ctl_lock);
	return MARROW_OK;
}

void emu_wire_free(struct marrow_emu_device *dev)
{
	free(dev->wire);
	dev->wire = NULL;
}

static inline uint64_t wire_now_ps(const struct emu_wire *w)
{
	return (emu_now_ns() - w->t0_ns) * 1000u;
}

void emu_wire_account(struct emu_thread *t, uint64_t len, int with_imm)
{
	struct emu_wire *w = t->dev->wire;
	struct wire_slot *s = &w->slot[t->index];
	uint64_t bytes = marrow_emu_wire_bytes(&w->m, len, with_imm);

	if (s->pend_n == 0)
		s->pend_t0_ps = wire_now_ps(w);
	s->pend_last_ps = ps_for_bytes(w->m.bits_per_s, bytes);
	s->pend_ps += s->pend_last_ps;
	s->pend_n++;
	s->pend_len += len;
	s->pend_bytes += bytes;
	s->pend_pkts += packets_of(&w->m, len);
}

void emu_wire_flush(struct emu_thread *t)
{
	struct emu_wire *w = t->dev->wire;
	struct wire_slot *s = &w->slot[t->index];
	uint64_t now, cur, dep, last;

	if (s->pend_n == 0)
		return;
	/* The burst starts when its first message was executed, so the port
	 * runs while the rest are copied; but its last message cannot leave
	 * before it was executed (now) and sent. */
	now = wire_now_ps(w);
	last = now + s->pend_last_ps;
	cur = __atomic_load_n(&w->port_free_ps, __ATOMIC_RELAXED);
	do {
		dep = (cur > s->pend_t0_ps ? cur : s->pend_t0_ps) + s->pend_ps;
		if (dep < last)
			dep = last;
	} while (!__atomic_compare_exchange_n(&w->port_free_ps, &cur, dep, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	s->depart_ps = dep;
	/* Single writer per slot; relaxed stores so that stats readers see whole values. */
	__atomic_store_n(&s->stats[0], s->stats[0] + s->pend_n, __ATOMIC_RELAXED);
	__atomic_store_n(&s->stats[1], s->stats[1] + s->pend_len, __ATOMIC_RELAXED);
	__atomic_store_n(&s->stats[2], s->stats[2] + s->pend_bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&s->stats[3], s->stats[3] + s->pend_pkts, __ATOMIC_RELAXED);
	s->pend_ps = s->pend_last_ps = s->pend_n = s->pend_len = s->pend_bytes = s->pend_pkts = 0;
}

void emu_wire_hold(struct emu_thread *t)
{
	struct emu_wire *w = t->dev->wire;
	struct wire_slot *s = &w->slot[t->index];
	uint64_t now, start;

	emu_wire_flush(t);
	now = start = wire_now_ps(w);
	if (now >= s->depart_ps)
		return;
	while (now < s->depart_ps) {
		emu_cpu_relax();
		now = wire_now_ps(w);
	}
	__atomic_store_n(&s->stats[4], s->stats[4] + (now - start) / 1000u, __ATOMIC_RELAXED);
}
