/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_proxy_cpu_loaded (marrow_proxy_loaded.h): the calling thread is the
 * probe producer, marrow_proxy_responder_start's thread is PE 1, and one
 * pthread per background stream enqueues 8-byte WRITEs with the proxy's
 * handoff until the probe is done.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marrow/marrow_proxy_loaded.h"
#include "proxy_internal.h"

struct lstream {
	struct marrow_proxy *px;
	const struct marrow_proxy_loaded_params *p;
	uint32_t k, ring;
	uint32_t *go, *stop;
	uint64_t posted;          /* atomic: read at the probe window's edges */
	int rc;
	char err[200];
	pthread_t tid;
};

static uint8_t *base(const struct marrow_proxy *px) { return (uint8_t *)(uintptr_t)px->mem.base; }
static uint64_t half(const struct marrow_proxy *px) { return (px->mem.len / 2) & ~63ull; }

static uint32_t slot_off(uint32_t k, uint32_t j)
{
	return MARROW_PROXY_AREA_LAT + 8u * (k * MARROW_PROXY_LOADED_SLOTS + j);
}

MARROW_API uint64_t marrow_proxy_loaded_buffer_bytes(uint32_t bg_streams)
{
	uint64_t h = MARROW_PROXY_AREA_LAT + 8ull * MARROW_PROXY_LOADED_SLOTS * bg_streams;

	return (2 * h + 4095) & ~4095ull;
}

static void *stream_main(void *arg)
{
	struct lstream *s = arg;
	struct marrow_proxy *px = s->px;
	const uint64_t interval = s->p->pace_msgs_per_s
					  ? (uint64_t)s->p->bg_streams * 1000000000ull / s->p->pace_msgs_per_s
					  : 0;
	const uint64_t h = half(px);
	uint64_t i = 0, next = 0;

	while (!__atomic_load_n(s->go, __ATOMIC_ACQUIRE))
		px_idle(px);
	while (!__atomic_load_n(s->stop, __ATOMIC_RELAXED)) {
		uint32_t off = slot_off(s->k, (uint32_t)(i % MARROW_PROXY_LOADED_SLOTS));
		int rc;

		if (interval) {
			/* Never faster than the share: a late stream does not catch up in a burst. */
			uint64_t now = px_now_ns();

			if (now < next) {
				px_idle(px);
				continue;
			}
			next = (next + interval > now ? next : now) + interval;
		}
		rc = px_enqueue(px, s->ring, px->cfg.handoff, mpr_w0(off, (uint32_t)(h + off)),
				mpr_w1(8, MPR_OP_WRITE, 0, 0), s->p->timeout_ns, NULL);
		if (rc != MARROW_OK) {
			s->rc = rc;
			snprintf(s->err, sizeof(s->err), "%s", marrow_last_error());
			break;
		}
		__atomic_store_n(&s->posted, ++i, __ATOMIC_RELAXED);
	}
	return NULL;
}

static uint64_t posted_sum(struct lstream *ss, uint32_t n)
{
	uint64_t t = 0;

	for (uint32_t k = 0; k < n; k++)
		t += __atomic_load_n(&ss[k].posted, __ATOMIC_RELAXED);
	return t;
}

static int wait_reply(struct marrow_proxy *px, const uint64_t *flag, uint64_t v, uint64_t timeout_ns, uint64_t it)
{
	uint64_t deadline = 0;

	for (uint32_t spins = 0; px_ld_acq(flag) != v; spins++) {
		if ((spins & 1023) == 0) {
			uint64_t now = px_now_ns();

			if (deadline == 0)
				deadline = now + timeout_ns;
			else if (now > deadline)
				return marrow_fail(MARROW_ETIMEDOUT, "marrow_proxy_cpu_loaded: probe %llu: no reply within "
						   "%llu ms (responder error %d; ring 0 tail %llu, completed %llu)",
						   (unsigned long long)it, (unsigned long long)(timeout_ns / 1000000),
						   px->resp_error, (unsigned long long)px_ld_acq(&px->rings[0].ctl->tail),
						   (unsigned long long)px_ld_acq(px->rings[0].cpl_target));
		}
		px_idle(px);
	}
	return MARROW_OK;
}

