// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.internal.ffi.CEnum;

/** Which QP a posting thread uses (enum marrow_gda_rate_qp_map). */
public enum QpMapping implements CEnum {
    PER_BLOCK("block"), PER_WARP("warp"), PER_THREAD("thread"), SHARED("shared");

    private final String label;

    QpMapping(String label) {
        this.label = label;
    }

    /** The word results and the CLI use. */
    public String label() {
        return label;
    }

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_GDA_RATE_QP_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
