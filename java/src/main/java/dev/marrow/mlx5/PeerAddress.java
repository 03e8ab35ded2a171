// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.api.MarrowException;

/**
 * The {@code --peer} argument: {@code host:port} connects to a peer that
 * listens there; {@code :port} listens on every interface for the peer to
 * connect. IPv6 hosts go in brackets: {@code [fe80::1]:7000}.
 *
 * @param host null when listening
 * @param port 1..65535 (0 only when listening: an ephemeral port, for tests)
 */
public record PeerAddress(String host, int port) {

    public PeerAddress {
        if (port < 0 || port > 65535 || (port == 0 && host != null)) {
            throw new MarrowException("--peer: port " + port + " outside 1..65535");
        }
    }

    public boolean listens() {
        return host == null;
    }

    public static PeerAddress parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw bad(spec);
        }
        String s = spec.strip();
        int colon = s.lastIndexOf(':');
        if (colon < 0 || colon == s.length() - 1) {
            throw bad(spec);
        }
        String host = s.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw bad(spec);
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            throw new MarrowException("--peer '" + spec + "': put an IPv6 address in brackets, e.g. [::1]:7000");
        }
        if (port < 1 || port > 65535) {
            throw new MarrowException("--peer '" + spec + "': port outside 1..65535");
        }
        return new PeerAddress(host.isEmpty() ? null : host, port);
    }

    private static MarrowException bad(String spec) {
        return new MarrowException("--peer expects host:port (connect to a listening peer) or :port (listen), got '"
                + spec + "'");
    }

    @Override
    public String toString() {
        return listens() ? ":" + port : (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
