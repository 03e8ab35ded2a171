// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.internal.ffi.CEnum;

/** GPU-to-CPU handoff protocol of the mini-proxy (enum marrow_proxy_handoff); values from libmarrow_host.so. */
public enum Handoff implements CEnum {
    /** Atomic slot reservation, progress read from host memory every time, system-scope release publish. */
    BASELINE,
    /** One producer per ring, cached progress, validity in the descriptor: one 16-byte store. */
    TUNED;

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_PROXY_" + name();
    }

    public String label() {
        return name().toLowerCase();
    }

}
