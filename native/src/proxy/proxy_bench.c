/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy experiments with CPU producers (timed loops stay in C) and the
 * PE-1 responder used for round trips. Buffer layout: marrow_proxy.h.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_internal.h"
#include "proxy_params_check.h"

static uint8_t *buf(const struct marrow_proxy *px) { return (uint8_t *)(uintptr_t)px->mem.base; }
static uint64_t half_of(const struct marrow_proxy *px) { return (px->mem.len / 2) & ~63ull; }

/* ---- responder (PE 1) ------------------------------------------------------ */

static void *responder_main(void *arg)
{
	struct marrow_proxy *px = arg;
	const uint64_t half = half_of(px);
	const uint64_t *flag = (const uint64_t *)(buf(px) + half + MARROW_PROXY_FLAG_OFF);
	uint64_t last = px->resp_last, j = 0;

	pthread_setname_np(pthread_self(), "marrow-pxresp");
	while (!__atomic_load_n(&px->resp_stop, __ATOMIC_RELAXED)) {
		uint64_t v = px_ld_acq(flag);
		uint32_t src;
		int rc;

		if (v == last) {
			px_idle(px);
			continue;
		}
		last = v;
		/* Answer from PE 1's own source slot into PE 0's flag word. */
		src = (uint32_t)(half + (j++ % 64) * 64);
		memcpy(buf(px) + src, &v, sizeof(v));
		rc = px_enqueue(px, px->resp_ring, px->cfg.handoff, mpr_w0(src, MARROW_PROXY_FLAG_OFF),
				mpr_w1(px->resp_size, MPR_OP_WRITE, 0, 0), 1000000000ull, NULL);
		if (rc != MARROW_OK) {
			__atomic_store_n(&px->resp_error, rc, __ATOMIC_RELEASE);
			break;
		}
	}
	return NULL;
}

MARROW_API int marrow_proxy_responder_start(struct marrow_proxy *px, uint32_t ring, uint32_t msg_size)
{
	if (px == NULL || ring >= px->cfg.rings)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_responder_start: no ring %u", ring);
	if (px->resp_started)
		return marrow_fail(MARROW_EBUSY, "marrow_proxy_responder_start: already running");
	if (msg_size < 8 || msg_size > 64 || half_of(px) < MARROW_PROXY_AREA_LAT)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_responder_start: msg_size %u must be 8..64 and the buffer "
				   ">= %d bytes", msg_size, 2 * MARROW_PROXY_AREA_LAT);
	px->resp_ring = ring;
	px->resp_size = msg_size;
	/* Read here, not in the thread: a ping sent before the thread runs must
	 * still count as new. */
	px->resp_last = px_ld_acq((const uint64_t *)(buf(px) + half_of(px) + MARROW_PROXY_FLAG_OFF));
	px->resp_stop = 0;
	px->resp_error = 0;
	if (pthread_create(&px->resp_tid, NULL, responder_main, px) != 0)
		return marrow_fail(MARROW_ENOMEM, "marrow_proxy_responder_start: cannot create thread");
	px->resp_started = 1;
	return MARROW_OK;
}

