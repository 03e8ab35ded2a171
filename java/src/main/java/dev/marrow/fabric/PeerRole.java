// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

import dev.marrow.peer.PeerAddress;

/**
 * The side of a two-host mlx5 session ({@code --peer}). The initiator
 * connects to {@code host:port} and is the side that would post; the
 * responder listens on {@code :port}, exchanges, connects its QP and keeps it
 * and its inbox registered until the initiator's closing barrier.
 */
public enum PeerRole {
    INITIATOR("initiator"), RESPONDER("responder");

    private final String label;

    PeerRole(String label) {
        this.label = label;
    }

    /** The name results and messages use (the CLI accepts the same word). */
    public String label() {
        return label;
    }

    /** The role an address implies when none is given: {@code :port} listens (responder), {@code host:port} connects. */
    public static PeerRole implied(PeerAddress a) {
        return a.listens() ? RESPONDER : INITIATOR;
    }

    @Override
    public String toString() {
        return label;
    }
}
