/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * Layout table of libmarrow_verbs.so, read by Java through marrow_abi_query.
 */
#include "common/marrow_common.h"
#include "marrow/marrow_verbs.h"
#include "marrow/marrow_mlx5.h"

/* Frozen sizes: a change here is an ABI change (bump MARROW_ABI_VERSION). */
_Static_assert(sizeof(struct marrow_verbs_probe_info) == 664, "probe_info layout");
_Static_assert(sizeof(struct marrow_verbs_device_info) == 176, "device_info layout");
_Static_assert(sizeof(struct marrow_mlx5_device_attr) == 80, "mlx5 device_attr layout");
_Static_assert(sizeof(struct marrow_mlx5_qp_attr) == 32, "mlx5 qp_attr layout");
_Static_assert(sizeof(struct marrow_mlx5_peer_info) == 72, "mlx5 peer_info layout");
_Static_assert(sizeof(struct marrow_mlx5_conn_params) == 56, "mlx5 conn_params layout");
_Static_assert(sizeof(struct marrow_mlx5_gpu_queues) == 120, "mlx5 gpu_queues layout");
_Static_assert(sizeof(struct marrow_mlx5_gpu_mem_ops) == 56, "mlx5 gpu_mem_ops layout");

const struct marrow_abi_entry marrow_abi_table[] = {
	MARROW_ABI_SIZEOF(marrow_verbs_probe_info),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, size),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libibverbs_loaded),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libmlx5_loaded),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, device_count),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, mlx5_device_count),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, first_device),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libibverbs_path),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libibverbs_version),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libmlx5_path),
	MARROW_ABI_OFFSETOF(marrow_verbs_probe_info, libmlx5_version),

	MARROW_ABI_SIZEOF(marrow_verbs_device_info),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, size),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, node_guid),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, name),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, fw_ver),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, vendor_id),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, vendor_part_id),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, is_mlx5),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, phys_port_cnt),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, port1_state),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, port1_link_layer),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, port1_active_mtu),
	MARROW_ABI_OFFSETOF(marrow_verbs_device_info, port1_lid),

	/* marrow_mlx5.h, and the softnic views it fills */
	MARROW_ABI_SIZEOF(marrow_mlx5_device_attr),
	MARROW_ABI_OFFSETOF(marrow_mlx5_device_attr, size),
	MARROW_ABI_OFFSETOF(marrow_mlx5_device_attr, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_mlx5_device_attr, name),
	MARROW_ABI_OFFSETOF(marrow_mlx5_device_attr, port),
	MARROW_ABI_OFFSETOF(marrow_mlx5_device_attr, gid_index),

	MARROW_ABI_SIZEOF(marrow_mlx5_qp_attr),
	MARROW_ABI_OFFSETOF(marrow_mlx5_qp_attr, size),
	MARROW_ABI_OFFSETOF(marrow_mlx5_qp_attr, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_mlx5_qp_attr, log_sq_wqebb_cnt),
	MARROW_ABI_OFFSETOF(marrow_mlx5_qp_attr, log_cqe_cnt),
	MARROW_ABI_OFFSETOF(marrow_mlx5_qp_attr, max_inline_data),
	MARROW_ABI_OFFSETOF(marrow_mlx5_qp_attr, access),
	MARROW_ABI_OFFSETOF(marrow_mlx5_qp_attr, placement),
	MARROW_ABI_OFFSETOF(marrow_mlx5_qp_attr, sq_psn),

	MARROW_ABI_SIZEOF(marrow_mlx5_gpu_queues),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, size),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, sq),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, sq_len),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, cq),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, cq_len),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, dbr),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, dbr_len),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, sq_dmabuf_fd),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, cq_dmabuf_fd),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, dbr_dmabuf_fd),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, reserved),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, sq_dmabuf_offset),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, cq_dmabuf_offset),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, dbr_dmabuf_offset),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, to_gpu),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, from_gpu),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_queues, copy_ctx),

	MARROW_ABI_SIZEOF(marrow_mlx5_gpu_mem_ops),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_mem_ops, size),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_mem_ops, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_mem_ops, alloc),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_mem_ops, free),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_mem_ops, dmabuf_fd),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_mem_ops, to_gpu),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_mem_ops, from_gpu),
	MARROW_ABI_OFFSETOF(marrow_mlx5_gpu_mem_ops, ctx),

	MARROW_ABI_SIZEOF(marrow_mlx5_peer_info),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, size),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, qpn),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, psn),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, rkey),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, lid),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, port),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, link_layer),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, mtu),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, gid_index),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, gid),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, addr),
	MARROW_ABI_OFFSETOF(marrow_mlx5_peer_info, len),

	MARROW_ABI_SIZEOF(marrow_mlx5_conn_params),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, size),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, path_mtu),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, sl),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, traffic_class),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, hop_limit),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, timeout),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, retry_cnt),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, rnr_retry),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, min_rnr_timer),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, max_rd_atomic),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, max_dest_rd_atomic),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, flags),
	MARROW_ABI_OFFSETOF(marrow_mlx5_conn_params, reserved),

	MARROW_ABI_SIZEOF(marrow_qp_view),
	MARROW_ABI_OFFSETOF(marrow_qp_view, size),
	MARROW_ABI_OFFSETOF(marrow_qp_view, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_qp_view, qpn),
	MARROW_ABI_OFFSETOF(marrow_qp_view, sq_wqe_cnt),
	MARROW_ABI_OFFSETOF(marrow_qp_view, sq_stride),
	MARROW_ABI_OFFSETOF(marrow_qp_view, rq_wqe_cnt),
	MARROW_ABI_OFFSETOF(marrow_qp_view, rq_stride),
	MARROW_ABI_OFFSETOF(marrow_qp_view, max_inline_data),
	MARROW_ABI_OFFSETOF(marrow_qp_view, sq_buf),
	MARROW_ABI_OFFSETOF(marrow_qp_view, rq_buf),
	MARROW_ABI_OFFSETOF(marrow_qp_view, dbrec),
	MARROW_ABI_OFFSETOF(marrow_qp_view, uar),
	MARROW_ABI_OFFSETOF(marrow_qp_view, uar_size),

	MARROW_ABI_SIZEOF(marrow_cq_view),
	MARROW_ABI_OFFSETOF(marrow_cq_view, size),
	MARROW_ABI_OFFSETOF(marrow_cq_view, comp_mask),
	MARROW_ABI_OFFSETOF(marrow_cq_view, cqn),
	MARROW_ABI_OFFSETOF(marrow_cq_view, cqe_cnt),
	MARROW_ABI_OFFSETOF(marrow_cq_view, cqe_size),
	MARROW_ABI_OFFSETOF(marrow_cq_view, flags),
	MARROW_ABI_OFFSETOF(marrow_cq_view, buf),
	MARROW_ABI_OFFSETOF(marrow_cq_view, dbrec),

	/* enum values Java uses */
	MARROW_ABI_CONST(MARROW_MLX5_QUEUES_HOST),
	MARROW_ABI_CONST(MARROW_MLX5_QUEUES_GPU),
	MARROW_ABI_CONST(MARROW_MLX5_CONN_FORCE_GRH),
	MARROW_ABI_CONST(MARROW_QPS_RESET),
	MARROW_ABI_CONST(MARROW_QPS_INIT),
	MARROW_ABI_CONST(MARROW_QPS_RTR),
	MARROW_ABI_CONST(MARROW_QPS_RTS),
	MARROW_ABI_CONST(MARROW_QPS_ERR),
	MARROW_ABI_END
};
