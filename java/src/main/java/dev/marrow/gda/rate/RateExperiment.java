// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.internal.ffi.CEnum;

/** The two measurements of the rate suite (enum marrow_gda_rate_experiment): message rate, and the put+completion latency of a completion scope. */
public enum RateExperiment implements CEnum {
    RATE("rate"), SCOPE("scope");

    private final String label;

    RateExperiment(String label) {
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
        return "MARROW_GDA_RATE_EXP_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
