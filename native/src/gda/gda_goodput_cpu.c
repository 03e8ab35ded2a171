/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * marrow_gda_goodput_cpu_run: the calling thread plays the GPU's posting
 * thread and runs gda_window.h over cfg->qps QPs, one loop per ordering
 * variant so that the variant is a constant inside the timed region (as in
 * gda_cpu.c).
 */
#include <stdlib.h>

#include "gda/gda_goodput_host.h"

#define GP_INSTANTIATE(name, ORD)                                                           \
	static int gp_##name(struct gda_sq *sq, struct gda_cq *cq, const struct gda_window_args *a, \
			     struct gda_window_out *o)                                          \
	{                                                                                   \
		return gda_window_run(sq, cq, ORD, a, o);                                   \
	}
GP_INSTANTIATE(none, GDA_ORD_NONE)
GP_INSTANTIATE(gpu_fence, GDA_ORD_GPU_FENCE)
GP_INSTANTIATE(gpu_fence_dbrec, GDA_ORD_GPU_FENCE_DBREC)
GP_INSTANTIATE(release_gpu, GDA_ORD_RELEASE_GPU)
GP_INSTANTIATE(threadfence, GDA_ORD_THREADFENCE)
GP_INSTANTIATE(release_sys, GDA_ORD_RELEASE_SYS)
GP_INSTANTIATE(fence_sys, GDA_ORD_FENCE_SYS)

typedef int (*gp_loop_fn)(struct gda_sq *, struct gda_cq *, const struct gda_window_args *,
			  struct gda_window_out *);
static const gp_loop_fn GP_LOOPS[GDA_ORD_COUNT] = {
	gp_none, gp_gpu_fence, gp_gpu_fence_dbrec, gp_release_gpu, gp_threadfence, gp_release_sys, gp_fence_sys,
};

MARROW_API int marrow_gda_goodput_cpu_run(const struct marrow_gda_goodput_config *cfg,
					  const struct marrow_gda_endpoint *ep,
					  struct marrow_gda_goodput_result *res)
{
	static const char fn[] = "marrow_gda_goodput_cpu_run";
	struct gda_window_args a;
	struct gda_window_out o;
	struct gda_sq sq[GDA_WINDOW_MAX_QPS];
	struct gda_cq cq[GDA_WINDOW_MAX_QPS];
	uint32_t slots;
	int rc = gp_check_args(fn, cfg, ep, res);

	if (rc)
		return rc;
	slots = gp_slots(cfg, ep);
	gp_stage(cfg, ep, slots * gp_qps(cfg));
	gp_args(cfg, ep, slots, &a);
	memset(&o, 0, sizeof(o));
	for (uint32_t q = 0; q < gp_qps(cfg); q++) {
		gda_sq_init(&sq[q], ep[q].qp, ep[q].qp->sq_buf, ep[q].qp->dbrec, ep[q].qp->uar);
		gda_cq_init(&cq[q], ep[q].cq, ep[q].cq->buf, ep[q].cq->dbrec);
	}
	GP_LOOPS[cfg->ordering](sq, cq, &a, &o);
	return gp_finish(fn, cfg, ep, &o, slots, sq, cq, res);
}
