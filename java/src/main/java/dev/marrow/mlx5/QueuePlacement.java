// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.internal.ffi.CEnum;

/** Where a hardware QP's SQ, CQ and doorbell records live (enum marrow_mlx5_placement); values from libmarrow_verbs.so. */
public enum QueuePlacement implements CEnum {
    /** libmlx5's host memory, mapped into the GPU with {@link GpuMapping}. */
    HOST,
    /** GPU memory through DevX umem: created by marrow_mlx5_gpu_qp_create (marrow_mlx5_qp_create answers ENOSYS). */
    GPU;

    @Override
    public String component() {
        return "verbs";
    }

    @Override
    public String cName() {
        return "MARROW_MLX5_QUEUES_" + name();
    }
}
