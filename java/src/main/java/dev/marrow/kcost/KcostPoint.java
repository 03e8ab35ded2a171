// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

/**
 * One kernel configuration of the kernel-cost experiment: caller, live values, transport
 * build and arm, and (for the sending arms) messages per block and their
 * size. ABSENT runs the build without communication code.
 */
public record KcostPoint(Caller caller, int live, Transport transport, Arm arm, int msgs, int msgSize) {
    public KcostPoint {
        if ((arm == Arm.ABSENT) != (transport == Transport.NONE)) {
            throw new IllegalArgumentException("the absent arm is exactly the build without communication code");
        }
        if (arm.sends() != (msgs > 0)) {
            throw new IllegalArgumentException(arm.label() + " with " + msgs + " messages per block");
        }
        if (arm.sends() && msgSize < 1) {
            throw new IllegalArgumentException("message size must be >= 1, not " + msgSize);
        }
    }

    public static KcostPoint absent(Caller c, int live) {
        return new KcostPoint(c, live, Transport.NONE, Arm.ABSENT, 0, 0);
    }

    public static KcostPoint dormant(Caller c, int live, Transport t) {
        return new KcostPoint(c, live, t, Arm.DORMANT, 0, 0);
    }
}
