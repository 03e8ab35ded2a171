/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The device engine's persistent kernel: the software NIC's execution core
 * (softnic/emu_exec_core.h) compiled for the GPU, twice (GPU-scope and
 * system-scope orderings), and the loop that runs it. One GPU thread plays
 * one CPU engine thread: it owns the QPs whose index % (engine threads) is
 * its engine index and polls each of them every pass, exactly as an engine
 * thread's active set does. Engine indexes go round the blocks first
 * (block b, thread i is engine i * blocks + b), so QPs 0, 1, 2, ... land
 * on different SMs before any SM gets a second one.
 * docs/design/device-engine.md.
 */
#ifndef MARROW_SNDEV_KERNEL_CUH
#define MARROW_SNDEV_KERNEL_CUH

#include "marrow/gpu_prims.h"
#include "softnic/emu_internal.h"

/* ---- the stage profile (docs/design/device-engine.md §2.1) ----------------
 * With a profile buffer, engine thread 0 stamps %clock64 (its own SM, so
 * differences are valid) at five stages of the WQE path of QP 0: slot seen
 * non-zero, doorbell taken, fetch done, WQE executed, CQE written. A stage
 * keeps its first stamp since the last CQE; the CQE stamp stores the five
 * as one record (the first `cap` signaled WQEs of QP 0). The stamps are
 * compiled only into a third copy of the core (namespace sndev_gpu_prof,
 * GPU scope), run by the kernel variant start picks when a buffer is armed;
 * the engine as normally run has no stage code at all. Buffer:
 * SNDEV_PROF_HDR words of header (records, then clock64 and %globaltimer
 * at the first and at the last record: the SM clock over the run), then
 * SNDEV_STAGES words per record. */
enum { SNDEV_STAGES = 5, SNDEV_PROF_HDR = 8, SNDEV_STAGE_CQE = 4 };

/* The last MR a fast run checked (rkey as stored, the peer PD it was
 * looked up for, bounds): valid for the whole kernel, because the device
 * engine's MR table changes only while it is stopped
 * (docs/design/device-engine.md §2). key_be 0: none. */
struct emu_d_mr_cache {
	uint32_t key_be;
	const struct marrow_emu_pd *pd;
	uint64_t base, len;
};

/* Values emu_dev_qp_poll_own loads right after its acquire, beside its L1
 * prefetches (one round trip), for the first fast WQE and the first CQE
 * of the doorbell: the peer's state and the send CQ's in_error, prod and
 * ci_seen, all relaxed reads the core would make later
 * (docs/design/device-engine.md §2.3). cqe_commit consumes the CQ's on
 * its first CQE to that CQ; poll_own drops both when it returns. */
struct emu_d_early {
	const struct marrow_emu_cq *cq;     /* nullptr: none */
	uint32_t cq_in_error, cq_prod, cq_ci_seen;
	uint32_t peer_state;
	const struct marrow_emu_qp *peer;   /* nullptr: none */
};

/* An engine thread's private state: the core's emu_thread first (the
 * core's t points at it), then what only the device engine keeps. */
struct sndev_thread {
	struct emu_thread e;
	struct emu_d_mr_cache mr;
	struct emu_d_mr_cache lmr;   /* the lane path's last lkey checked (emu_lane_ptr_run) */
	struct emu_d_early early;
};

__device__ __forceinline__ struct sndev_thread *sndev_ext(struct emu_thread *t)
{
	return reinterpret_cast<struct sndev_thread *>(t);
}

/* The stage profile's state (docs/design/device-engine.md §2.1), in shared
 * memory: a stamp then makes no global or local access. In the engine
 * thread's local memory, which the doorbell's acquire empties from L1
 * (fence.acquire.gpu is CCTL.IVALL on sm_90), the first stamp after the
 * acquire reloaded it from L2; measured on the H200, moving it here changed
 * no stage; the stamps likely cost as calls (§2.1). One per block:
 * profiled is the profiled QP in the block of engine thread 0 and nullptr
 * elsewhere, set by the block's first thread before any engine thread runs
 * (sndev_engine_kernel). */
