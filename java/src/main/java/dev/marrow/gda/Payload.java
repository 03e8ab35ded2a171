// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.internal.ffi.CEnum;

/** How the WRITE carries its bytes: inside the WQE, or by pointer to a registered buffer. */
public enum Payload implements CEnum {
    INLINE("inline"), POINTER("pointer");

    private final String label;

    Payload(String label) {
        this.label = label;
    }

    /** The name results and messages use (the CLI accepts the same word). */
    public String label() {
        return label;
    }

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_GDA_PAYLOAD_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
