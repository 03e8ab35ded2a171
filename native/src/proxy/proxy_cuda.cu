/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * mini-proxy GPU producers (libmarrow_cuda.so), host side: maps the
 * proxy's rings into the GPU, sets up the completion counters, launches the
 * kernels of proxy_cuda_kernels.cu and converts their samples. GPU threads
 * publish descriptors into the proxy's rings, which live in pinned host
 * memory mapped into the GPU (cudaHostRegister); the CPU workers of
 * libmarrow_host.so drain them. The two handoffs, on the GPU:
 *
 * baseline: atomicAdd on a head counter in device memory reserves the slot;
 *   the worker's progress (tail) is read from host memory over PCIe on every
 *   enqueue; w0 is stored, then w1 with the validity bit by a system-scope
 *   release store (st.release.sys: orders everything before it).
 *   Completion: the ring's counter in host memory, polled over PCIe.
 * tuned: one thread per ring keeps head in a register and a cached tail,
 *   reloaded only when the ring looks full; publication is one relaxed
 *   16-byte system-scope store (the payload was written before the kernel,
 *   so no earlier GPU store needs ordering). Completion: a counter in GPU
 *   memory that the worker writes through a GDRCopy mapping when libgdrapi
 *   can be dlopened and pins memory (cuda/gdrcopy.c); else a separate
 *   mapped pinned counter (recorded in cpl_kind / note).
 *
 * Every device wait is bounded by timeout_ns of %globaltimer and reports
 * where it stopped; the host bounds the kernel with a deadline too
 * (marrow_cuda_wait_event).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "common/marrow_common.h"
#include "common/marrow_dump.h"
#include "cuda/cuda_host.h"
#include "cuda/gdrcopy.h"
#include "marrow/marrow_proxy.h"
#include "marrow/proxy_ring.h"
#include "proxy/proxy_params_check.h"
#include "proxy/proxy_cuda.cuh"

/* ---- host side --------------------------------------------------------------------- */

struct marrow_proxy_cuda_ctx {
	int gpu;
	dev_rings d;
	void *arena;
	void *buffer;
	uint64_t buffer_len;
	uint32_t cpl_kind;
	void *cpl_alloc;                 /* cudaMalloc (GDR) or cudaHostAlloc (mapped) */
	uint64_t *cpl_host;              /* what the CPU writes */
	struct marrow_gdr g;             /* g.host != NULL: counters in GPU memory via GDRCopy */
	dev_status *st;                  /* mapped pinned */
	uint64_t **targets;
	int sm_khz;
	uint64_t next_value;             /* latency values never repeat across calls */
	char note[160];
};

#define CU(call, what)                                         \
	do {                                                   \
		cudaError_t e_ = (call);                       \
		if (e_ != cudaSuccess) {                       \
			rc = marrow_cuda_fail(e_, "%s", what); \
			goto fail;                             \
		}                                              \
	} while (0)

/* Tuned completion counters in GPU memory, written by the CPU through a
 * GDRCopy mapping; -1 with the reason in note when that is not possible. */
static int try_gdr(marrow_proxy_cuda_ctx *c, size_t bytes, char *note, size_t nlen)
{
	const size_t page = MARROW_GDR_GPU_PAGE;
	size_t pinned = (bytes + page - 1) & ~(page - 1);
	void *raw = NULL, *map = NULL;
	uintptr_t aligned;

	if (marrow_gdr_open(&c->g, note, nlen) != 0)
		return -1;
	if (cudaMalloc(&raw, pinned + page) != cudaSuccess) {
		(void)cudaGetLastError();
		snprintf(note, nlen, "GDRCopy not used: cudaMalloc failed");
		return -1;
	}
	cudaMemset(raw, 0, pinned + page);
	aligned = ((uintptr_t)raw + page - 1) & ~(uintptr_t)(page - 1);
	if (marrow_gdr_pin_map(&c->g, aligned, pinned, &map, note, nlen) != 0) {
		cudaFree(raw);
		return -1;
	}
	c->cpl_alloc = raw;
	c->cpl_host = (uint64_t *)map;        /* pinned at offset 0 of a GPU page: no info offset */
	c->d.cpl = (uint64_t *)aligned;
	snprintf(note, nlen, "tuned completion counter in GPU memory, written by the CPU through GDRCopy");
	return 0;
}