struct sndev_prof {
	const struct marrow_emu_qp *profiled;
	unsigned long long *buf;
	uint32_t cap, n;
	unsigned long long st[SNDEV_STAGES];
	unsigned long long c_first, g_first, c_last, g_last;
};
__shared__ struct sndev_prof sndev_prof_sh;

__device__ __noinline__ void sndev_stage_stamp(int k)
{
	struct sndev_prof *x = &sndev_prof_sh;
	unsigned long long c = gpu_clock64();

	if (x->st[k] == 0)
		x->st[k] = c;
	if (k != SNDEV_STAGE_CQE)
		return;
	if (x->n < x->cap) {
		unsigned long long g = gpu_globaltimer_ns();
		unsigned long long *r = x->buf + SNDEV_PROF_HDR + (size_t)x->n * SNDEV_STAGES;

		for (int i = 0; i < SNDEV_STAGES; i++)
			r[i] = x->st[i];
		if (x->n == 0) {
			x->c_first = c;
			x->g_first = g;
		}
		x->c_last = c;
		x->g_last = g;
		x->n++;
	}
	for (int i = 0; i < SNDEV_STAGES; i++)
		x->st[i] = 0;
}

#define EMU_D_MR_CACHE(t) (&sndev_ext(t)->mr)
#define EMU_D_LKEY_CACHE(t) (&sndev_ext(t)->lmr)
#define EMU_D_EARLY(t) (&sndev_ext(t)->early)

/* The engine as run: EMU_STAGE is nothing (the core's default). */
namespace sndev_gpu {
#define EMU_DEV_SYS 0
#include "softnic/emu_exec_core.h"
#undef EMU_DEV_SYS
} // namespace sndev_gpu

namespace sndev_sys {
#define EMU_DEV_SYS 1
#include "softnic/emu_exec_core.h"
#undef EMU_DEV_SYS
} // namespace sndev_sys

/* The profiling engine (GPU scope): stamps for the profiled QP only. */
#undef EMU_STAGE
#define EMU_STAGE(t, qp, k)                                                          \
	do {                                                                         \
		(void)(t);                                                           \
		if (sndev_prof_sh.profiled == (const struct marrow_emu_qp *)(qp))          \
			sndev_stage_stamp(k);                                        \
	} while (0)
namespace sndev_gpu_prof {
#define EMU_DEV_SYS 0
#include "softnic/emu_exec_core.h"
#undef EMU_DEV_SYS
} // namespace sndev_gpu_prof

static_assert((int)sndev_gpu::EMU_STAGE_CQE == (int)SNDEV_STAGE_CQE && (int)sndev_gpu::EMU_STAGE_SEEN == 0,
	      "the stage profile's record layout follows the core's stages");

enum { SNDEV_MAX_BLOCKS = 1024 };
enum { SNDEV_EXIT_NONE = 0, SNDEV_EXIT_STOP = 1, SNDEV_EXIT_DEADLINE = 2 };

/* Control block in mapped pinned host memory: the host writes stop; the
 * kernel writes the rest (the host reads them while it runs). */
struct sndev_ctl {
	uint32_t stop;
	uint32_t exit_reason;
	uint32_t reserved0;     /* was a count of exited threads: nothing read it, and its system-scope
				 * atomic on pinned host memory is not allowed over PCIe (compute-sanitizer
				 * memcheck on the H200, docs/results/h200-compute-sanitizer.md) */
	uint32_t pad;
	unsigned long long passes0;        /* block 0 / thread 0 heartbeat */
	uint32_t smid[SNDEV_MAX_BLOCKS];   /* %smid + 1 of each block, 0 = not yet running */
};

struct sndev_kargs {
	struct marrow_emu_qp *qps;
	struct emu_thread *threads;
	struct sndev_ctl *ctl;             /* device pointer of the mapped control block */
	unsigned long long *prof;          /* stage profile buffer (GPU memory); nullptr = off */
	uint32_t prof_cap;                 /* records it holds */
	uint32_t nqps;
	uint32_t check_every;              /* passes between stop/deadline checks (power of two) */
	unsigned long long max_run_ns;
};

