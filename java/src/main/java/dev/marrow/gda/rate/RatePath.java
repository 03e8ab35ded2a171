// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.internal.ffi.CEnum;

/**
 * Which posting path the rate kernels take (enum marrow_gda_rate_path; docs/design/methods.md, "mini-gda
 * message rate"): auto takes the single-poster path when every QP has one posting thread, shared always
 * the shared-state path; solo is reported only (the run took the single-poster path).
 */
public enum RatePath implements CEnum {
    AUTO("auto"), SHARED("shared"), SOLO("solo");

    private final String label;

    RatePath(String label) {
        this.label = label;
    }

    /** The word results and the CLI use. */
    public String label() {
        return label;
    }

    /** The path of a code as struct marrow_gda_rate_result reports it. */
    public static RatePath ofCode(int code) {
        RatePath p = CEnum.byCode(values(), code);
        if (p == null) {
            throw new IllegalArgumentException("unknown rate path code " + code);
        }
        return p;
    }

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_GDA_RATE_PATH_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
