// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.internal.ffi.CEnum;

/** How the WRITE carries its bytes: inside the WQE, or by pointer to a registered buffer. */
public enum Payload implements CEnum {
    INLINE("inline"), POINTER("pointer");

    private final String cliName;

    Payload(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_GDA_PAYLOAD_" + name();
    }

    public static Payload parse(String s) {
        for (Payload p : values()) {
            if (p.cliName.equals(s)) {
                return p;
            }
        }
        throw new IllegalArgumentException("--payload must be inline or pointer, not '" + s + "'");
    }

    @Override
    public String toString() {
        return cliName;
    }
}