/* QPs per engine thread whose doorbell slots and quiet state stay in
 * registers (the rest are polled through emu_qp_poll on every pass). */
enum { SNDEV_FAST_QPS = 4 };

/* A doorbell slot, read without ordering anything: what a poll of memory
 * another agent writes needs, and no L1 invalidation (an acquire would
 * drop every line of the engine's objects on every pass). GPU scope for
 * queues in GPU memory; system scope where a CPU producer writes them. */
template <int SYS>
__device__ __forceinline__ uint64_t sndev_ld_slot(const uint64_t *p)
{
	return SYS ? gpu_ld_relaxed_sys_u64(p) : gpu_ld_relaxed_gpu_u64(p);
}

/* Whether emu_qp_poll on qp, with both doorbell slots empty, can do
 * nothing: no doorbell target beyond what ran or was acted on, nothing
 * fetched and not executed, no retry pending, and no RQ to flush. Then
 * emu_qp_poll returns 0 in every state: in RTS it skips sq_progress; in
 * ERR (which another engine thread may set by failing the peer)
 * sq_progress finds nothing to fetch, execute or flush and rq_flush has no
 * RQ. Only this engine thread writes these fields while the engine runs
 * (docs/design/device-engine.md §2). */
__device__ __forceinline__ bool sndev_qp_quiet(const struct marrow_emu_qp *qp)
{
	uint16_t ci = qp->exec_ci;

	return qp->db_target == ci && qp->last_target == ci && qp->fetch_pi == ci &&
	       qp->wait_kind == EMU_WAIT_NONE && qp->rq_cnt == 0;
}

/* SYS: system-scope core; PROF: the profiling core (GPU scope). */
template <int SYS, int PROF>
__device__ __forceinline__ int sndev_poll(struct emu_thread *t, struct marrow_emu_qp *qp)
{
	return SYS ? sndev_sys::emu_qp_poll(t, qp)
		   : PROF ? sndev_gpu_prof::emu_qp_poll(t, qp) : sndev_gpu::emu_qp_poll(t, qp);
}

/* A QP with a doorbell page of its own, given the slot values this pass
 * loaded and which of them are doorbells not yet taken
 * (emu_dev_qp_poll_own: taken by comparison, no exchange, no reload). */
template <int SYS, int PROF>
__device__ __forceinline__ int sndev_poll_own(struct emu_thread *t, struct marrow_emu_qp *qp, uint64_t v0,
					      uint64_t v1, uint32_t fresh)
{
	return SYS ? sndev_sys::emu_dev_qp_poll_own(t, qp, v0, v1, fresh)
		   : PROF ? sndev_gpu_prof::emu_dev_qp_poll_own(t, qp, v0, v1, fresh)
			  : sndev_gpu::emu_dev_qp_poll_own(t, qp, v0, v1, fresh);
}

/* At exit: empty a slot that still holds the doorbell this engine thread
 * took last, so a later start, which begins with no value taken, sees only
 * doorbells it has not acted on, as with the exchange that empties a slot
 * (emu_qp_poll, the CPU engine). In GPU memory a CAS, so a doorbell stored
 * since then stays for the next start. In pinned host memory (SYS) a GPU
 * atomic is not allowed over PCIe (compute-sanitizer memcheck on the H200:
 * "Invalid __global__ system-scoped atomic", docs/results/h200-gpu-resident.md),
 * so a load and a store: a doorbell stored between the two is lost, the
 * window a stop already has (docs/design/device-engine.md §8); producers are
 * stopped before the engine is. */
template <int SYS>
__device__ __forceinline__ void sndev_slot_release(const uint64_t *slot, uint64_t taken)
{
	if (slot == nullptr || taken == 0)
		return;
	if (SYS) {
		if (gpu_ld_relaxed_sys_u64(slot) == taken)
			gpu_st_relaxed_sys_u64((uint64_t *)slot, 0ull);
	} else {
		atomicCAS((unsigned long long *)slot, (unsigned long long)taken, 0ull);
	}
}

/* The lane path of each compiled copy of the core (emu_exec_lane.h): its
 * struct emu_lane and functions live in that copy's namespace. */