MARROW_API int marrow_proxy_responder_stop(struct marrow_proxy *px)
{
	if (px == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_responder_stop: NULL proxy");
	if (!px->resp_started)
		return MARROW_OK;
	__atomic_store_n(&px->resp_stop, 1, __ATOMIC_RELEASE);
	pthread_join(px->resp_tid, NULL);
	px->resp_started = 0;
	return px->resp_error;
}

/* ---- single-operation latency ------------------------------------------------ */

static int reply_timeout(struct marrow_proxy *px, const uint64_t *flag, uint64_t v, uint64_t timeout_ns)
{
	struct marrow_dump d;

	marrow_fail(MARROW_ETIMEDOUT,
		    "round trip %llu: no reply from PE 1 within %llu ms (responder error %d, "
		    "ring 0 worker %s, ring 1 worker %s)",
		    (unsigned long long)v, (unsigned long long)(timeout_ns / 1000000), px->resp_error,
		    px_worker_state_name(px_ld_acq(&px->rings[0].ctl->worker_state)),
		    px_worker_state_name(px_ld_acq(&px->rings[1].ctl->worker_state)));
	/* The watchdog dump (docs/design/watchdog.md). */
	marrow_dump_init(&d);
	marrow_dump_kv(&d, "waited_for", "reply");
	marrow_dump_kv(&d, "bound_ms", "%llu", (unsigned long long)(timeout_ns / 1000000u));
	marrow_dump_kv(&d, "want_flag", "%llu", (unsigned long long)v);
	marrow_dump_kv(&d, "seen_flag", "%llu", (unsigned long long)px_ld_acq(flag));
	for (uint32_t r = 0; r < 2; r++) {
		char k[24];

		snprintf(k, sizeof(k), "ring%u_tail", r);
		marrow_dump_kv(&d, k, "%llu", (unsigned long long)px_ld_acq(&px->rings[r].ctl->tail));
		snprintf(k, sizeof(k), "ring%u_completed", r);
		marrow_dump_kv(&d, k, "%llu", (unsigned long long)px_ld_acq(px->rings[r].cpl_target));
	}
	return marrow_fail_dump(MARROW_ETIMEDOUT, &d);
}

static int wait_flag(struct marrow_proxy *px, const uint64_t *flag, uint64_t v, uint64_t timeout_ns)
{
	uint64_t deadline = 0;

	for (uint32_t spins = 0; px_ld_acq(flag) != v; spins++) {
		if ((spins & 1023) == 0) {
			uint64_t now = px_now_ns();

			if (deadline == 0)
				deadline = now + timeout_ns;
			else if (now > deadline)
				return reply_timeout(px, flag, v, timeout_ns);
		}
		px_idle(px);
	}
	return MARROW_OK;
}

MARROW_API int marrow_proxy_latency_check(const struct marrow_proxy_latency_params *p, uint32_t gpu_producer)
{
	return px_check_latency_params(p, gpu_producer != 0);
}

MARROW_API int marrow_proxy_rate_check(const struct marrow_proxy_rate_params *p)
{
	return px_check_rate_params(p);
}

MARROW_API int marrow_proxy_cpu_latency(struct marrow_proxy *px, const struct marrow_proxy_latency_params *p,
					uint64_t *issue_ns, uint64_t *putc_ns, uint64_t *rtt_ns)
{
	uint64_t half, seq, total;
	uint64_t *flag0;
	int rc = MARROW_OK;

	if (px == NULL || p == NULL || p->size < sizeof(*p))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cpu_latency: bad arguments");
	if (!px->running)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cpu_latency: workers are not running");
	if ((rc = px_check_latency_params(p, 0)) != MARROW_OK)
		return rc;
	half = half_of(px);
	if (half < MARROW_PROXY_AREA_LAT)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cpu_latency: buffer %llu bytes < %d",
				   (unsigned long long)px->mem.len, 2 * MARROW_PROXY_AREA_LAT);
	if (rtt_ns && px->cfg.rings < 2)
		return marrow_fail(MARROW_EINVAL, "round trips need rings >= 2 (ring 1 carries PE 1's replies)");
	flag0 = (uint64_t *)(buf(px) + MARROW_PROXY_FLAG_OFF);
	/* Values never repeat, so a stale flag can never look like a reply. */
	seq = px_ld_acq(flag0) + 1000000;
	total = (uint64_t)p->warmup + p->iters;
	marrow_proxy_mark(px, 0);
	if (issue_ns || putc_ns) {
		for (uint64_t i = 0; i < total && rc == MARROW_OK; i++) {
			uint32_t src = (uint32_t)((i % 64) * 64);
			uint64_t v = ++seq, t0, t1, t2, ticket;

			memcpy(buf(px) + src, &v, sizeof(v));
			t0 = px_now_ns();
			rc = px_enqueue(px, 0, px->cfg.handoff, mpr_w0(src, (uint32_t)half + MARROW_PROXY_FLAG_OFF),
					mpr_w1(p->msg_size, MPR_OP_WRITE, 0, 0), p->timeout_ns, &ticket);
			t1 = px_now_ns();
			if (rc == MARROW_OK)
				rc = px_wait_cpl(px, 0, ticket + 1, p->timeout_ns);
			t2 = px_now_ns();
			if (i >= p->warmup) {
				if (issue_ns)
					issue_ns[i - p->warmup] = t1 - t0;
				if (putc_ns)
					putc_ns[i - p->warmup] = t2 - t0;
			}
		}
	}
	if (rtt_ns && rc == MARROW_OK) {
		rc = marrow_proxy_responder_start(px, 1, p->msg_size);
		for (uint64_t i = 0; i < total && rc == MARROW_OK; i++) {
			uint32_t src = (uint32_t)((i % 64) * 64);
			uint64_t v = ++seq, t0, t3;

			memcpy(buf(px) + src, &v, sizeof(v));
			t0 = px_now_ns();
			rc = px_enqueue(px, 0, px->cfg.handoff, mpr_w0(src, (uint32_t)half + MARROW_PROXY_FLAG_OFF),
					mpr_w1(p->msg_size, MPR_OP_WRITE, 0, 0), p->timeout_ns, NULL);
			if (rc == MARROW_OK)
				rc = wait_flag(px, flag0, v, p->timeout_ns);
			t3 = px_now_ns();
			if (i >= p->warmup)
				rtt_ns[i - p->warmup] = t3 - t0;
		}
		int rc2 = marrow_proxy_responder_stop(px);

		if (rc == MARROW_OK && rc2 != MARROW_OK)
			rc = marrow_fail(rc2, "responder failed (status %d)", rc2);
	}
	marrow_proxy_mark(px, 1);
	return rc;
}

