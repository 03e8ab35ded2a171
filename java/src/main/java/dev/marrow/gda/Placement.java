// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.internal.ffi.CEnum;

/**
 * Where the SQ, CQ and doorbell records live. Only {@link #HOST} is
 * implemented; {@link #GPU} needs DevX umem registration of GPU memory
 * (docs/design/mlx5-queue-formats.md §5.1) and is rejected with that reason.
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
