// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.internal.ffi.CEnum;

/** How posting threads put WQEs on a shared SQ (enum marrow_gda_rate_publication): a per-WQE lock, per-thread slot reservation with in-order ready-head publication, or warp-cooperative reservation and one doorbell per warp. */
public enum Publication implements CEnum {
    LOCK("lock"), SLOT("slot"), WARP("warp");

    private final String label;

    Publication(String label) {
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
        return "MARROW_GDA_RATE_PUB_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
