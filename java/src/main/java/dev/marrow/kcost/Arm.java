// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

/**
 * One arm of the kernel-cost study. Every arm but {@link #ABSENT} runs the
 * same build (the one with the communication code), differing only in
 * kernel arguments, so its registers and spills are the same.
 */
public enum Arm {
    /** The build without communication code (the baseline). */
    ABSENT("absent", false, false),
    /** Compiled in, never executed: guarded by a zero kernel argument. */
    DORMANT("dormant", false, false),
    /** One thread per block submits; its warp computes on without waiting. */
    SEND("send-then-compute", true, false),
    /** One thread per block submits and waits for the completion before computing on. */
    SEND_WAIT("send-wait-compute", true, true);

    private final String label;
    private final boolean sends;
    private final boolean waits;

    Arm(String label, boolean sends, boolean waits) {
        this.label = label;
        this.sends = sends;
        this.waits = waits;
    }

    public String label() {
        return label;
    }

    /** True when the arm submits messages (and needs a NIC behind the transport). */
    public boolean sends() {
        return sends;
    }

    public boolean waits() {
        return waits;
    }

    @Override
    public String toString() {
        return label;
    }
}
