// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import dev.marrow.internal.ffi.CEnum;

/** The kernel that carries the communication code (marrow_kcost.h). */
public enum Caller implements CEnum {
    /** FMA-bound: every live value is updated in registers each step. */
    COMPUTE("compute"),
    /** Memory-bound: every live value accumulates a streamed load each step. */
    STREAM("stream");

    private final String label;

    Caller(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    @Override
    public String component() {
        return "cuda";
    }

    @Override
    public String cName() {
        return "MARROW_KCOST_CALLER_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
