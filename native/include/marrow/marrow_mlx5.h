/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Hardware mlx5 RC queue pairs (libmarrow_verbs.so): the control path of
 * mini-gda's "cuda + mlx5" target.
 *
 * A QP is created through verbs (ibv_create_cq, ibv_create_qp) and its SQ,
 * doorbell record, BlueFlame register and CQ are taken from
 * mlx5dv_init_obj(QP | CQ). They are returned in the SAME view structs as
 * the software NIC's (marrow_qp_view, marrow_cq_view of marrow_softnic.h),
 * so the one poster (gda_post.h) and the same kernels drive either.
 *
 * Queue placement: marrow_mlx5_qp_create puts the queues in libmlx5's
 * host memory (placement 'gpu' there answers MARROW_ENOSYS and names
 * marrow_mlx5_gpu_qp_create). GPU-resident queues are created through
 * DevX by the marrow_mlx5_gpu_qp_* calls below, in GPU memory the caller
 * allocated (docs/design/mlx5-queue-formats.md §7).
 *
 * Like marrow_verbs.h, nothing of rdma-core is linked: libibverbs.so.1 and
 * libmlx5.so.1 are dlopened on the first call. Every call returns a status;
 * marrow_verbs_last_error() names the verbs call, the errno and, for QP calls,
 * the QP number and state. Where no mlx5 device exists, open answers
 * MARROW_ENODEV with the probe's reason (see marrow_verbs_probe).
 *
 * Lifetime: QPs and MRs -> device (marrow_mlx5_device_close answers
 * MARROW_EBUSY while any remain). A QP owns its send CQ and destroys it
 * after the QP. Nobody may touch a view after its QP is destroyed.
 * Thread safety: control calls on one device are serialised internally; the
 * data path (views) is the caller's.
 *
 * Structs: {size, comp_mask} first, no implicit padding (marrow_abi.h).
 */
#ifndef MARROW_MLX5_H
#define MARROW_MLX5_H

#include "marrow/marrow_abi.h"
#include "marrow/marrow_softnic.h" /* struct marrow_qp_view, marrow_cq_view */