template <int SYS, int PROF> struct sndev_lane_ops;
#define SNDEV_LANE_OPS(S, P, NS)                                                                           \
	template <> struct sndev_lane_ops<S, P> {                                                          \
		typedef NS::emu_lane lane;                                                                 \
		/* poll's answers from here on ask for the core (lane_core) */                             \
		static constexpr int first_core_request = NS::EMU_LANE_CORE_POLL;                          \
		static __device__ __forceinline__ void setup(lane *L, struct marrow_emu_qp *qp)            \
		{                                                                                          \
			NS::emu_lane_setup(L, qp);                                                         \
		}                                                                                          \
		static __device__ __forceinline__ bool quiet(const lane *L) { return NS::emu_lane_quiet(L); } \
		static __device__ __forceinline__ void flush(struct emu_thread *t, lane *L) { NS::emu_lane_flush(t, L); } \
		static __device__ __forceinline__ int poll(struct emu_thread *t, lane *L, uint64_t v0, uint64_t v1, \
							   uint32_t fresh)                                 \
		{                                                                                          \
			return NS::emu_dev_lane_poll(t, L, v0, v1, fresh);                                 \
		}                                                                                          \
		static __device__ __forceinline__ int lane_core(struct emu_thread *t, lane *L, int request,  \
								uint64_t v0, uint64_t v1, uint32_t fresh)  \
		{                                                                                          \
			return NS::emu_lane_core(t, L, request, v0, v1, fresh);                            \
		}                                                                                          \
		static __device__ __forceinline__ int core_own(struct emu_thread *t, struct marrow_emu_qp *qp, \
							       uint64_t v0, uint64_t v1, uint32_t fresh)   \
		{                                                                                          \
			return NS::emu_lane_poll_own_call(t, qp, v0, v1, fresh);                           \
		}                                                                                          \
		static __device__ __forceinline__ int core(struct emu_thread *t, struct marrow_emu_qp *qp)  \
		{                                                                                          \
			return NS::emu_lane_poll_call(t, qp);                                              \
		}                                                                                          \
	}
SNDEV_LANE_OPS(0, 0, sndev_gpu);
SNDEV_LANE_OPS(1, 0, sndev_sys);
SNDEV_LANE_OPS(0, 1, sndev_gpu_prof);
#undef SNDEV_LANE_OPS

/* Engine threads per SM in lane layout: one warp each, lane 0 working. */
enum { SNDEV_LANE_MAX_PER_SM = 8 };

/* What both loops need for their checks (sndev_check): passed by value to
 * the lane loop, which is out of line. */
struct sndev_run {
	struct sndev_ctl *ctl;
	unsigned long long max_run_ns;
	unsigned long long t0;          /* %globaltimer at the kernel's start */
	uint32_t check_every;
	uint32_t g;                     /* engine index */
};

/* Every check_every passes: the pass counts and counters published (a live
 * copy), then the stop request and the deadline; the exit reason. */
__device__ __forceinline__ uint32_t sndev_check(struct sndev_thread *lt, struct emu_thread *t, const sndev_run &r,
						unsigned long long pass, unsigned long long *busy,
						unsigned long long *idle)
{
	CTR(&lt->e, busy_passes) += *busy;
	CTR(&lt->e, idle_passes) += *idle;
	*busy = *idle = 0;
	for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
		t->local[i] = lt->e.local[i];
	if (gpu_ld_relaxed_sys_u32(&r.ctl->stop))
		return SNDEV_EXIT_STOP;
	if (gpu_globaltimer_ns() - r.t0 > r.max_run_ns)
		return SNDEV_EXIT_DEADLINE;
	if (r.g == 0)
		gpu_st_relaxed_sys_u64((uint64_t *)&r.ctl->passes0, pass);
	return SNDEV_EXIT_NONE;
}

/* The lane loop's state while the core has the QP (sndev_lane_serve's
 * local memory; sndev_lane_run holds it in registers while it runs). */
