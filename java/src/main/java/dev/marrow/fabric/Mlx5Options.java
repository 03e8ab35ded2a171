// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

import dev.marrow.peer.PeerAddress;

import java.time.Duration;

/**
 * What {@link Fabric#open} needs for {@link Nic#MLX5}, and the peer of a
 * two-process software-NIC session (docs/design/two-process.md).
 *
 * @param device      "mlx5_0", or "" = the first mlx5 device
 * @param port        1-based port; 0 = 1
 * @param gidIndex    -1 = automatic (IB: 0; RoCE: a RoCE v2 GID)
 * @param peer        null: one host, two QPs on this NIC connected to each other (loopback);
 *                    else the TCP rendezvous with a second host
 * @param role        with a peer: {@link PeerRole#INITIATOR} runs the experiments,
 *                    {@link PeerRole#RESPONDER} serves them; null without a peer. Either may
 *                    listen or connect: with --peer the initiator connects (the CLI checks
 *                    that), under a launcher rank 0 listens and initiates
 * @param peerTimeout bound of every wait on the peer (accept/connect, exchange, each barrier;
 *                    the responder's closing barrier waits this long for the initiator to finish)
 */
public record Mlx5Options(String device, int port, int gidIndex, PeerAddress peer, PeerRole role,
                          Duration peerTimeout) {

    public Mlx5Options {
        device = device == null ? "" : device;
        if (port < 0) {
            throw new IllegalArgumentException("port must be >= 1 (0 = 1), not " + port);
        }
        if (gidIndex < -1) {
            throw new IllegalArgumentException("--gid-index must be >= 0 (or -1 = automatic), not " + gidIndex);
        }
        if (peerTimeout == null || peerTimeout.isNegative() || peerTimeout.isZero()) {
            throw new IllegalArgumentException("the peer timeout must be positive, not " + peerTimeout);
        }
        if (peer == null && role != null) {
            throw new IllegalArgumentException("--peer-role " + role + " needs --peer");
        }
        if (peer != null && role == null) {
            role = PeerRole.implied(peer);
        }
    }

    /** First mlx5 device, port 1, automatic GID, one host, 60 s peer timeout. */
    public static Mlx5Options defaults() {
        return new Mlx5Options("", 0, -1, null, null, Duration.ofSeconds(60));
    }

    public Mlx5Options withDevice(String name, int gid) {
        return new Mlx5Options(name, port, gid, peer, role, peerTimeout);
    }

    public Mlx5Options withPort(int p) {
        return new Mlx5Options(device, p, gidIndex, peer, role, peerTimeout);
    }

    /** role null: implied by the address ({@code :port} responder, {@code host:port} initiator); a role without an address is refused. */
    public Mlx5Options withPeer(PeerAddress p, PeerRole r) {
        return new Mlx5Options(device, port, gidIndex, p, r, peerTimeout);
    }

    public Mlx5Options withPeerTimeout(Duration t) {
        return new Mlx5Options(device, port, gidIndex, peer, role, t);
    }

    /** True when the other PE is on another host (--peer). */
    public boolean twoHost() {
        return peer != null;
    }
}
