// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

/** How the WRITE carries its bytes: inside the WQE, or by pointer to a registered buffer. */
public enum Payload {
    INLINE("inline", 0), POINTER("pointer", 1);

    private final String cliName;
    private final int code;

    Payload(String cliName, int code) {
        this.cliName = cliName;
        this.code = code;
    }

    public String cliName() {
        return cliName;
    }

    public int code() {
        return code;
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
