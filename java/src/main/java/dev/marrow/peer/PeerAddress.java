// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import dev.marrow.api.MarrowException;

/**
 * The {@code --peer} argument: {@code host:port} connects to a peer that
 * listens there; {@code :port} listens on this host's loopback address only
 * (two processes of one host); {@code *:port} (also {@code 0.0.0.0:port},
 * {@code [::]:port}) listens on every interface, for a peer on another host.
 * IPv6 hosts go in brackets: {@code [fe80::1]:7000}. A launcher's rank 0
 * listens on the master address ({@link #listen}); docs/design/two-process.md
 * section 12 says why and how the listener authenticates its peer.
 *
 * @param host    connecting: the peer's host; listening: null (loopback), {@link #ANY} (every interface)
 *                or the host whose local address to bind
 * @param port    1..65535 (0 only when listening: an ephemeral port, for tests)
 * @param listens whether this side listens
 */
public record PeerAddress(String host, int port, boolean listens) {
    /** The listening host that stands for every interface. */
    public static final String ANY = "*";

    public PeerAddress {
        if (port < 0 || port > 65535 || (port == 0 && !listens)) {
            throw new MarrowException("--peer: port " + port + " outside 1..65535");
        }
        if (!listens && (host == null || host.isEmpty() || host.equals(ANY))) {
            throw new MarrowException("--peer: a connecting side needs a host, not '" + host + "'");
        }
    }

    /** A null host listens (on loopback); any other connects. */
    public PeerAddress(String host, int port) {
        this(host, port, host == null);
    }

    /** Listens on host's local address (null: loopback; {@link #ANY}: every interface). */
    public static PeerAddress listen(String host, int port) {
        return new PeerAddress(host, port, true);
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
        if (host.equals(ANY) || host.equals("0.0.0.0") || host.equals("::")) {
            return listen(ANY, port); // nobody connects to the wildcard: it can only mean "listen everywhere"
        }
        return new PeerAddress(host.isEmpty() ? null : host, port);
    }

    private static MarrowException bad(String spec) {
        return new MarrowException("--peer expects host:port (connect to a listening peer), :port (listen on this "
                + "host only) or *:port (listen on every interface), got '" + spec + "'");
    }

    @Override
    public String toString() {
        if (listens && (host == null || host.equals(ANY))) {
            return (host == null ? "" : ANY) + ":" + port;
        }
        String hp = (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        return listens ? "listening on " + hp : hp;
    }
}
