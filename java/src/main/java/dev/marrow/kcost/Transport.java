// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import dev.marrow.internal.ffi.CEnum;

/** Which communication code the caller is built with (marrow_kcost.h). */
public enum Transport implements CEnum {
    /** The kernel without communication code: the baseline. */
    NONE("none"),
    /** mini-gda: post an RDMA WRITE on the block's own QP, poll its CQE. */
    GDA("gda"),
    /** mini-proxy: enqueue a descriptor for a CPU worker, poll the ring's completion counter. */
    PROXY("proxy");

    private final String label;

    Transport(String label) {
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
        return "MARROW_KCOST_TRANSPORT_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
