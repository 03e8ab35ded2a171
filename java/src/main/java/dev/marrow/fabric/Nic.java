// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

/** Who owns the queues: the software NIC (emulated) or a ConnectX through verbs/mlx5dv. */
public enum Nic {
    SOFTNIC("softnic", false), MLX5("mlx5", true);

    private final String label;
    private final boolean hardware;

    Nic(String label, boolean hardware) {
        this.label = label;
        this.hardware = hardware;
    }

    /** The label of the software NIC's device engine (this NIC with placement gpu). */
    public static final String SOFTNIC_DEVICE_LABEL = "softnic-device";

    /** The NIC as results name it with queues placed at p: the device engine is "softnic-device". */
    public String label(Placement p) {
        return this == SOFTNIC && p == Placement.GPU ? SOFTNIC_DEVICE_LABEL : label;
    }

    /** The name results and messages use (the CLI accepts the same word). */
    public String label() {
        return label;
    }

    /** False for the emulator: results are labelled "hardware": false. */
    public boolean hardware() {
        return hardware;
    }

    @Override
    public String toString() {
        return label;
    }
}
