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
    ROUND_TRIP("round-trip", "rtt"),
    /** Doorbell store to the first observation of the valid CQE (not yet consumed). */
    DB2CQE("doorbell-to-cqe", "db2cqe");

    private final String label;
    private final String metricPrefix;

    Experiment(String label, String metricPrefix) {
        this.label = label;
        this.metricPrefix = metricPrefix;
    }

    /** The name results and messages use (the CLI accepts the same word). */
    public String label() {
        return label;
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

    @Override
    public String toString() {
        return label;
    }
}