template <int SYS, int PROF> struct sndev_lane_state {
	typename sndev_lane_ops<SYS, PROF>::lane L;
	uint64_t taken0, taken1;   /* the last doorbell value taken from each slot (§2.3); 0: none */
	uint64_t v0, v1;           /* this pass's slot values, for the core */
	unsigned long long pass, busy, idle;
	uint32_t fresh;            /* which of v0, v1 are doorbells not yet taken */
	uint32_t quiet;
};

/* sndev_lane_run's answers besides an exit reason; sndev_lane_serve's
 * answer when the QP is not the lane path's. */
enum : uint32_t { SNDEV_LANE_CORE = 0x100u /* + EMU_LANE_CORE_* */, SNDEV_LANE_NOT = 0xffffffffu };

/* The lane loop (docs/design/device-engine.md §2.4, §2.6): an engine thread
 * whose only QP is the lane path's polls that QP's two slots and nothing
 * else, with the QP in registers (struct emu_lane). It makes no call into
 * the core (the profiling variant calls only its small stamp function), so
 * ptxas keeps the loop's values in registers: with calls into the core
 * (which uses every register) in the loop it kept them in local memory,
 * which the doorbell's acquire empties from L1, and reloaded them from L2
 * on the single-WQE path (check_lane_registers, a ctest, holds it to
 * that). When the lane poll asks for the core, it stores its state in *S
 * and returns SNDEV_LANE_CORE + the request; sndev_lane_serve gives the QP
 * to the core and runs it again with what the core did (resumed: 0 or 1;
 * -1 at a pass's start). Otherwise it returns the exit reason, with the
 * counters published. All 32 lanes, converged. */
template <int SYS, int PROF>
__device__ __noinline__ uint32_t sndev_lane_run(sndev_lane_state<SYS, PROF> *S, struct sndev_thread *lt,
						struct emu_thread *t, const uint64_t *slot0, const uint64_t *slot1,
						const sndev_run r, const bool prof, int resumed)
{
	typedef sndev_lane_ops<SYS, PROF> lops;
	typename lops::lane L = S->L;
	uint64_t taken0 = S->taken0, taken1 = S->taken1;
	unsigned long long pass = S->pass, busy = S->busy, idle = S->idle;
	bool quiet = S->quiet != 0;
	const bool lead = (threadIdx.x & 31u) == 0;
	int work = resumed;   /* >= 0: the core finished this pass's poll */
	uint32_t out;

	for (;; pass++) {
		if (work < 0) {
			/* Every lane loads the slots (each lane's acquire then
			 * covers its own WQE loads); lane 0's values decide for all. */
			uint64_t v0 = sndev_ld_slot<SYS>(slot0), v1 = sndev_ld_slot<SYS>(slot1);

			v0 = __shfl_sync(0xffffffffu, (unsigned long long)v0, 0);
			v1 = __shfl_sync(0xffffffffu, (unsigned long long)v1, 0);
			const uint32_t f = (uint32_t)(v0 != taken0) | ((uint32_t)(v1 != taken1) << 1);

			work = 0;
			if (f != 0 || !quiet) {
				if (PROF && prof && f != 0)
					sndev_stage_stamp(0);   /* slot seen: prof says this is the profiled QP */
				taken0 = v0;
				taken1 = v1;
				const int a = lops::poll(&lt->e, &L, v0, v1, f);

				if (a >= lops::first_core_request) {
					S->v0 = v0;
					S->v1 = v1;
					S->fresh = f;
					out = SNDEV_LANE_CORE + (uint32_t)a;
					break;
				}
				work = a;
			}
		}
		quiet = lops::quiet(&L);
		busy += work != 0;
		idle += work == 0;
		work = -1;
		if ((pass & (r.check_every - 1)) == 0) {
			uint32_t x = SNDEV_EXIT_NONE;

			if (lead) {
				lops::flush(&lt->e, &L);
				x = sndev_check(lt, t, r, pass, &busy, &idle);
			}
			out = __shfl_sync(0xffffffffu, x, 0);
			if (out != SNDEV_EXIT_NONE)
				break;
		}
	}
	S->L = L;
	S->taken0 = taken0;
	S->taken1 = taken1;
	S->pass = pass;
	S->busy = busy;
	S->idle = idle;
	S->quiet = quiet;
	return out;
}

