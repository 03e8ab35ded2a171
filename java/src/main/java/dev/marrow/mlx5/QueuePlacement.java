// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

/** Where a hardware QP's SQ, CQ and doorbell records live (enum marrow_mlx5_placement). */
public enum QueuePlacement {
    /** libmlx5's host memory, mapped into the GPU with {@link GpuMapping}. */
    HOST(0),
    /** GPU memory through DevX umem: not implemented yet (the C side answers ENOSYS). */
    GPU(1);

    private final int code;

    QueuePlacement(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
