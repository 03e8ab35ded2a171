// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

/**
 * Where the SQ, CQ and doorbell records live. Only {@link #HOST} is
 * implemented; {@link #GPU} needs DevX umem registration of GPU memory
 * (mlx5-formats.md §6.1) and is rejected with that reason.
 */
public enum Placement {
    HOST("host", 0), GPU("gpu", 1);

    private final String cliName;
    private final int code;

    Placement(String cliName, int code) {
        this.cliName = cliName;
        this.code = code;
    }

    public String cliName() {
        return cliName;
    }

    public int code() {
        return code;
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
