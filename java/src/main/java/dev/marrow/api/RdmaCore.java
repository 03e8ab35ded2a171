// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

/**
 * Which rdma-core the native libraries load: the host's, or the mlx5 model (a software
 * ConnectX, libmarrow_mlx5model.so). The native side reads the same variable
 * (native/src/common/marrow_rdma_core.c); docs/design/mlx5-model.md §1.
 */
public final class RdmaCore {
    /** The environment variable: unset or "system" for the host's rdma-core, "model" for the model. */
    public static final String ENV = "MARROW_RDMA_CORE";
    /** What records name as the NIC when the model served a hardware path. */
    public static final String MODEL_NIC = "mlx5-model";

    private RdmaCore() {
    }

    /** True when MARROW_RDMA_CORE=model: every "hardware" NIC path runs on the model. */
    public static boolean model() {
        return "model".equals(System.getenv(ENV));
    }
}