static int check_params(struct marrow_proxy *px, const struct marrow_proxy_loaded_params *p, const uint64_t *rtt,
			const struct marrow_proxy_loaded_result *res)
{
	static const char fn[] = "marrow_proxy_cpu_loaded";
	const uint32_t R = px ? px->cfg.rings : 0;

	if (px == NULL || p == NULL || res == NULL || rtt == NULL || p->size < sizeof(*p) || res->size < sizeof(*res) ||
	    p->comp_mask)
		return marrow_fail(MARROW_EINVAL, "%s: bad arguments", fn);
	if (!px->running)
		return marrow_fail(MARROW_EINVAL, "%s: workers are not running", fn);
	if (p->iters == 0 || p->timeout_ns == 0 || p->queue > MARROW_PROXY_LOADED_RESERVED ||
	    p->bg_streams > MARROW_PROXY_LOADED_MAX_STREAMS)
		return marrow_fail(MARROW_EINVAL, "%s: iters and timeout_ns > 0, queue shared/reserved, bg_streams <= %d",
				   fn, MARROW_PROXY_LOADED_MAX_STREAMS);
	if (R < 2)
		return marrow_fail(MARROW_EINVAL, "%s: rings >= 2 (ring 1 carries PE 1's replies)", fn);
	if (px->mem.len < marrow_proxy_loaded_buffer_bytes(p->bg_streams))
		return marrow_fail(MARROW_EINVAL, "%s: buffer %llu bytes < %llu for %u streams", fn,
				   (unsigned long long)px->mem.len,
				   (unsigned long long)marrow_proxy_loaded_buffer_bytes(p->bg_streams), p->bg_streams);
	if (p->bg_streams == 0)
		return MARROW_OK;
	if (p->queue == MARROW_PROXY_LOADED_SHARED && px->cfg.handoff == MARROW_PROXY_TUNED)
		return marrow_fail(MARROW_EINVAL, "%s: a shared ring has several producers: use the baseline handoff "
				   "(tuned allows one producer per ring)", fn);
	if (p->queue == MARROW_PROXY_LOADED_RESERVED && R < 3)
		return marrow_fail(MARROW_EINVAL, "%s: reserved background rings are 2..R-1: rings >= 3", fn);
	if (p->queue == MARROW_PROXY_LOADED_RESERVED && px->cfg.handoff == MARROW_PROXY_TUNED && p->bg_streams > R - 2)
		return marrow_fail(MARROW_EINVAL, "%s: tuned handoff: %u streams need %u background rings (have %u)", fn,
				   p->bg_streams, p->bg_streams, R - 2);
	return MARROW_OK;
}

