// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

/** GPU-to-CPU handoff protocol of the mini-proxy (marrow_proxy.h). */
public enum Handoff {
    /** Atomic slot reservation, progress read from host memory every time, system-scope release publish. */
    BASELINE(0),
    /** One producer per ring, cached progress, validity in the descriptor: one 16-byte store. */
    TUNED(1);

    private final int code;

    Handoff(int code) {
        this.code = code;
    }

    int code() {
        return code;
    }

    public String label() {
        return name().toLowerCase();
    }

    public static Handoff parse(String s) {
        return switch (s.toLowerCase()) {
            case "baseline" -> BASELINE;
            case "tuned" -> TUNED;
            default -> throw new IllegalArgumentException("handoff must be baseline or tuned, not '" + s + "'");
        };
    }
}
