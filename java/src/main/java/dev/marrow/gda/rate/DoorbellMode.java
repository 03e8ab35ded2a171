// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.internal.ffi.CEnum;

/** Who rings the doorbell (enum marrow_gda_rate_doorbell): the posting GPU thread, or a pinned CPU thread watching a host-visible producer index. */
public enum DoorbellMode implements CEnum {
    DEVICE("device"), HOST("host");

    private final String label;

    DoorbellMode(String label) {
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
        return "MARROW_GDA_RATE_DB_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