MARROW_API int marrow_proxy_cpu_loaded(struct marrow_proxy *px, const struct marrow_proxy_loaded_params *p,
				       uint64_t *rtt_ns, struct marrow_proxy_loaded_result *res)
{
	static const char fn[] = "marrow_proxy_cpu_loaded";
	uint32_t n, go = 0, stop = 0, started = 0;
	struct lstream *ss;
	uint64_t h, seq, total, bg0 = 0, bg1 = 0, t_first = 0, t_last = 0;
	uint64_t *flag0;
	int rc;

	if ((rc = check_params(px, p, rtt_ns, res)) != MARROW_OK)
		return rc;
	memset((uint8_t *)res + 8, 0, sizeof(*res) - 8);
	n = p->bg_streams;
	h = half(px);
	ss = calloc(n + 1u, sizeof(*ss));
	if (ss == NULL)
		return marrow_fail(MARROW_ENOMEM, "%s: out of memory", fn);
	/* Background sources get a per-(stream, slot) pattern; destinations are cleared
	 * (in another process's memory, two-process mode: its inbox starts zeroed). */
	for (uint32_t k = 0; k < n; k++)
		for (uint32_t j = 0; j < MARROW_PROXY_LOADED_SLOTS; j++) {
			uint64_t v = 0x6c00000000000000ull ^ ((uint64_t)k << 32) ^ j;

			memcpy(base(px) + slot_off(k, j), &v, 8);
			if (!px->remote_dst)
				memset(base(px) + h + slot_off(k, j), 0, 8);
		}
	for (uint32_t k = 0; k < n; k++) {
		ss[k] = (struct lstream){ .px = px, .p = p, .k = k, .go = &go, .stop = &stop,
					  .ring = p->queue == MARROW_PROXY_LOADED_SHARED ? 0u
						  : 2u + k % (px->cfg.rings - 2u) };
		if (pthread_create(&ss[k].tid, NULL, stream_main, &ss[k]) != 0)
			break;
		started++;
	}
	/* PE 1 answers here; in two-process mode the peer process's proxy answers
	 * instead (docs/design/two-process.md section 9), so no local thread. */
	rc = started < n ? marrow_fail(MARROW_ENOMEM, "%s: cannot start %u background threads", fn, n)
	     : px->remote_dst ? MARROW_OK
			      : marrow_proxy_responder_start(px, 1, 8);
	flag0 = (uint64_t *)(base(px) + MARROW_PROXY_FLAG_OFF);
	seq = px_ld_acq(flag0) + 1000000;   /* values never repeat: a stale flag never looks like a reply */
	total = p->warmup + p->iters;
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (uint64_t i = 0; i < total && rc == MARROW_OK; i++) {
		uint32_t src = (uint32_t)((i % 64) * 64);
		uint64_t v = ++seq, t0, t3;

		if (i == p->warmup)
			bg0 = posted_sum(ss, started);
		memcpy(base(px) + src, &v, sizeof(v));
		t0 = px_now_ns();
		rc = px_enqueue(px, 0, px->cfg.handoff, mpr_w0(src, (uint32_t)h + MARROW_PROXY_FLAG_OFF),
				mpr_w1(8, MPR_OP_WRITE, 0, 0), p->timeout_ns, NULL);
		if (rc == MARROW_OK)
			rc = wait_reply(px, flag0, v, p->timeout_ns, i);
		t3 = px_now_ns();
		if (rc == MARROW_OK && i >= p->warmup) {
			rtt_ns[i - p->warmup] = t3 - t0;
			if (i == p->warmup)
				t_first = t0;
			t_last = t3;
		}
		if (rc == MARROW_OK)
			res->probes_done = i + 1;
	}
	bg1 = posted_sum(ss, started);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (uint32_t k = 0; k < started; k++)
		pthread_join(ss[k].tid, NULL);
	{
		int rc2 = marrow_proxy_responder_stop(px);

		if (rc == MARROW_OK && rc2 != MARROW_OK)
			rc = marrow_fail(rc2, "%s: responder failed (status %d)", fn, rc2);
	}
	for (uint32_t k = 0; k < started && rc == MARROW_OK; k++)
		if (ss[k].rc != MARROW_OK)
			rc = marrow_fail(ss[k].rc, "%s: background stream %u: %s", fn, k, ss[k].err);
	/* Every ring delivers what was enqueued before the bytes are checked. */
	for (uint32_t r = 0; r < px->cfg.rings && rc == MARROW_OK; r++)
		rc = px_wait_cpl(px, r, px_ld_acq(&px->rings[r].ctl->tail), p->timeout_ns);
	res->timed_ns = t_last - t_first;
	res->bg_in_window = bg1 - bg0;
	res->bg_posted = posted_sum(ss, started);
	/* A remote destination is checked by its owner (the responder's inbox count). */
	if (rc == MARROW_OK && !px->remote_dst) {
		for (uint32_t k = 0; k < n; k++)
			for (uint32_t j = 0; j < MARROW_PROXY_LOADED_SLOTS && j < ss[k].posted; j++)
				if (memcmp(base(px) + slot_off(k, j), base(px) + h + slot_off(k, j), 8) != 0)
					res->bg_slot_errors++;
		if (res->bg_slot_errors)
			rc = marrow_fail(MARROW_EPROTO, "%s: %llu background slots differ from their source", fn,
					 (unsigned long long)res->bg_slot_errors);
	}
	free(ss);
	return rc;
}
