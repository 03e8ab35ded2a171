// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.internal.ffi.CEnum;

/**
 * What one sample measures ("GPU-Initiated Communication: Dissecting Down to the Bone", §4.1). Every experiment runs one thread
 * with at most one outstanding put; marrow_gda.h says exactly where each
 * sample starts and ends.
 */
public enum Experiment implements CEnum {
    /** WQE construction to the doorbell store. */
    ISSUE("issue", "issue"),
    /** WQE construction to the CQE polled and consumed. */
    PUT_COMPLETION("put+completion", "putc"),
    /** WQE construction to the peer's write-back of the data word seen. */
    ROUND_TRIP("round-trip", "rtt");

    private final String cliName;
    private final String metricPrefix;

    Experiment(String cliName, String metricPrefix) {
        this.cliName = cliName;
        this.metricPrefix = metricPrefix;
    }

    public String cliName() {
        return cliName;
    }

    /** Prefix of this experiment's metrics in result records (issue_p50_ns, putc_p50_ns, rtt_p50_ns). */
    public String metricPrefix() {
        return metricPrefix;
    }

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_GDA_EXP_" + name();
    }

    public static Experiment parse(String s) {
        for (Experiment e : values()) {
            if (e.cliName.equals(s) || e.metricPrefix.equals(s)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown experiment '" + s + "'; one of issue, putc (put+completion), rtt (round-trip)");
    }

    @Override
    public String toString() {
        return cliName;
    }
}
