// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.mlx5.PeerAddress;

/**
 * The side of a two-host mlx5 session ({@code --peer}). The initiator
 * connects to {@code host:port} and is the side that would post; the
 * responder listens on {@code :port}, exchanges, connects its QP and keeps it
 * and its inbox registered until the initiator's closing barrier.
 */
public enum PeerRole {
    INITIATOR("initiator"), RESPONDER("responder");

    private final String cliName;

    PeerRole(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /** The role an address implies when none is given: {@code :port} listens (responder), {@code host:port} connects. */
    public static PeerRole implied(PeerAddress a) {
        return a.listens() ? RESPONDER : INITIATOR;
    }

    public static PeerRole parse(String s) {
        for (PeerRole r : values()) {
            if (r.cliName.equals(s)) {
                return r;
            }
        }
        throw new IllegalArgumentException("--peer-role must be initiator or responder, not '" + s + "'");
    }

    @Override
    public String toString() {
        return cliName;
    }
}