#ifdef __cplusplus
extern "C" {
#endif

struct marrow_mlx5_device; /* an opened device + its protection domain */
struct marrow_mlx5_mr;
struct marrow_mlx5_qp;     /* an RC QP and its send CQ */

#define MARROW_MLX5_NAME_MAX 64

/* sizeof = 80. In/out: the library writes back what it chose. */
struct marrow_mlx5_device_attr {
	uint32_t size;          /* sizeof(*this) */
	uint32_t comp_mask;     /* 0 */
	char name[MARROW_MLX5_NAME_MAX]; /* in: "mlx5_0", or "" = first mlx5 device; out: opened */
	uint32_t port;          /* in: 0 = 1; out: the port used */
	int32_t gid_index;      /* in: -1 = auto (IB: 0; RoCE: a RoCE v2 GID); out: chosen */
};

/* Where the SQ, CQ and doorbell records live. */
enum marrow_mlx5_placement {
	MARROW_MLX5_QUEUES_HOST = 0, /* libmlx5's host memory; map into the GPU with marrow_cuda_map.h */
	MARROW_MLX5_QUEUES_GPU = 1,  /* DevX umem in GPU memory: marrow_mlx5_gpu_qp_create */
};

/* sizeof = 32 */
struct marrow_mlx5_qp_attr {
	uint32_t size;             /* sizeof(*this) */
	uint32_t comp_mask;        /* 0 */
	uint32_t log_sq_wqebb_cnt; /* 1..15: SQ size in WQEBBs (as on the software NIC); asked of verbs as
				    * max_send_wr = 2^n / (WQEBBs of the largest WQE posted: an inline
				    * WRITE of max_inline_data), view.sq_wqe_cnt is what libmlx5 granted */
	uint32_t log_cqe_cnt;      /* 1..22: send CQ entries asked for (view.cqe_cnt may be larger) */
	uint32_t max_inline_data;  /* bytes asked for; the view reports what the provider granted */
	uint32_t access;           /* rights the peer gets: IBV_ACCESS_* 2 RW, 4 RR, 8 RA (1 LW: ignored here) */
	uint32_t placement;        /* enum marrow_mlx5_placement */
	uint32_t sq_psn;           /* start PSN of this QP's SQ (24 bits); tell the peer */
};

/*
 * What one side tells the other (docs/design/mlx5-queue-formats.md §5.3).
 * sizeof = 72.
 * marrow_mlx5_qp_local_info fills it; the peer's copy goes to
 * marrow_mlx5_qp_connect. Only qpn, psn, lid, link_layer, mtu and gid are
 * needed for the connection; rkey/addr/len describe the buffer the peer may
 * write.
 */
struct marrow_mlx5_peer_info {
	uint32_t size;        /* sizeof(*this) */
	uint32_t comp_mask;   /* 0 */
	uint32_t qpn;         /* 24 bits */
	uint32_t psn;         /* start PSN of the sender's SQ (24 bits) */
	uint32_t rkey;        /* of the buffer the peer may write */
	uint32_t lid;         /* IB LID (16 bits); 0 on RoCE */
	uint32_t port;        /* sender's port (informational) */
	uint32_t link_layer;  /* 1 InfiniBand, 2 Ethernet (RoCE) */
	uint32_t mtu;         /* sender's active MTU, enum ibv_mtu 1 (256) .. 5 (4096) */
	int32_t gid_index;    /* sender's GID index (informational) */
	uint8_t gid[16];      /* sender's GID, network order; all 0 = none */
	uint64_t addr;        /* address of that buffer in the sender's space */
	uint64_t len;         /* its length in bytes */
};

/* Connection knobs; marrow_mlx5_conn_params_default gives sane values. sizeof = 56 */
struct marrow_mlx5_conn_params {
	uint32_t size;              /* sizeof(*this) */
	uint32_t comp_mask;         /* 0 */
	uint32_t path_mtu;          /* enum ibv_mtu; 0 = min(local active, peer's) */
	uint32_t sl;                /* service level 0..15 (IB); RoCE: the Ethernet priority 0..7 */
	uint32_t traffic_class;     /* GRH traffic class 0..255 */
	uint32_t hop_limit;         /* GRH hop limit 1..255 */
	uint32_t timeout;           /* ACK timeout 4.096 us * 2^t, 1..31 (0 = wait forever: refused) */
	uint32_t retry_cnt;         /* 0..7 */
	uint32_t rnr_retry;         /* 0..7 (7 = retry forever: refused, see .c) */
	uint32_t min_rnr_timer;     /* 0..31 */
	uint32_t max_rd_atomic;     /* outstanding READ/atomic as requester: 1..the device's cap, rounded
				     * down to a power of two; 0 = the default, 16 clamped to the cap */
	uint32_t max_dest_rd_atomic;/* as responder: 1..the device's cap, as above; 0 = 16 clamped */
	uint32_t flags;             /* enum marrow_mlx5_conn_flags */
	uint32_t reserved;          /* 0 */
};

enum marrow_mlx5_conn_flags {
	/* Use a GRH on InfiniBand too (always used on RoCE, and on IB when
	 * the peer has LID 0 but a GID, e.g. behind a router). */
	MARROW_MLX5_CONN_FORCE_GRH = 1,
};

/* Fills *out with the defaults (timeout 14 = 67 ms, retry 7, rnr_retry 6,
 * path_mtu 0 = negotiated, hop_limit 64, rd_atomic 0 = 16 clamped to the
 * device's caps, as NVSHMEM's IBGDA uses 16). out->size must be set. */
MARROW_API int marrow_mlx5_conn_params_default(struct marrow_mlx5_conn_params *out);

/*
 * Opens the device (by name, or the first one the mlx5 provider drives),
 * queries the port, picks the GID and allocates a PD.
 * MARROW_ENODEV: libibverbs/libmlx5 missing or no (mlx5) device, with the
 * probe's reason; MARROW_ENOENT: no device of that name (the message lists
 * them); MARROW_EINVAL: a non-mlx5 device, a port or GID index that does
 * not exist; MARROW_EPERM: no permission on /dev/infiniband/uverbs*.
 */
MARROW_API int marrow_mlx5_device_open(struct marrow_mlx5_device_attr *attr,
				       struct marrow_mlx5_device **out);
MARROW_API int marrow_mlx5_device_close(struct marrow_mlx5_device *dev);

/* ibv_reg_mr on [addr, addr+len). access: IBV_ACCESS_* (local write implied). */
MARROW_API int marrow_mlx5_mr_reg(struct marrow_mlx5_device *dev, void *addr, uint64_t len,
				  uint32_t access, struct marrow_mlx5_mr **out,
				  uint32_t *lkey, uint32_t *rkey);
MARROW_API int marrow_mlx5_mr_dereg(struct marrow_mlx5_mr *mr);

/*
 * Creates the send CQ and an RC QP (sq_sig_all = 0, no receive queue) in
 * RESET and fills both views from mlx5dv_init_obj. view->size and
 * cq_view->size must be set by the caller.
 * qp_view: sq_buf / sq_wqe_cnt / sq_stride (64) / dbrec / qpn /
 * max_inline_data (granted); uar = bf.reg, uar_size = bf.size (0 when the
 * register takes doorbells only: store 8 bytes there all the same).
 * cq_view: flags 0 (neither collapsed nor overrun-ignore: the consumer must
 * advance dbrec word 0).
 */
MARROW_API int marrow_mlx5_qp_create(struct marrow_mlx5_device *dev,
				     const struct marrow_mlx5_qp_attr *attr,
				     struct marrow_mlx5_qp **out,
				     struct marrow_qp_view *view,
				     struct marrow_cq_view *cq_view);
/* Destroys the QP, then its CQ. */
MARROW_API int marrow_mlx5_qp_destroy(struct marrow_mlx5_qp *qp);

/* This side's half of the exchange; mr may be NULL (rkey/addr/len = 0).
 * MARROW_EIO when the port is not ACTIVE (nothing could connect). */
MARROW_API int marrow_mlx5_qp_local_info(struct marrow_mlx5_qp *qp,
					 const struct marrow_mlx5_mr *mr,
					 struct marrow_mlx5_peer_info *out);

/*
 * RESET -> INIT -> RTR -> RTS towards the peer (params NULL = defaults).
 * GRH: on RoCE always; on IB with MARROW_MLX5_CONN_FORCE_GRH or when the
 * peer has LID 0 and a GID. On failure the QP is put back into RESET (best
 * effort) so connect may be called again; the message names the step.
 */
MARROW_API int marrow_mlx5_qp_connect(struct marrow_mlx5_qp *qp,
				      const struct marrow_mlx5_peer_info *peer,
				      const struct marrow_mlx5_conn_params *params);

/*
 * Back to RESET from any state (ERR after an error CQE, say), so that
 * marrow_mlx5_qp_connect can bring the QP to RTS again: the SQ restarts at
 * WQEBB counter 0 (its doorbell record is cleared, as on a fresh QP), the
 * send CQ keeps its consumer index (its doorbell record is restored if the
 * provider rewrote it while cleaning the QP's CQEs: the poller, not the
 * provider, consumes this CQ). No WQE may be outstanding.
 */
MARROW_API int marrow_mlx5_qp_reset(struct marrow_mlx5_qp *qp);

/* Current state as the NIC sees it (ibv_query_qp): enum ibv_qp_state,
 * same values as enum marrow_qp_state (RESET 0 .. RTS 3, ERR 6). */
MARROW_API int marrow_mlx5_qp_state(struct marrow_mlx5_qp *qp, int *state);

/* ---- GPU-resident queues through DevX ----------------------------------- */

struct marrow_mlx5_gpu_qp; /* a DevX RC QP and its send CQ, queues in GPU memory */

/* Copies for a host that cannot load/store GPU memory (cudaMemcpy in
 * libmarrow_cuda): int fn(void *ctx, void *dst, const void *src, size_t n), 0 = done. */
typedef int (*marrow_mlx5_gpu_copy_fn)(void *ctx, void *dst, const void *src, size_t n);

/*
 * The caller's GPU memory for one QP. sizeof = 120. Buffers 4 KiB aligned:
 * sq >= 64 x 2^log_sq_wqebb_cnt bytes, cq >= 64 x 2^log_cqe_cnt, dbr >= 128
 * (QP DBR at 0, CQ DBR at 64). A dma-buf fd (cuMemGetHandleForAddressRange)
 * with the buffer's offset in it is used where libmlx5 has
 * mlx5dv_devx_umem_reg_ex; -1 registers the device pointer (peer memory).
 */
struct marrow_mlx5_gpu_queues {
	uint32_t size;             /* sizeof(*this) */
	uint32_t comp_mask;        /* 0 */
	uint64_t sq, sq_len;       /* device pointers and byte lengths */
	uint64_t cq, cq_len;
	uint64_t dbr, dbr_len;
	int32_t sq_dmabuf_fd, cq_dmabuf_fd, dbr_dmabuf_fd; /* -1 = none */
	uint32_t reserved;         /* 0 */
	uint64_t sq_dmabuf_offset, cq_dmabuf_offset, dbr_dmabuf_offset;
	marrow_mlx5_gpu_copy_fn to_gpu;   /* initialises the CQ ring and the DBRs */
	marrow_mlx5_gpu_copy_fn from_gpu; /* reads the DBRs back (marrow_mlx5_gpu_qp_indexes) */
	void *copy_ctx;
};

/*
 * Where a GPU QP's queue memory comes from when the library lays it out
 * itself (marrow_mlx5_gpu_qp_open). libmarrow_cuda.so fills one with
 * cudaMalloc / cudaFree / cuMemGetHandleForAddressRange / cudaMemcpy
 * (marrow_cuda_devx_mem_ops in marrow_cuda_devx.h); tests hand in host
 * memory. Every function returns 0 on success. sizeof = 56.
 */
typedef int (*marrow_mlx5_gpu_alloc_fn)(void *ctx, uint64_t len, void **gpu);
typedef int (*marrow_mlx5_gpu_free_fn)(void *ctx, void *gpu);
typedef int (*marrow_mlx5_gpu_dmabuf_fn)(void *ctx, void *gpu, uint64_t len, int32_t *fd, uint64_t *offset);

struct marrow_mlx5_gpu_mem_ops {
	uint32_t size;                       /* sizeof(*this) */
	uint32_t comp_mask;                  /* 0 */
	marrow_mlx5_gpu_alloc_fn alloc;      /* device memory, any alignment */
	marrow_mlx5_gpu_free_fn free;        /* called last, after every DevX object is gone */
	marrow_mlx5_gpu_dmabuf_fn dmabuf_fd; /* a dma-buf fd for a 4 KiB-aligned range; NULL or non-0:
					      * the umems are registered from device pointers */
	marrow_mlx5_gpu_copy_fn to_gpu;      /* as in marrow_mlx5_gpu_queues */
	marrow_mlx5_gpu_copy_fn from_gpu;
	void *ctx;
};

/* MARROW_OK when dev's context was opened with DevX and libmlx5 has every
 * DevX entry point the GPU QP needs; MARROW_ENODEV with the reason otherwise. */
MARROW_API int marrow_mlx5_devx_check(struct marrow_mlx5_device *dev);

/*
 * DevX: allocates a non-cached UAR (BlueFlame when refused: *note says so),
 * registers the three buffers as umems, creates the CQ and the QP in
 * RESET. attr as for marrow_mlx5_qp_create with placement GPU. The views
 * hold device pointers (sq_buf, dbrec, buf) and the UAR's host MMIO
 * address (view->uar: map it for kernels with marrow_cuda_host_register,
 * io_memory 1). note (may be NULL, note_len bytes) names fallbacks taken.
 * MARROW_ENODEV: no DevX (libmlx5 too old, or the device context was not
 * opened with DevX: the message says why); MARROW_EIO: a command failed
 * (status and syndrome in the message). Nothing is left behind on failure.
 */
MARROW_API int marrow_mlx5_gpu_qp_create(struct marrow_mlx5_device *dev,
					 const struct marrow_mlx5_qp_attr *attr,
					 const struct marrow_mlx5_gpu_queues *mem,
					 struct marrow_mlx5_gpu_qp **out,
					 struct marrow_qp_view *view,
					 struct marrow_cq_view *cq_view,
					 char *note, uint32_t note_len);
/*
 * As marrow_mlx5_gpu_qp_create, with the GPU memory taken from ops: one
 * allocation holds the SQ, the CQ and the doorbell records, each 4 KiB
 * aligned; one dma-buf fd covers it (closed once the umems hold it), else
 * the umems are registered from device pointers (*note says so).
 * marrow_mlx5_gpu_qp_destroy frees that memory last, after the QP, the CQ,
 * the umems and the UAR. What ops->alloc gave is freed on any failure.
 */
MARROW_API int marrow_mlx5_gpu_qp_open(struct marrow_mlx5_device *dev,
				       const struct marrow_mlx5_qp_attr *attr,
				       const struct marrow_mlx5_gpu_mem_ops *ops,
				       struct marrow_mlx5_gpu_qp **out,
				       struct marrow_qp_view *view,
				       struct marrow_cq_view *cq_view,
				       char *note, uint32_t note_len);
/* As marrow_mlx5_qp_local_info. */
MARROW_API int marrow_mlx5_gpu_qp_local_info(struct marrow_mlx5_gpu_qp *qp,
					     const struct marrow_mlx5_mr *mr,
					     struct marrow_mlx5_peer_info *out);
/* RST2INIT, INIT2RTR, RTR2RTS as DevX commands (params NULL = defaults),
 * after the same parameter checks as marrow_mlx5_qp_connect (every value
 * out of range is refused with MARROW_EINVAL, naming it and its range).
 * RoCE: the destination MAC comes from the peer's GID (link-local: its
 * interface id; otherwise an address handle the kernel resolves); sl goes
 * to the Ethernet priority, traffic_class to the traffic class and (RoCE v2)
 * the DSCP. InfiniBand with a GRH is refused (MARROW_ENOSYS): only the LID
 * path is encoded. On failure the QP is put back into RESET (best effort). */
MARROW_API int marrow_mlx5_gpu_qp_connect(struct marrow_mlx5_gpu_qp *qp,
					  const struct marrow_mlx5_peer_info *peer,
					  const struct marrow_mlx5_conn_params *params);
/*
 * Back to RESET from any state (ERR after an error CQE, say) with the
 * 2RST_QP command, so that marrow_mlx5_gpu_qp_connect brings the QP to RTS
 * again (ERR -> RST -> INIT -> RTR -> RTS, as marrow_mlx5_qp_reset does for
 * a verbs QP). The SQ restarts at WQEBB counter 0: the QP doorbell record is
 * cleared (through mem->to_gpu) and the caller's producer index must restart
 * at 0 too. The CQ is not reset: CQEs the QP left unconsumed (its error and
 * flush CQEs) are stepped over by advancing the CQ doorbell record's
 * consumer index, from which the caller resumes its own (see
 * marrow_mlx5_gpu_qp_indexes). No kernel may be using the queues meanwhile.
 * docs/design/mlx5-queue-formats.md §7.4.
 */
MARROW_API int marrow_mlx5_gpu_qp_reset(struct marrow_mlx5_gpu_qp *qp);
/* Host-side resume: SQ producer counter and CQ consumer index from the
 * doorbell records in GPU memory (through mem->from_gpu). */
MARROW_API int marrow_mlx5_gpu_qp_indexes(struct marrow_mlx5_gpu_qp *qp, uint32_t *sq_pi, uint32_t *cq_ci);
/* QP, CQ, the umems, the UAR; then, for marrow_mlx5_gpu_qp_open, the GPU
 * memory (ops->free). marrow_mlx5_gpu_qp_create's memory stays the caller's. */
MARROW_API int marrow_mlx5_gpu_qp_destroy(struct marrow_mlx5_gpu_qp *qp);

#ifdef __cplusplus
}
#endif

#endif /* MARROW_MLX5_H */
