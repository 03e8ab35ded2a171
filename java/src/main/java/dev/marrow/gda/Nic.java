// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

/** Who owns the queues: the software NIC (emulated) or a ConnectX through verbs/mlx5dv. */
public enum Nic {
    SOFTNIC("softnic", false), MLX5("mlx5", true);

    private final String cliName;
    private final boolean hardware;

    Nic(String cliName, boolean hardware) {
        this.cliName = cliName;
        this.hardware = hardware;
    }

    public String cliName() {
        return cliName;
    }

    /** False for the emulator: results are labelled "hardware": false. */
    public boolean hardware() {
        return hardware;
    }

    public static Nic parse(String s) {
        for (Nic n : values()) {
            if (n.cliName.equals(s)) {
                return n;
            }
        }
        throw new IllegalArgumentException("--nic must be softnic or mlx5, not '" + s + "'");
    }

    @Override
    public String toString() {
        return cliName;
    }
}