/* The lane path of an engine thread whose only QP is qp (doorbell slots
 * slot0, slot1), if qp is the lane path's: sndev_lane_run, and the core
 * whenever it asks. Returns
 * SNDEV_LANE_NOT (nothing done) when qp is not the lane path's; otherwise
 * the exit reason, with the slots released. All 32 lanes, converged. */
template <int SYS, int PROF>
__device__ __noinline__ uint32_t sndev_lane_serve(struct sndev_thread *lt, struct emu_thread *t,
						  struct marrow_emu_qp *qp, const uint64_t *slot0,
						  const uint64_t *slot1, const sndev_run r, const bool prof)
{
	typedef sndev_lane_ops<SYS, PROF> lops;
	sndev_lane_state<SYS, PROF> S;
	int resumed = -1;
	uint32_t x;

	lops::setup(&S.L, qp);
	if (!S.L.on)
		return SNDEV_LANE_NOT;
	S.taken0 = S.taken1 = 0;
	S.v0 = S.v1 = 0;
	S.pass = S.busy = S.idle = 0;
	S.fresh = 0;
	S.quiet = 0;   /* the first pass polls the QP in full */
	while ((x = sndev_lane_run<SYS, PROF>(&S, lt, t, slot0, slot1, r, prof, resumed)) >= SNDEV_LANE_CORE)
		resumed = lops::lane_core(&lt->e, &S.L, (int)(x - SNDEV_LANE_CORE), S.v0, S.v1, S.fresh);
	if ((threadIdx.x & 31u) == 0) {
		sndev_slot_release<SYS>(slot0, S.taken0);
		sndev_slot_release<SYS>(slot1, S.taken1);
	}
	return x;
}

/* PROF 1 (with SYS 0 only): the stage profile of §2.1, into a.prof.
 * LANE 0, the thread layout: one GPU thread per engine index, packed into
 * warps. LANE 1, the lane layout (docs/design/device-engine.md §2.4): one
 * warp per engine index, whose lane 0 is the engine thread (the other
 * lanes leave at once), so engine threads never share a warp's issue slots
 * and each may keep up to 255 registers; an engine thread that owns one QP
 * with a doorbell page of its own serves it on the lane path. */
