// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.internal.ffi.CEnum;

/**
 * Where the SQ, CQ and doorbell records live. Only {@link #HOST} is
 * implemented; {@link #GPU} needs DevX umem registration of GPU memory
 * (docs/design/mlx5-formats.md §5.1) and is rejected with that reason.
 */
public enum Placement implements CEnum {
    HOST("host"), GPU("gpu");

    private final String cliName;

    Placement(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_GDA_PLACEMENT_" + name();
    }

    public static Placement parse(String s) {
        for (Placement p : values()) {
            if (p.cliName.equals(s)) {
                return p;
            }
        }
        throw new IllegalArgumentException("--placement must be host or gpu, not '" + s + "'");
    }

    @Override
    public String toString() {
        return cliName;
    }
}