static void gdr_release(marrow_proxy_cuda_ctx *c)
{
	if (c->g.host) {
		marrow_gdr_unmap(&c->g);
		cudaFree(c->cpl_alloc);
		c->cpl_alloc = NULL;
	}
	marrow_gdr_close(&c->g);
}

extern "C" MARROW_API int marrow_proxy_cuda_close(struct marrow_proxy_cuda_ctx *c)
{
	if (c == NULL)
		return MARROW_OK;
	cudaSetDevice(c->gpu);
	/* Nothing may run on the GPU while mappings go away. */
	cudaDeviceSynchronize();
	gdr_release(c);
	if (c->cpl_kind == MARROW_PROXY_CPL_MAPPED_PINNED && c->cpl_alloc)
		cudaFreeHost(c->cpl_alloc);
	if (c->st)
		cudaFreeHost(c->st);
	cudaFree(c->d.head);
	cudaFree(c->d.prod);
	cudaFree(c->d.cpl_expect);
	if (c->buffer)
		cudaHostUnregister(c->buffer);
	if (c->arena)
		cudaHostUnregister(c->arena);
	(void)cudaGetLastError();
	free(c->targets);
	free(c);
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_proxy_cuda_open(const struct marrow_proxy_cuda_open_args *a,
						 struct marrow_proxy_cuda_ctx **out, uint64_t **cpl_targets,
						 struct marrow_proxy_cuda_info *info)
{
	marrow_proxy_cuda_ctx *c;
	void *p = NULL;
	int rc = MARROW_OK;
	int n = 0;

	if (a == NULL || out == NULL || info == NULL || a->size < sizeof(*a) || info->size < sizeof(*info))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cuda_open: bad arguments");
	if (a->arena == NULL || a->buffer == NULL || a->rings == 0 || a->handoff > MARROW_PROXY_TUNED)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cuda_open: arena, buffer and rings required");
	if (cudaGetDeviceCount(&n) != cudaSuccess || n <= a->gpu || a->gpu < 0) {
		(void)cudaGetLastError();
		return marrow_fail(MARROW_ENODEV, "marrow_proxy_cuda_open: no CUDA device %d (%d visible)", a->gpu, n);
	}
	c = (marrow_proxy_cuda_ctx *)calloc(1, sizeof(*c));
	if (c == NULL)
		return marrow_fail(MARROW_ENOMEM, "marrow_proxy_cuda_open: out of memory");
	memset(info->note, 0, sizeof(info->note));
	c->gpu = a->gpu;
	c->d.rings = a->rings;
	c->d.log_slots = a->log_slots;
	c->d.handoff = a->handoff;
	c->d.half = (uint32_t)((a->buffer_len / 2) & ~63ull);
	c->buffer_len = a->buffer_len;
	CU(cudaSetDevice(a->gpu), "cudaSetDevice");
	CU(cudaHostRegister(a->arena, a->arena_bytes, cudaHostRegisterMapped | cudaHostRegisterPortable),
	   "cudaHostRegister(rings)");
	c->arena = a->arena;
	CU(cudaHostGetDevicePointer(&p, a->arena, 0), "cudaHostGetDevicePointer(rings)");
	c->d.arena = (uint8_t *)p;
	CU(cudaHostRegister(a->buffer, a->buffer_len, cudaHostRegisterMapped | cudaHostRegisterPortable),
	   "cudaHostRegister(buffer)");
	c->buffer = a->buffer;
	CU(cudaHostGetDevicePointer(&p, a->buffer, 0), "cudaHostGetDevicePointer(buffer)");
	c->d.buf = (uint8_t *)p;
	CU(cudaMalloc(&c->d.head, a->rings * sizeof(unsigned long long)), "cudaMalloc(head)");
	CU(cudaMemset(c->d.head, 0, a->rings * sizeof(unsigned long long)), "cudaMemset");
	CU(cudaMalloc(&c->d.prod, 2 * a->rings * sizeof(uint64_t)), "cudaMalloc(prod)");
	CU(cudaMemset(c->d.prod, 0, 2 * a->rings * sizeof(uint64_t)), "cudaMemset");
	CU(cudaMalloc(&c->d.cpl_expect, a->rings * sizeof(uint64_t)), "cudaMalloc(expect)");
	CU(cudaHostAlloc((void **)&c->st, sizeof(dev_status), cudaHostAllocMapped), "cudaHostAlloc(status)");
	c->targets = (uint64_t **)calloc(a->rings, sizeof(uint64_t *));
	if (c->targets == NULL) {
		rc = marrow_fail(MARROW_ENOMEM, "marrow_proxy_cuda_open: out of memory");
		goto fail;
	}
	c->cpl_kind = MARROW_PROXY_CPL_HOST;
	if (a->handoff == MARROW_PROXY_TUNED) {
		size_t bytes = (size_t)a->rings * 64;

		if (!a->use_gdrcopy || try_gdr(c, bytes, info->note, sizeof(info->note)) != 0) {
			if (!a->use_gdrcopy)
				snprintf(info->note, sizeof(info->note), "GDRCopy disabled by the caller; tuned completion counter in mapped pinned host memory");
			gdr_release(c);
			CU(cudaHostAlloc(&c->cpl_alloc, bytes, cudaHostAllocMapped), "cudaHostAlloc(counters)");
			memset(c->cpl_alloc, 0, bytes);
			c->cpl_host = (uint64_t *)c->cpl_alloc;
			CU(cudaHostGetDevicePointer(&p, c->cpl_alloc, 0), "cudaHostGetDevicePointer(counters)");
			c->d.cpl = (uint64_t *)p;
			c->cpl_kind = MARROW_PROXY_CPL_MAPPED_PINNED;
		} else {
			c->cpl_kind = MARROW_PROXY_CPL_GDRCOPY;
		}
		for (uint32_t r = 0; r < a->rings; r++)
			c->targets[r] = c->cpl_host + (uint64_t)r * 8;
	} else {
		snprintf(info->note, sizeof(info->note), "baseline completion counter in pinned host memory (the ring arena)");
	}
	if (cpl_targets)
		for (uint32_t r = 0; r < a->rings; r++)
			cpl_targets[r] = c->targets[r];
	info->cpl_kind = c->cpl_kind;
	memcpy(c->note, info->note, sizeof(c->note));
	*out = c;
	return MARROW_OK;
fail:
	marrow_proxy_cuda_close(c);
	return rc;
}

/* Runs a launched kernel to completion within a host deadline, then reports
 * the first device-side wait that gave up. */
static int finish(marrow_proxy_cuda_ctx *c, cudaEvent_t ev, uint64_t timeout_ns, const char *what)
{
	uint64_t bound = marrow_sat_add(marrow_sat_mul(2, timeout_ns), 10000000000ull);
	int rc = marrow_cuda_wait_event(ev, bound, what, NULL);

	if (rc != MARROW_OK)
		return rc;
	if (c->st->code) {
		static const char *names[] = { "", "a free ring slot", "a completion", "PE 1's reply" };
		int code = c->st->code;

		static const char *keys[] = { "unknown", "free_slot", "completion", "reply" };
		struct marrow_dump d;

		marrow_fail(MARROW_ETIMEDOUT,
			    "%s: GPU producer timed out waiting for %s on ring %u (position/want %llu, seen %llu); "
			    "is the ring's worker running?",
			    what, names[code > 0 && code < 4 ? code : 0], c->st->ring,
			    (unsigned long long)c->st->pos, (unsigned long long)c->st->seen);
		/* The watchdog dump (docs/design/watchdog.md): what the device wait saw. */
		marrow_dump_init(&d);
		marrow_dump_kv(&d, "waited_for", "%s", keys[code > 0 && code < 4 ? code : 0]);
		marrow_dump_kv(&d, "bound_ms", "%llu", (unsigned long long)(timeout_ns / 1000000u));
		marrow_dump_kv(&d, "ring", "%u", c->st->ring);
		marrow_dump_kv(&d, "position", "%llu", (unsigned long long)c->st->pos);
		marrow_dump_kv(&d, "seen", "%llu", (unsigned long long)c->st->seen);
		return marrow_fail_dump(MARROW_ETIMEDOUT, &d);
	}
	return MARROW_OK;
}

extern "C" MARROW_API int marrow_proxy_cuda_latency(struct marrow_proxy_cuda_ctx *c,
						    const struct marrow_proxy_latency_params *p,
						    uint64_t *issue_ns, uint64_t *putc_ns, uint64_t *rtt_ns)
{
	uint64_t total, *calib = NULL, hcal[4];
	long long *cycles = NULL, *hc = NULL;
	cudaEvent_t ev = NULL;
	int rc = MARROW_OK;

	if (c == NULL)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cuda_latency: bad arguments");
	if ((rc = px_check_latency_params(p, 1)) != MARROW_OK)
		return rc;
	if (rtt_ns && c->d.rings < 2)
		return marrow_fail(MARROW_EINVAL, "round trips need rings >= 2 (ring 1 carries PE 1's replies)");
	total = (uint64_t)p->warmup + p->iters;
	if (MARROW_PROXY_AREA_LAT + total * 8 > c->d.half)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cuda_latency: buffer too small: each PE half needs %llu bytes",
				   (unsigned long long)(MARROW_PROXY_AREA_LAT + total * 8));
	CU(cudaSetDevice(c->gpu), "cudaSetDevice");
	CU(cudaMalloc(&cycles, 3 * p->iters * sizeof(long long)), "cudaMalloc(samples)");
	CU(cudaMemset(cycles, 0, 3 * p->iters * sizeof(long long)), "cudaMemset");
	CU(cudaMalloc(&calib, 4 * sizeof(uint64_t)), "cudaMalloc(calib)");
	CU(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate");
	hc = (long long *)malloc(3 * p->iters * sizeof(long long));
	if (hc == NULL) {
		rc = marrow_fail(MARROW_ENOMEM, "marrow_proxy_cuda_latency: out of memory");
		goto fail;
	}
	for (int phase = 0; phase < 2; phase++) {
		lat_args la;
		uint64_t first, flag0;
		uint8_t *b = (uint8_t *)c->buffer;

		if (phase == 0 && !issue_ns && !putc_ns)
			continue;
		if (phase == 1 && !rtt_ns)
			continue;
		/* Unique values, prefilled so the GPU writes no payload before publishing. */
		memcpy(&flag0, b + MARROW_PROXY_FLAG_OFF, 8);
		first = flag0 + 1000000 > c->next_value ? flag0 + 1000000 : c->next_value;
		c->next_value = first + total;
		for (uint64_t i = 0; i < total; i++) {
			uint64_t v = first + i;
			memcpy(b + MARROW_PROXY_AREA_LAT + i * 8, &v, 8);
		}
		memset(c->st, 0, sizeof(*c->st));
		la.total = total;
		la.warmup = p->warmup;
		la.do_rtt = phase == 1;
		la.first_value = first;
		la.cycles = cycles;
		la.calib = calib;
		c->d.timeout_ns = p->timeout_ns;
		CU(proxy_launch_latency(c->d, la, c->st), "lat_kernel launch");
		CU(cudaEventRecord(ev, 0), "cudaEventRecord");
		rc = finish(c, ev, p->timeout_ns, phase ? "round trip" : "enqueue/put+completion");
		if (rc != MARROW_OK)
			goto fail;
		CU(cudaMemcpy(hc, cycles, 3 * p->iters * sizeof(long long), cudaMemcpyDeviceToHost), "cudaMemcpy");
		CU(cudaMemcpy(hcal, calib, sizeof(hcal), cudaMemcpyDeviceToHost), "cudaMemcpy");
		/* Cycles -> ns with the SM clock measured over this kernel. */
		double ns_per_cycle = (double)(hcal[2] - hcal[0]) / (double)(hcal[3] - hcal[1]);
		c->sm_khz = (int)(1e6 / ns_per_cycle);
		for (uint32_t i = 0; i < p->iters; i++) {
			if (phase == 0) {
				if (issue_ns)
					issue_ns[i] = (uint64_t)(hc[3 * i] * ns_per_cycle + 0.5);
				if (putc_ns)
					putc_ns[i] = (uint64_t)(hc[3 * i + 1] * ns_per_cycle + 0.5);
			} else {
				rtt_ns[i] = (uint64_t)(hc[3 * i + 2] * ns_per_cycle + 0.5);
			}
		}
	}
fail:
	if (ev)
		cudaEventDestroy(ev);
	cudaFree(cycles);
	cudaFree(calib);
	free(hc);
	return rc;
}

static uint64_t rate_pattern(uint32_t ring, uint64_t slot)
{
	return 0x6b00000000000000ull ^ ((uint64_t)ring << 32) ^ slot;
}

extern "C" MARROW_API int marrow_proxy_cuda_rate(struct marrow_proxy_cuda_ctx *c,
						 const struct marrow_proxy_rate_params *p,
						 struct marrow_proxy_rate_result *res)
{
	const uint32_t R = c ? c->d.rings : 0;
	const uint64_t N = c ? 1ull << c->d.log_slots : 0;
	uint64_t *ts = NULL, *hts = NULL, *expect = NULL;
	uint8_t *b;
	cudaEvent_t ev = NULL;
	rate_args ra;
	int rc = MARROW_OK;

	if (c == NULL || p == NULL || res == NULL || p->size < sizeof(*p) || res->size < sizeof(*res))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cuda_rate: bad arguments");
	if ((rc = px_check_rate_params(p)) != MARROW_OK)
		return rc;
	if (c->d.handoff == MARROW_PROXY_TUNED && p->producers > R)
		return marrow_fail(MARROW_EINVAL, "tuned handoff needs one producer per ring: producers %u > rings %u",
				   p->producers, R);
	if ((p->producers <= R ? (R + p->producers - 1) / p->producers : 1) > MAX_RINGS_PER_THREAD)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cuda_rate: at most %d rings per GPU producer thread",
				   MAX_RINGS_PER_THREAD);
	if (MARROW_PROXY_AREA_LAT + R * N * p->msg_size > c->d.half)
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cuda_rate: buffer too small for %u rings x %llu slots",
				   R, (unsigned long long)N);
	b = (uint8_t *)c->buffer;
	for (uint32_t r = 0; r < R; r++)
		for (uint64_t j = 0; j < N; j++) {
			uint64_t s = MARROW_PROXY_AREA_LAT + (r * N + j) * p->msg_size;
			for (uint32_t o = 0; o < p->msg_size; o += 8) {
				uint64_t v = rate_pattern(r, j) + o;
				memcpy(b + s + o, &v, 8);
			}
			memset(b + c->d.half + s, 0, p->msg_size);
		}
	/* Where every ring's completion counter must end: now + what is sent to it. */
	expect = (uint64_t *)calloc(R, sizeof(uint64_t));
	hts = (uint64_t *)calloc(2 * p->producers, sizeof(uint64_t));
	if (expect == NULL || hts == NULL) {
		rc = marrow_fail(MARROW_ENOMEM, "marrow_proxy_cuda_rate: out of memory");
		goto fail;
	}
	for (uint32_t r = 0; r < R; r++)
		expect[r] = __atomic_load_n(c->d.cpl ? c->cpl_host + (uint64_t)r * 8
						      : &mpr_ctl_of(c->arena, r)->cpl, __ATOMIC_ACQUIRE);
	for (uint32_t q = 0; q < p->producers; q++) {
		uint32_t P = p->producers, first, stride, nr;

		if (P <= R) {
			first = q; stride = P; nr = (R - q + P - 1) / P;
		} else {
			first = q % R; stride = R; nr = 1;
		}
		for (uint32_t k = 0; k < nr; k++)
			expect[first + k * stride] += p->messages / nr + (k < p->messages % nr ? 1 : 0);
	}
	CU(cudaSetDevice(c->gpu), "cudaSetDevice");
	CU(cudaMemcpy(c->d.cpl_expect, expect, R * sizeof(uint64_t), cudaMemcpyHostToDevice), "cudaMemcpy");
	CU(cudaMalloc(&ts, 2 * p->producers * sizeof(uint64_t)), "cudaMalloc(times)");
	CU(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate");
	memset(c->st, 0, sizeof(*c->st));
	c->d.timeout_ns = p->timeout_ns;
	ra.producers = p->producers;
	ra.msg_size = p->msg_size;
	ra.messages = p->messages;
	ra.t_start = ts;
	ra.t_end = ts + p->producers;
	CU(proxy_launch_rate(c->d, ra, c->st), "rate_kernel launch");
	CU(cudaEventRecord(ev, 0), "cudaEventRecord");
	rc = finish(c, ev, p->timeout_ns, "rate");
	if (rc != MARROW_OK)
		goto fail;
	CU(cudaMemcpy(hts, ts, 2 * p->producers * sizeof(uint64_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
	{
		uint64_t t0 = UINT64_MAX, t1 = 0;

		for (uint32_t q = 0; q < p->producers; q++) {
			t0 = hts[q] < t0 ? hts[q] : t0;
			t1 = hts[p->producers + q] > t1 ? hts[p->producers + q] : t1;
		}
		memset(res, 0, sizeof(*res));
		res->size = sizeof(*res);
		res->messages = p->messages * p->producers;
		res->elapsed_ns = t1 - t0;
	}
	/* Right bytes at the right offsets (slots not reached stay zero). */
	for (uint32_t r = 0; r < R; r++)
		for (uint64_t j = 0; j < N; j++) {
			uint64_t s = MARROW_PROXY_AREA_LAT + (r * N + j) * p->msg_size, z = 0;
			if (memcmp(b + s, b + c->d.half + s, p->msg_size) != 0 && memcmp(b + c->d.half + s, &z, 8) != 0)
				res->verify_errors++;
		}
	if (res->verify_errors)
		rc = marrow_fail(MARROW_EIO, "GPU rate run: %llu destination slots hold wrong bytes",
				 (unsigned long long)res->verify_errors);
fail:
	if (ev)
		cudaEventDestroy(ev);
	cudaFree(ts);
	free(hts);
	free(expect);
	return rc;
}

extern "C" MARROW_API int marrow_proxy_cuda_query(struct marrow_proxy_cuda_ctx *c, struct marrow_proxy_cuda_info *info)
{
	if (c == NULL || info == NULL || info->size < sizeof(*info))
		return marrow_fail(MARROW_EINVAL, "marrow_proxy_cuda_query: bad arguments");
	info->cpl_kind = c->cpl_kind;
	info->sm_clock_khz = c->sm_khz;
	memcpy(info->note, c->note, sizeof(info->note));
	return MARROW_OK;
}