template <int SYS, int PROF, int LANE>
__global__ void __launch_bounds__(LANE ? 32 * SNDEV_LANE_MAX_PER_SM : 1024) sndev_engine_kernel(sndev_kargs a)
{
	/* Lane layout: lane 0 is the engine thread; the other lanes join it
	 * only on the lane path (below), and leave otherwise. */
	const uint32_t lane = LANE ? threadIdx.x & 31u : 0u;
	const bool lead = lane == 0;
	const uint32_t tib = LANE ? threadIdx.x / 32u : threadIdx.x;   /* engine thread in the block */
	const uint32_t g = tib * gridDim.x + blockIdx.x;               /* engine index */
	const uint32_t nthr = gridDim.x * (LANE ? blockDim.x / 32u : blockDim.x);
	struct emu_thread *t = &a.threads[g];
	const unsigned long long t0 = gpu_globaltimer_ns();
	uint32_t reason = SNDEV_EXIT_NONE;

	if (tib == 0 && lead)
		gpu_st_relaxed_sys_u32(&a.ctl->smid[blockIdx.x], gpu_smid() + 1u);
	if constexpr (PROF) {
		/* Engine thread 0 is the block's first; every block clears its
		 * copy before any of its threads can stamp. */
		if (threadIdx.x == 0) {
			const bool on = g == 0 && a.prof != nullptr;

			sndev_prof_sh.profiled = on ? &a.qps[0] : nullptr;
			sndev_prof_sh.buf = a.prof;
			sndev_prof_sh.cap = a.prof_cap;
			sndev_prof_sh.n = 0;
			for (int i = 0; i < SNDEV_STAGES; i++)
				sndev_prof_sh.st[i] = 0;
			sndev_prof_sh.c_first = sndev_prof_sh.g_first = sndev_prof_sh.c_last = sndev_prof_sh.g_last = 0;
		}
		__syncthreads();
	}
	if (g < a.nqps) {
		typedef sndev_lane_ops<SYS, PROF> lops;
		/* The engine thread's state in private memory: the counters the
		 * core bumps on every WQE (CTR) and its scratch (gather pieces,
		 * wrap buffer). A counter bump is then an L1 access, not a global
		 * load and store on the WQE path; the counters reach t->local every
		 * check_every passes (a live estimate, as before) and at exit
		 * (exact once stopped). */
		struct sndev_thread lt;
		/* Pass counts stay in registers between checks. */
		unsigned long long busy = 0, idle = 0;
		/* The first SNDEV_FAST_QPS owned QPs: doorbell slots and whether
		 * the QP is quiet, in registers. A pass over a quiet QP whose
		 * slots are empty is two relaxed loads issued together, with no
		 * pointer chase and no acquire. */
		const uint64_t *slot0[SNDEV_FAST_QPS], *slot1[SNDEV_FAST_QPS];
		/* Own-page fast QPs: the last doorbell value taken from each slot
		 * (docs/design/device-engine.md §2.3); a slot holding another
		 * value has a doorbell not yet taken. 0: none (a doorbell is never 0). */
		uint64_t taken[SNDEV_FAST_QPS][2];
		uint32_t quiet = 0;   /* bit k: fast QP k is quiet; the first pass polls every QP in full */
		uint32_t own_page = 0;   /* bit k: fast QP k's doorbell page is its own */

		lt.e.dev = t->dev;
		lt.e.index = t->index;
		for (int i = 0; i < MARROW_EMU_CTR_COUNT; i++)
			lt.e.local[i] = t->local[i];
		lt.mr.key_be = 0;
		lt.mr.pd = nullptr;
		lt.mr.base = lt.mr.len = 0;
		lt.lmr.key_be = 0;
		lt.lmr.pd = nullptr;
		lt.lmr.base = lt.lmr.len = 0;
		lt.early.cq = nullptr;
		lt.early.peer = nullptr;
		/* QP 0 is engine thread 0's first QP (sndev_prof_sh, set above). */
		const bool prof = PROF && g == 0 && lead && a.prof != nullptr;
#pragma unroll
		for (int k = 0; k < SNDEV_FAST_QPS; k++) {
			uint32_t q = g + (uint32_t)k * nthr;

			slot0[k] = slot1[k] = nullptr;
			taken[k][0] = taken[k][1] = 0;
			if (q < a.nqps) {
				const struct emu_uar *u = a.qps[q].uar;

				slot0[k] = (const uint64_t *)u->page;
				slot1[k] = (const uint64_t *)(u->page + EMU_UAR_HALF);
				/* On a shared page another QP's poll may take this QP's
				 * doorbell: such a QP is never skipped (the device
				 * engine gives every QP its own page; this keeps the
				 * skip right if that changes). */
				if (u->nqps <= 1)
					own_page |= 1u << k;
			}
		}
		const sndev_run run = {a.ctl, a.max_run_ns, t0, a.check_every, g};
		/* The lane path: this engine thread's only QP, on a page of its own. */
		bool lane_served = false;

		if (LANE && g + nthr >= a.nqps && (own_page & 1u)) {
			const uint32_t r = sndev_lane_serve<SYS, PROF>(&lt, t, &a.qps[g], slot0[0], slot1[0], run, prof);

			lane_served = r != SNDEV_LANE_NOT;
			if (lane_served)
				reason = r;
		}
		if (LANE && !lead && !lane_served)
			return;
		for (unsigned long long pass = 0; !lane_served; pass++) {
			uint64_t db[SNDEV_FAST_QPS][2];
			uint32_t skip = 0;   /* bit k: fast QP k has nothing to do this pass */
			uint32_t fresh = 0;  /* bits 2k, 2k+1: fast QP k's slot 0 / 1 holds a doorbell not taken */
			int work = 0;

			/* Every slot load is issued before any is tested: one round
			 * trip per pass, however many QPs this thread owns. */
#pragma unroll
			for (int k = 0; k < SNDEV_FAST_QPS; k++) {
				db[k][0] = db[k][1] = 0;
				if (slot0[k] != nullptr) {
					db[k][0] = sndev_ld_slot<SYS>(slot0[k]);
					db[k][1] = sndev_ld_slot<SYS>(slot1[k]);
				}
			}
			/* Own page: a slot is news when it differs from the value taken
			 * last. Shared page (emu_qp_poll empties its slots): when
			 * non-zero; such a QP is never quiet, so never skipped. */
#pragma unroll
			for (int k = 0; k < SNDEV_FAST_QPS; k++) {
				const bool own = (own_page >> k) & 1u;

				fresh |= (uint32_t)(db[k][0] != (own ? taken[k][0] : 0)) << (2 * k);
				fresh |= (uint32_t)(db[k][1] != (own ? taken[k][1] : 0)) << (2 * k + 1);
				if (((fresh >> (2 * k)) & 3u) == 0)
					skip |= 1u << k;
			}
			skip &= quiet;
			if (PROF && prof && (fresh & 3u) != 0)
				sndev_stage_stamp(0);   /* slot seen: prof says this is the profiled QP */
			/* One call site of the core (its code is large: one copy keeps
			 * the persistent loop in the instruction cache). */
			uint32_t k = 0;
			for (uint32_t q = g; q < a.nqps; q += nthr, k++) {
				if (k < SNDEV_FAST_QPS && ((skip >> k) & 1u))
					continue;
				struct marrow_emu_qp *qp = &a.qps[q];

				if (k < SNDEV_FAST_QPS && ((own_page >> k) & 1u)) {
					/* Picked by unrolled selects: an array indexed by a
					 * run-time k would live in local memory. */
					uint64_t v0 = 0, v1 = 0;
					const uint32_t f = (fresh >> (2 * k)) & 3u;
#pragma unroll
					for (uint32_t j = 0; j < SNDEV_FAST_QPS; j++)
						if (j == k) {
							v0 = db[j][0];
							v1 = db[j][1];
							/* Taken now: the same values are not news again. */
							taken[j][0] = v0;
							taken[j][1] = v1;
						}
					work |= LANE ? lops::core_own(&lt.e, qp, v0, v1, f)
						     : sndev_poll_own<SYS, PROF>(&lt.e, qp, v0, v1, f);
				} else
					work |= LANE ? lops::core(&lt.e, qp) : sndev_poll<SYS, PROF>(&lt.e, qp);
				if (k < SNDEV_FAST_QPS)
					quiet = (quiet & ~(1u << k)) | (((uint32_t)sndev_qp_quiet(qp) << k) & own_page);
			}
			busy += work != 0;
			idle += work == 0;
			if ((pass & (a.check_every - 1)) == 0 &&
			    (reason = sndev_check(&lt, t, run, pass, &busy, &idle)) != SNDEV_EXIT_NONE)
				break;
		}
#pragma unroll
		for (int k = 0; k < SNDEV_FAST_QPS; k++)
			if (lead && ((own_page >> k) & 1u)) {
				sndev_slot_release<SYS>(slot0[k], taken[k][0]);
				sndev_slot_release<SYS>(slot1[k], taken[k][1]);
			}
		if constexpr (PROF) {
			if (prof) {
				a.prof[0] = sndev_prof_sh.n;
				a.prof[1] = sndev_prof_sh.c_first;
				a.prof[2] = sndev_prof_sh.g_first;
				a.prof[3] = sndev_prof_sh.c_last;
				a.prof[4] = sndev_prof_sh.g_last;
			}
		}
		/* Counters and QP state reach memory before the exit reason is stored. */
		gpu_fence_sc_sys();
		if (reason == SNDEV_EXIT_DEADLINE && lead)
			gpu_st_relaxed_sys_u32(&a.ctl->exit_reason, SNDEV_EXIT_DEADLINE);
		else if (g == 0 && lead)
			gpu_st_relaxed_sys_u32(&a.ctl->exit_reason, reason);
	}
}

#endif /* MARROW_SNDEV_KERNEL_CUH */
