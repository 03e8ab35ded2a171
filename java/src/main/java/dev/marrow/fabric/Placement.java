// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

import dev.marrow.internal.ffi.CEnum;

/**
 * Where the SQ, CQ and doorbell records live. {@link #HOST}: host memory
 * (the software NIC's CPU engine, verbs QPs). {@link #GPU}: GPU memory,
 * served by the software NIC's device engine (docs/design/device-engine.md);
 * on mlx5 the QPs come from DevX with GPU memory as umems
 * (docs/design/mlx5-queue-formats.md §7), the data buffers staying in host memory.
 */
public enum Placement implements CEnum {
    HOST("host"), GPU("gpu");

    private final String label;

    Placement(String label) {
        this.label = label;
    }

    /** The name results and messages use (the CLI accepts the same word). */
    public String label() {
        return label;
    }

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_GDA_PLACEMENT_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
