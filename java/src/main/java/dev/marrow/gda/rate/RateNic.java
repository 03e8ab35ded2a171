// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.fabric.Nic;

import dev.marrow.fabric.Placement;

/**
 * Which NIC executes the WQEs: the software NIC's CPU engine threads, the
 * GPU-resident software NIC engine (a separate build; until it is present
 * this value answers "device engine not available in this build"), or a
 * ConnectX through its mlx5 queues.
 */
public enum RateNic {
    SOFTNIC(Nic.SOFTNIC, Placement.HOST), SOFTNIC_DEVICE(Nic.SOFTNIC, Placement.GPU), MLX5(Nic.MLX5, Placement.HOST);

    private final String label;
    private final boolean hardware;

    /** The fabric's NIC and placement: the labels are theirs (one list, dev.marrow.fabric.Nic). */
    RateNic(Nic nic, Placement placement) {
        this.label = nic.label(placement);
        this.hardware = nic.hardware();
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
