// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.fabric.Placement;

/**
 * Which NIC executes the WQEs: the software NIC's CPU engine threads, the
 * GPU-resident software NIC engine (a separate build; until it is present
 * this value answers "device engine not available in this build"), or a
 * ConnectX through its mlx5 queues.
 */
public enum RateNic {
    SOFTNIC("softnic", false), SOFTNIC_DEVICE("softnic-device", false), MLX5("mlx5", true);

    private final String label;
    private final boolean hardware;

    RateNic(String label, boolean hardware) {
        this.label = label;
        this.hardware = hardware;
    }

    public String label() {
        return label;
    }

    /** Where this NIC's queues live: the device engine's in GPU memory, the others' in host memory. */
    public Placement placement() {
        return this == SOFTNIC_DEVICE ? Placement.GPU : Placement.HOST;
    }

    /** True only for a real NIC. */
    public boolean hardware() {
        return hardware;
    }

    @Override
    public String toString() {
        return label;
    }
}