/* ---- message rate ------------------------------------------------------------- */

struct producer {
	struct marrow_proxy *px;
	uint32_t first_ring;     /* rings first_ring, first_ring + stride, ... */
	uint32_t stride;
	uint32_t nrings;
	uint32_t msg_size;
	uint64_t messages;
	uint64_t timeout_ns;
	uint32_t *start;         /* go flag */
	uint64_t *sent;          /* per ring, shared: messages sent to that ring */
	int rc;
	char err[256];
};

static uint64_t pattern(uint32_t ring, uint64_t slot)
{
	return 0x5a00000000000000ull ^ ((uint64_t)ring << 32) ^ slot;
}

static uint32_t src_off(const struct marrow_proxy *px, uint32_t ring, uint64_t j, uint32_t size)
{
	return (uint32_t)(MARROW_PROXY_AREA_LAT + ((uint64_t)ring * px->slots + j) * size);
}

static void *producer_main(void *arg)
{
	struct producer *pr = arg;
	struct marrow_proxy *px = pr->px;
	const uint64_t half = half_of(px);
	uint64_t k = 0;

	while (!__atomic_load_n(pr->start, __ATOMIC_ACQUIRE))
		px_idle(px);
	for (uint64_t i = 0; i < pr->messages; i++) {
		uint32_t ring = pr->first_ring + (uint32_t)(k++ % pr->nrings) * pr->stride;
		/* The window slot cycles with this producer's own count, so that
		 * several baseline producers on one ring write identical bytes. */
		uint64_t j = (i / pr->nrings) % px->slots;
		uint32_t s = src_off(px, ring, j, pr->msg_size);
		int rc = px_enqueue(px, ring, px->cfg.handoff, mpr_w0(s, (uint32_t)(half + s)),
				    mpr_w1(pr->msg_size, MPR_OP_WRITE, 0, 0), pr->timeout_ns, NULL);

		if (rc != MARROW_OK) {
			pr->rc = rc;
			snprintf(pr->err, sizeof(pr->err), "%s", marrow_last_error());
			return NULL;
		}
		__atomic_fetch_add(&pr->sent[ring], 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Runs one phase: producers go, the calling thread waits for every ring's
 * completion counter to reach what was sent. Times it when t != NULL. */
static int run_phase(struct marrow_proxy *px, const struct marrow_proxy_rate_params *p, uint64_t messages,
		     uint64_t *sent, uint64_t *elapsed)
{
	const uint32_t P = p->producers, R = px->cfg.rings;
	struct producer *prs = calloc(P, sizeof(*prs));
	pthread_t *tids = calloc(P, sizeof(*tids));
	uint32_t start = 0, created = 0;
	uint64_t t0 = 0, t1;
	int rc = MARROW_OK;

	if (prs == NULL || tids == NULL) {
		free(prs);
		free(tids);
		return marrow_fail(MARROW_ENOMEM, "marrow_proxy_cpu_rate: out of memory");
	}
	for (uint32_t i = 0; i < P; i++) {
		prs[i] = (struct producer){ .px = px, .msg_size = p->msg_size, .messages = messages,
					    .timeout_ns = p->timeout_ns, .start = &start, .sent = sent };
		if (P <= R) {      /* producer i owns rings i, i + P, ... */
			prs[i].first_ring = i;
			prs[i].stride = P;
			prs[i].nrings = (R - i + P - 1) / P;
		} else {           /* more producers than rings (baseline): share ring i % R */
			prs[i].first_ring = i % R;
			prs[i].stride = R;
			prs[i].nrings = 1;
		}
		if (pthread_create(&tids[i], NULL, producer_main, &prs[i]) != 0) {
			rc = marrow_fail(MARROW_ENOMEM, "marrow_proxy_cpu_rate: cannot create producer %u", i);
			break;
		}
		created++;
	}
	if (elapsed)
		marrow_proxy_mark(px, 0);
	t0 = px_now_ns();
	__atomic_store_n(&start, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < created; i++)
		pthread_join(tids[i], NULL);
	for (uint32_t i = 0; i < created && rc == MARROW_OK; i++)
		if (prs[i].rc != MARROW_OK)
			rc = marrow_fail(prs[i].rc, "producer %u: %s", i, prs[i].err);
	/* Every ring's completion counter must catch up with what was sent. */
	for (uint32_t r = 0; r < R && rc == MARROW_OK; r++)
		rc = px_wait_cpl(px, r, __atomic_load_n(&sent[r], __ATOMIC_ACQUIRE), p->timeout_ns);
	t1 = px_now_ns();
	if (elapsed) {
		marrow_proxy_mark(px, 1);
		*elapsed = t1 - t0;
	}
	free(prs);
	free(tids);
	return rc;
}

MARROW_API int marrow_proxy_cpu_rate(struct marrow_proxy *px, const struct marrow_proxy_rate_params *p,
				     struct marrow_proxy_rate_result *res)
{
	const uint32_t R = px ? px->cfg.rings : 0;
	uint64_t need, half, *sent, done = 0;
	uint8_t *b;
	int rc;

	if (px == NULL || p == NULL || res == NULL || p->size < sizeof(*p) || res->size < sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cpu_rate: bad arguments");
	if (!px->running)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cpu_rate: workers are not running");
	if ((rc = px_check_rate_params(p)) != MARROW_OK)
		return rc;
	if (px->cfg.handoff == MARROW_PROXY_TUNED && p->producers > R)
		return marrow_fail(MARROW_EINVAL, "tuned handoff needs one producer per ring: producers %u > rings %u",
				   p->producers, R);
	marrow_proxy_buffer_bytes(R, px->cfg.log_slots, p->msg_size, &need);
	if (px->mem.len < need)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cpu_rate: buffer %llu bytes < %llu needed",
				   (unsigned long long)px->mem.len, (unsigned long long)need);
	half = half_of(px);
	b = buf(px);
	/* Source windows get a per-(ring, slot) pattern, destinations are cleared. */
	for (uint32_t r = 0; r < R; r++) {
		for (uint64_t j = 0; j < px->slots; j++) {
			uint32_t s = src_off(px, r, j, p->msg_size);

			for (uint32_t o = 0; o < p->msg_size; o += 8) {
				uint64_t v = pattern(r, j) + o;

				memcpy(b + s + o, &v, 8);
			}
			memset(b + half + s, 0, p->msg_size);
		}
	}
	sent = calloc(R, sizeof(*sent));
	if (sent == NULL)
		return marrow_fail(MARROW_ENOMEM, "marrow_proxy_cpu_rate: out of memory");
	/* Counters continue from earlier runs on the same proxy. */
	for (uint32_t r = 0; r < R; r++) {
		sent[r] = px_ld_acq(px->rings[r].cpl_target);
		px->rings[r].full_waits = 0;
		px->rings[r].refreshes = 0;
	}
	rc = p->warmup ? run_phase(px, p, p->warmup, sent, NULL) : MARROW_OK;
	for (uint32_t r = 0; r < R; r++) {
		done += sent[r];
		px->rings[r].full_waits = 0;
		px->rings[r].refreshes = 0;
	}
	memset(res, 0, sizeof(*res));
	res->size = sizeof(*res);
	if (rc == MARROW_OK)
		rc = run_phase(px, p, p->messages, sent, &res->elapsed_ns);
	for (uint32_t r = 0; r < R; r++) {
		res->messages += sent[r];
		res->ring_full_waits += px->rings[r].full_waits;
		res->cache_refreshes += px->rings[r].refreshes;
	}
	res->messages -= done;
	free(sent);
	if (rc != MARROW_OK)
		return rc;
	/* Right bytes at the right offsets: every destination slot holds its
	 * source pattern; slots beyond those every phase reaches may stay zero.
	 * Destinations in another process (two-process mode) are not readable
	 * here: its responder checks its inbox instead (docs/design/two-process.md §9). */
	if (!px->remote_dst) {
		uint32_t nr_max = p->producers <= R ? (R + p->producers - 1) / p->producers : 1;
		uint64_t most = p->warmup > p->messages ? p->warmup : p->messages;
		uint64_t sure = most / nr_max < px->slots ? most / nr_max : px->slots;
		static const uint8_t zero[64];

		for (uint32_t r = 0; r < R; r++) {
			for (uint64_t j = 0; j < px->slots; j++) {
				uint32_t s = src_off(px, r, j, p->msg_size);
				const uint8_t *d = b + half + s;

				if (memcmp(b + s, d, p->msg_size) == 0)
					continue;
				if (j < sure || memcmp(d, zero, p->msg_size < 64 ? p->msg_size : 64) != 0)
					res->verify_errors++;
			}
		}
	}
	return res->verify_errors ? marrow_fail(MARROW_EIO, "rate run: %llu destination slots hold wrong bytes",
						(unsigned long long)res->verify_errors)
				  : MARROW_OK;
}
