/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy object: configuration checks, the ring arena (page-aligned
 * host memory a GPU can register), worker start/stop and teardown order
 * (workers joined -> backend queues released -> arena freed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy_internal.h"

/* As in emu_device.c: a static link (a ctest executable using only the
 * proxy) pulls the archive member holding the ABI table only when something
 * references it before libmarrow_common is scanned. */
static const void *const px_abi_anchor __attribute__((used)) = marrow_abi_table;

MARROW_API int marrow_proxy_config_check(const struct marrow_proxy_config *c)
{
	/* The limits of marrow_proxy.h, checked here only: Java shows this message as the usage error.
	 * Printed signed, so that a negative command-line value reads as what was typed. */
	if (c == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_config_check: NULL config");
	if (c->size < sizeof(*c))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_config: struct size %u < %zu", c->size, sizeof(*c));
	if (c->workers < 1 || c->workers > MARROW_PROXY_MAX_WORKERS)
		return marrow_fail(MARROW_EINVAL, "workers %d must be 1..%d", (int)c->workers, MARROW_PROXY_MAX_WORKERS);
	if (c->rings < c->workers || c->rings > MARROW_PROXY_MAX_RINGS)
		return marrow_fail(MARROW_EINVAL, "rings %d must be >= workers (%d) and <= %d (each worker owns a ring)",
				   (int)c->rings, (int)c->workers, MARROW_PROXY_MAX_RINGS);
	if (c->log_slots < 1 || c->log_slots > MPR_MAX_LOG_SLOTS)
		return marrow_fail(MARROW_EINVAL, "log-slots %d must be 1..%d", (int)c->log_slots, MPR_MAX_LOG_SLOTS);
	if (c->batch < 1 || c->batch > MARROW_PROXY_MAX_BATCH)
		return marrow_fail(MARROW_EINVAL, "batch %d must be 1..%d", (int)c->batch, MARROW_PROXY_MAX_BATCH);
	if (c->handoff > MARROW_PROXY_TUNED)
		return marrow_fail(MARROW_EINVAL, "handoff %u must be 0 (baseline) or 1 (tuned)", c->handoff);
	return MARROW_OK;
}

static int check_config(const struct marrow_proxy_config *c, const struct marrow_proxy_memory *m)
{
	int rc;

	if (c == NULL || m == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_create: NULL argument");
	if (m->size < sizeof(*m))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_create: struct size mismatch (memory %u)", m->size);
	rc = marrow_proxy_config_check(c);
	if (rc != MARROW_OK)
		return rc;
	if (m->base == 0 || m->len == 0 || m->len > 0xffffffffull)
		return marrow_fail(MARROW_EINVAL, "buffer must be non-empty and at most 4 GiB (offsets are 32-bit)");
	return MARROW_OK;
}

MARROW_API int marrow_proxy_create(const struct marrow_proxy_config *cfg, const struct marrow_proxy_memory *mem,
				   struct marrow_proxy **out)
{
	struct marrow_proxy *px;
	int rc = check_config(cfg, mem);

	if (rc != MARROW_OK)
		return rc;
	if (out == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_create: NULL out");
	px = calloc(1, sizeof(*px));
	if (px == NULL)
		return marrow_fail(MARROW_ENOMEM, "marrow_proxy_create: out of memory");
	px->cfg = *cfg;
	px->cfg.size = sizeof(px->cfg);
	px->mem = *mem;
	px->slots = 1u << cfg->log_slots;
	px->arena_bytes = mpr_arena_bytes(cfg->rings, cfg->log_slots);
	/* Zeroed: every slot reads "empty" for lap 0 (proxy_ring.h). */
	if (posix_memalign(&px->arena, 4096, px->arena_bytes) != 0) {
		uint64_t bytes = px->arena_bytes;

		free(px);
		return marrow_fail(MARROW_ENOMEM, "marrow_proxy_create: cannot allocate %llu bytes of rings",
				   (unsigned long long)bytes);
	}
	memset(px->arena, 0, px->arena_bytes);
	px->rings = calloc(cfg->rings, sizeof(*px->rings));
	px->workers = calloc(cfg->workers, sizeof(*px->workers));
	if (px->rings == NULL || px->workers == NULL) {
		free(px->rings);
		free(px->workers);
		free(px->arena);
		free(px);
		return marrow_fail(MARROW_ENOMEM, "marrow_proxy_create: out of memory");
	}
	for (uint32_t r = 0; r < cfg->rings; r++) {
		px->rings[r].ctl = mpr_ctl_of(px->arena, r);
		px->rings[r].slots = mpr_slots_of(px->arena, cfg->rings, cfg->log_slots, r);
		px->rings[r].cpl_target = &px->rings[r].ctl->cpl;
	}
	for (uint32_t w = 0; w < cfg->workers; w++) {
		px->workers[w].px = px;
		px->workers[w].index = w;
		px->workers[w].cpu_req = cfg->cpus[w];
		px->workers[w].st.size = sizeof(px->workers[w].st);
		px->workers[w].st.cpu = -1;
	}
	*out = px;
	return MARROW_OK;
}

MARROW_API int marrow_proxy_attach_softnic(struct marrow_proxy *px, uint32_t worker,
					   const struct marrow_proxy_softnic_qp *qp)
{
	struct px_worker *w;
	void *be;
	uint32_t depth;
	int rc;

	if (px == NULL || worker >= px->cfg.workers)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_softnic: no worker %u", worker);
	if (px->running)
		return marrow_fail(MARROW_EBUSY, "marrow_proxy_attach_softnic: workers are running");
	if (px->backend == MARROW_PROXY_BACKEND_VERBS)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_softnic: proxy already uses verbs");
	w = &px->workers[worker];
	if (w->be != NULL)
		return marrow_fail(MARROW_EBUSY, "marrow_proxy_attach_softnic: worker %u already has a QP", worker);
	rc = px_softnic_create(qp, &px->mem, &be, &depth);
	if (rc != MARROW_OK)
		return rc;
	rc = px_worker_setup(w, &px_softnic_ops, be, depth);
	if (rc != MARROW_OK) {
		px_softnic_ops.destroy(be);
		w->be = NULL;
		return rc;
	}
	px->backend = MARROW_PROXY_BACKEND_SOFTNIC;
	if (qp->remote_len != 0)
		px->remote_dst = 1;
	return MARROW_OK;
}

MARROW_API int marrow_proxy_attach_verbs(struct marrow_proxy *px, const char *device, char *chosen,
					 uint32_t chosen_len)
{
	return marrow_proxy_attach_verbs_sq(px, device, PX_VERBS_LOG_SQ_DEFAULT, chosen, chosen_len, NULL,
					    NULL);
}

MARROW_API int marrow_proxy_attach_verbs_sq(struct marrow_proxy *px, const char *device, uint32_t log_sq,
					    char *chosen, uint32_t chosen_len, uint32_t *send_wr,
					    uint32_t *send_wr_granted)
{
	if (px == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_verbs: NULL proxy");
	if (px->running)
		return marrow_fail(MARROW_EBUSY, "marrow_proxy_attach_verbs: workers are running");
	if (px->backend != MARROW_PROXY_BACKEND_NONE)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_verbs: proxy already has a backend");
	if (marrow_check_log_sq(log_sq) != MARROW_OK)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_verbs: log_sq %u out of range %d..%d",
				   log_sq, MARROW_LOG_SQ_MIN, MARROW_LOG_SQ_MAX);
	if (px_verbs_send_wr(log_sq) == 0)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_attach_verbs: an SQ of 2^%u WQEBBs cannot hold one "
				   "WRITE of %u WQEBBs (%d B inline)", log_sq,
				   mx_max_wqebbs_per_write(PX_VERBS_INLINE), PX_VERBS_INLINE);
	return px_verbs_attach(px, device, log_sq, chosen, chosen_len, send_wr, send_wr_granted, 1);
}

MARROW_API int marrow_proxy_attach_verbs_peer(struct marrow_proxy *px, const char *device, uint32_t log_sq,
					      char *chosen, uint32_t chosen_len, uint32_t *send_wr,
					      uint32_t *send_wr_granted)
{
	static const char fn[] = "marrow_proxy_attach_verbs_peer";

	if (px == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: NULL proxy", fn);
	if (px->running)
		return marrow_fail(MARROW_EBUSY, "%s: workers are running", fn);
	if (px->backend != MARROW_PROXY_BACKEND_NONE)
		return marrow_fail(MARROW_EINVAL, "%s: proxy already has a backend", fn);
	if (marrow_check_log_sq(log_sq) != MARROW_OK || px_verbs_send_wr(log_sq) == 0)
		return marrow_fail(MARROW_EINVAL, "%s: log_sq %u out of range %d..%d or too small for one WRITE", fn,
				   log_sq, MARROW_LOG_SQ_MIN, MARROW_LOG_SQ_MAX);
	return px_verbs_attach(px, device, log_sq, chosen, chosen_len, send_wr, send_wr_granted, 0);
}

static int verbs_peer_check(const struct marrow_proxy *px, uint32_t worker, const void *arg, const char *fn)
{
	if (px == NULL || arg == NULL)
		return marrow_fail(MARROW_EINVAL, "%s: NULL argument", fn);
	if (px->backend != MARROW_PROXY_BACKEND_VERBS || !px->verbs_peer)
		return marrow_fail(MARROW_EINVAL, "%s: the proxy has no verbs QPs for a peer "
				   "(marrow_proxy_attach_verbs_peer first)", fn);
	if (worker >= px->cfg.workers)
		return marrow_fail(MARROW_EINVAL, "%s: no worker %u (%u workers)", fn, worker, px->cfg.workers);
	if (px->running)
		return marrow_fail(MARROW_EBUSY, "%s: workers are running", fn);
	return MARROW_OK;
}

MARROW_API int marrow_proxy_verbs_local(struct marrow_proxy *px, uint32_t worker, struct marrow_mlx5_peer_info *out)
{
	int rc = verbs_peer_check(px, worker, out, "marrow_proxy_verbs_local");

	return rc != MARROW_OK ? rc : px_verbs_local(px, worker, out);
}

MARROW_API int marrow_proxy_verbs_connect(struct marrow_proxy *px, uint32_t worker,
					  const struct marrow_mlx5_peer_info *peer)
{
	static const char fn[] = "marrow_proxy_verbs_connect";
	int rc = verbs_peer_check(px, worker, peer, fn);

	if (rc != MARROW_OK)
		return rc;
	if (peer->size < sizeof(*peer) || peer->rkey == 0 || peer->addr == 0 || peer->len < px->mem.len)
		return marrow_fail(MARROW_EINVAL, "%s: the peer's buffer (addr 0x%llx, %llu bytes, rkey 0x%x) must be "
				   "registered and cover this side's %llu bytes (remote offsets range over it)", fn,
				   (unsigned long long)peer->addr, (unsigned long long)peer->len, peer->rkey,
				   (unsigned long long)px->mem.len);
	rc = px_verbs_connect(px, worker, peer);
	if (rc == MARROW_OK)
		px->remote_dst = 1;
	return rc;
}

MARROW_API int marrow_proxy_verbs_probe(const char *device, char *chosen, uint32_t chosen_len)
{
	return px_verbs_probe(device, chosen, chosen_len);
}

MARROW_API int marrow_proxy_set_cpl_target(struct marrow_proxy *px, uint32_t ring, uint64_t *target)
{
	if (px == NULL || ring >= px->cfg.rings)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_set_cpl_target: no ring %u", ring);
	if (px->running)
		return marrow_fail(MARROW_EBUSY, "marrow_proxy_set_cpl_target: workers are running");
	px->rings[ring].cpl_target = target ? target : &px->rings[ring].ctl->cpl;
	px->rings[ring].cpl_flush = target != NULL;
	/* The new counter starts at what the worker has counted for this ring. */
	{
		const struct px_worker *w = &px->workers[ring % px->cfg.workers];

		*px->rings[ring].cpl_target = w->cpl ? w->cpl[ring / px->cfg.workers] : 0;
	}
	return MARROW_OK;
}

MARROW_API int marrow_proxy_set_cpus(struct marrow_proxy *px, const int32_t *cpus, uint32_t n)
{
	if (px == NULL || (cpus == NULL && n > 0))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_set_cpus: NULL argument");
	if (px->running)
		return marrow_fail(MARROW_EBUSY, "marrow_proxy_set_cpus: workers are running");
	for (uint32_t w = 0; w < px->cfg.workers; w++)
		px->workers[w].cpu_req = w < n ? cpus[w] : -1;
	return MARROW_OK;
}

MARROW_API int marrow_proxy_start(struct marrow_proxy *px)
{
	if (px == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_start: NULL proxy");
	if (px->running)
		return marrow_fail(MARROW_EBUSY, "marrow_proxy_start: already running");
	for (uint32_t w = 0; w < px->cfg.workers; w++)
		if (px->workers[w].be == NULL)
			return marrow_fail(MARROW_EINVAL, "marrow_proxy_start: worker %u has no QP (attach a backend first)", w);
	for (uint32_t w = 0; w < px->cfg.workers; w++) {
		struct px_worker *wk = &px->workers[w];
		int e;

		wk->stop = 0;
		wk->st.error = 0;
		e = pthread_create(&wk->tid, NULL, px_worker_main, wk);
		if (e != 0) {
			marrow_proxy_stop(px);
			return marrow_fail(MARROW_ENOMEM, "marrow_proxy_start: cannot start worker %u (errno %d)", w, e);
		}
		wk->started = 1;
		px->running = 1;
	}
	/* Return once every worker is past pinning, so callers see its state. */
	for (uint64_t end = px_now_ns() + 5000000000ull; px_now_ns() < end;) {
		uint32_t ready = 0;

		for (uint32_t w = 0; w < px->cfg.workers; w++)
			ready += __atomic_load_n(&px->workers[w].st.state, __ATOMIC_ACQUIRE) != MPR_WORKER_IDLE;
		if (ready == px->cfg.workers)
			break;
		sched_yield();
	}
	for (uint32_t w = 0; w < px->cfg.workers; w++) {
		if (__atomic_load_n(&px->workers[w].st.state, __ATOMIC_ACQUIRE) == MPR_WORKER_FAILED) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s", px->workers[w].errmsg);
			marrow_proxy_stop(px);
			return marrow_fail(px->workers[w].st.error, "worker %u failed to start: %s", w, msg);
		}
	}
	return MARROW_OK;
}

MARROW_API int marrow_proxy_stop(struct marrow_proxy *px)
{
	if (px == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_stop: NULL proxy");
	marrow_proxy_responder_stop(px);
	for (uint32_t w = 0; w < px->cfg.workers; w++)
		__atomic_store_n(&px->workers[w].stop, 1, __ATOMIC_RELEASE);
	for (uint32_t w = 0; w < px->cfg.workers; w++) {
		if (px->workers[w].started) {
			pthread_join(px->workers[w].tid, NULL);
			px->workers[w].started = 0;
		}
	}
	px->running = 0;
	return MARROW_OK;
}

MARROW_API int marrow_proxy_destroy(struct marrow_proxy *px)
{
	if (px == NULL)
		return MARROW_OK;
	marrow_proxy_stop(px);
	for (uint32_t w = 0; w < px->cfg.workers; w++) {
		struct px_worker *wk = &px->workers[w];

		if (wk->be != NULL && wk->ops != NULL)
			wk->ops->destroy(wk->be);
		free(wk->rings);
		free(wk->tails);
		free(wk->cpl);
		free(wk->wqe_ring);
		free(wk->batch);
	}
	/* verbs: QPs were destroyed above; CQs, MR, PD and context go now. */
	px_verbs_release(px);
	free(px->workers);
	free(px->rings);
	free(px->arena);
	free(px);
	return MARROW_OK;
}

MARROW_API int marrow_proxy_arena(struct marrow_proxy *px, void **base, uint64_t *bytes)
{
	if (px == NULL || base == NULL || bytes == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_arena: NULL argument");
	*base = px->arena;
	*bytes = px->arena_bytes;
	return MARROW_OK;
}

MARROW_API int marrow_proxy_worker_stats(struct marrow_proxy *px, uint32_t worker,
					 struct marrow_proxy_worker_stats *out)
{
	const struct marrow_proxy_worker_stats *s;

	if (px == NULL || out == NULL || worker >= px->cfg.workers)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_worker_stats: no worker %u", worker);
	if (out->size < sizeof(*out))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_worker_stats: out->size %u < %zu", out->size, sizeof(*out));
	s = &px->workers[worker].st;
	out->cpu = __atomic_load_n(&s->cpu, __ATOMIC_RELAXED);
	out->state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	out->requests = __atomic_load_n(&s->requests, __ATOMIC_RELAXED);
	out->chains = __atomic_load_n(&s->chains, __ATOMIC_RELAXED);
	out->polls = __atomic_load_n(&s->polls, __ATOMIC_RELAXED);
	out->empty_polls = __atomic_load_n(&s->empty_polls, __ATOMIC_RELAXED);
	out->cqes = __atomic_load_n(&s->cqes, __ATOMIC_RELAXED);
	out->sq_full = __atomic_load_n(&s->sq_full, __ATOMIC_RELAXED);
	out->freq_before_khz = s->freq_before_khz;
	out->freq_after_khz = s->freq_after_khz;
	out->error = __atomic_load_n(&s->error, __ATOMIC_ACQUIRE);
	/* A failed worker is reported through out->error; its reason is left
	 * readable with marrow_last_error() for the caller's message. */
	if (out->error != 0)
		(void)marrow_fail(out->error, "worker %u failed: %s", worker, px->workers[worker].errmsg);
	return MARROW_OK;
}

MARROW_API int marrow_proxy_mark(struct marrow_proxy *px, int end)
{
	if (px == NULL || (end != 0 && end != 1))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_mark: bad argument");
	for (uint32_t w = 0; w < px->cfg.workers; w++) {
		struct px_worker *wk = &px->workers[w];
		struct marrow_proxy_worker_stats *m = &wk->mark[end];
		uint64_t khz;

		m->size = sizeof(*m);
		marrow_proxy_worker_stats(px, w, m);
		khz = px_cpu_freq_khz(m->cpu);
		if (end)
			wk->st.freq_after_khz = khz;
		else
			wk->st.freq_before_khz = khz;
	}
	return MARROW_OK;
}

MARROW_API int marrow_proxy_worker_window(struct marrow_proxy *px, uint32_t worker,
					  struct marrow_proxy_worker_stats *out)
{
	const struct marrow_proxy_worker_stats *a, *b;
	int rc = marrow_proxy_worker_stats(px, worker, out);

	if (rc != MARROW_OK)
		return rc;
	a = &px->workers[worker].mark[0];
	b = &px->workers[worker].mark[1];
	out->requests = b->requests - a->requests;
	out->chains = b->chains - a->chains;
	out->polls = b->polls - a->polls;
	out->empty_polls = b->empty_polls - a->empty_polls;
	out->cqes = b->cqes - a->cqes;
	out->sq_full = b->sq_full - a->sq_full;
	return MARROW_OK;
}

MARROW_API int marrow_proxy_precondition(struct marrow_proxy *px, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	if (px == NULL || !px->running)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_precondition: workers are not running");
	/* The workers spin on their rings the whole time: this is their warm-up. */
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	return MARROW_OK;
}
