// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.api.TimeoutDump;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A minimal TCP rendezvous of two PEs (mini-gda {@code --peer host:port}):
 * one side listens, the other connects; both send their {@link PeerInfo}
 * and read the other's, then meet at barriers (e.g. "both QPs are RTS"
 * before the first write). Every wait is bounded by the timeout given at
 * open; a peer that dies or sends garbage ends in {@link PeerExchangeException}.
 * One exchange per connection, used by one thread.
 */
public final class PeerExchange implements AutoCloseable {
    private final Socket socket;
    private final String peerName;
    private final InputStream in;
    private final OutputStream out;
    private int barrierSeq;

    private PeerExchange(Socket socket, Duration timeout) throws IOException {
        this.socket = socket;
        this.peerName = socket.getRemoteSocketAddress().toString();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(millis(timeout));
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** The listening half before a peer has connected; port 0 picks a free port. */
    public static final class Listener implements AutoCloseable {
        private final ServerSocket server;

        private Listener(ServerSocket server) {
            this.server = server;
        }

        public int port() {
            return server.getLocalPort();
        }

        /** Waits at most timeout for the peer, then closes the listening socket. */
        public PeerExchange accept(Duration timeout) {
            long t0 = System.nanoTime();
            try (ServerSocket s = server) {
                s.setSoTimeout(millis(timeout));
                return new PeerExchange(s.accept(), timeout);
            } catch (SocketTimeoutException e) {
                throw new PeerExchangeException("no peer connected to port " + port() + " within " + timeout
                        + " (start the other side with --peer <this-host>:" + port() + ")"
                        + dump("connection", ":" + port(), t0, timeout.toMillis()), e);
            } catch (IOException e) {
                throw new PeerExchangeException("accepting the peer on port " + port() + " failed: " + e, e);
            }
        }

        @Override
        public void close() {
            try {
                server.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
    }

    public static Listener bind(int port) {
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(port));
            return new Listener(s);
        } catch (IOException e) {
            throw new PeerExchangeException("cannot listen on port " + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * Connects to a listening peer, retrying refused connections until the
     * deadline (the peer may start a little later).
     */
    public static PeerExchange connect(String host, int port, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            Socket s = new Socket();
            try {
                int left = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (deadline - System.nanoTime()) / 1_000_000));
                s.connect(new InetSocketAddress(host, port), left);
                return new PeerExchange(s, timeout);
            } catch (ConnectException e) {
                last = e;
                closeQuietly(s);
                sleep(Math.min(100, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            } catch (IOException e) {
                closeQuietly(s);
                if (!(e instanceof SocketTimeoutException)) {
                    throw new PeerExchangeException("cannot connect to peer " + host + ":" + port + ": " + e, e);
                }
                last = e;
            }
        }
        throw new PeerExchangeException("could not connect to peer " + host + ":" + port + " within " + timeout
                + " (is the other side running with --peer :" + port + "?)" + (last == null ? "" : ": " + last)
                + dump("connection", host + ":" + port, deadline - timeout.toNanos(), timeout.toMillis()), last);
    }

    /** Listens or connects as the address says. */
    public static PeerExchange open(PeerAddress addr, Duration timeout) {
        if (addr.listens()) {
            return bind(addr.port()).accept(timeout);
        }
        return connect(addr.host(), addr.port(), timeout);
    }

    /** Sends ours, returns theirs. */
    public PeerInfo exchange(PeerInfo mine) {
        send(PeerMessages.encodeInfo(mine), "peer info");
        return PeerMessages.decodeInfo(receive("peer info"));
    }

    /** Sends a UTF-8 text message of the given type, returns the peer's message of the same type. */
    public String exchangeText(int type, String mine, String what) {
        sendMessage(type, mine.getBytes(java.nio.charset.StandardCharsets.UTF_8), what);
        byte[] theirs = receiveMessage(type, what);
        return new String(theirs, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Returns once the peer has reached its matching barrier. */
    public void barrier() {
        int seq = ++barrierSeq;
        send(PeerMessages.encodeBarrier(seq), "barrier " + seq);
        int theirs = PeerMessages.decodeBarrier(receive("barrier " + seq));
        if (theirs != seq) {
            throw new PeerExchangeException("peer is at barrier " + theirs + ", this side at " + seq
                    + " (the two sides are out of step)");
        }
    }

    /** Sends one message of the given type (e.g. the mini-gda run control); payload without header. */
    public void sendMessage(int type, byte[] payload, String what) {
        send(PeerMessages.encode(type, payload), what);
    }

    /** Receives one message that must be of the given type; returns its payload. */
    public byte[] receiveMessage(int type, String what) {
        PeerMessages.Frame f = receiveAny(what);
        if (f.type() != type) {
            throw new PeerExchangeException("expected a " + what + " (type " + type + ") from " + peerName
                    + ", got type " + f.type() + " (the two sides are out of step)");
        }
        return f.payload();
    }

    /** Receives the next message, whatever its type (magic and version checked). */
    public PeerMessages.Frame receiveAny(String what) {
        byte[] body = receive(what);
        try {
            return PeerMessages.decodeFrame(body);
        } catch (PeerExchangeException e) {
            throw new PeerExchangeException(e.getMessage() + " [peer " + peerName + "]", e);
        }
    }

    /**
     * The other half of {@link #barrier()} when this side received the
     * peer's BARRIER frame through {@link #receiveAny} (e.g. a responder
     * waiting for "the next run or the end"): checks its sequence and answers.
     */
    public void answerBarrier(PeerMessages.Frame f) {
        if (f.type() != PeerMessages.TYPE_BARRIER) {
            throw new IllegalArgumentException("not a barrier: type " + f.type());
        }
        int seq = ++barrierSeq;
        byte[] body = PeerMessages.encode(PeerMessages.TYPE_BARRIER, f.payload());
        int theirs = PeerMessages.decodeBarrier(java.util.Arrays.copyOfRange(body, 4, body.length));
        if (theirs != seq) {
            throw new PeerExchangeException("peer is at barrier " + theirs + ", this side at " + seq
                    + " (the two sides are out of step)");
        }
        send(PeerMessages.encodeBarrier(seq), "barrier " + seq);
    }

    private void send(byte[] frame, String what) {
        try {
            out.write(frame);
            out.flush();
        } catch (IOException e) {
            throw new PeerExchangeException("sending the " + what + " to " + peerName + " failed (peer gone?): " + e, e);
        }
    }

    private byte[] receive(String what) {
        long t0 = System.nanoTime();
        try {
            return PeerMessages.readFrame(in, what);
        } catch (SocketTimeoutException e) {
            throw new PeerExchangeException("no " + what + " from " + peerName + " within "
                    + Duration.ofMillis(soTimeout()) + " (peer stuck or dead?)"
                    + dump(what, peerName, t0, soTimeout()), e);
        } catch (PeerExchangeException e) {
            throw new PeerExchangeException(e.getMessage() + " [peer " + peerName + "]", e);
        } catch (IOException e) {
            throw new PeerExchangeException("reading the " + what + " from " + peerName + " failed: " + e, e);
        }
    }

    /**
     * The watchdog dump of a protocol wait (docs/design/watchdog.md): what
     * was awaited from which peer, how long it took against the bound.
     */
    private static String dump(String waitedFor, String peer, long t0, long boundMs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("waited_for", waitedFor);
        m.put("peer", peer);
        m.put("elapsed_ms", (System.nanoTime() - t0) / 1_000_000);
        m.put("bound_ms", boundMs);
        return TimeoutDump.format(m);
    }

    private int soTimeout() {
        try {
            return socket.getSoTimeout();
        } catch (IOException e) {
            return -1;
        }
    }

    public String peerName() {
        return peerName;
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static int millis(Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("peer exchange timeout must be positive, got " + d);
        }
        return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PeerExchangeException("interrupted while waiting for the peer", e);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing on an error path: the first error is the one to report
        }
    }
}
