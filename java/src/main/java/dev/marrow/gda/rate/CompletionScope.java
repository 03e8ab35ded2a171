// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.internal.ffi.CEnum;

/** What a quiet completes (enum marrow_gda_rate_scope): every configured QP, the QPs used since the last quiet, one named QP, or a signal round trip through a peer. */
public enum CompletionScope implements CEnum {
    ALL_QP("all-qp"), USED_QP("used-qp"), PER_QP("per-qp"), SIGNAL("signal");

    private final String label;

    CompletionScope(String label) {
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
        return "MARROW_GDA_RATE_SCOPE_" + name();
    }

    @Override
    public String toString() {
        return label;
    }
}
