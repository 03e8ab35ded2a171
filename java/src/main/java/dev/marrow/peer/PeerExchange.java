// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import dev.marrow.api.TimeoutDump;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A minimal TCP rendezvous of two PEs ({@code --peer host:port}):
 * one side listens, the other connects; both send their {@link PeerInfo}
 * and read the other's, then meet at barriers (e.g. "both QPs are RTS"
 * before the first write). Every wait is bounded by the timeout given at
 * open; a peer that dies or sends garbage ends in {@link PeerExchangeException}.
 * One exchange per connection, used by one thread.
 *
 * <p>Before anything else the two sides prove they belong to the same job
 * (docs/design/two-process.md section 12): the connecting side's HELLO, the
 * listener's HELLO_REPLY (sent only once the HELLO's HMAC checked) and the
 * connecting side's HELLO_PROOF, keyed with the {@link JobToken}. The
 * listener drops a connection that fails this within a short bound (one
 * line on stderr naming its address) and keeps accepting until its own
 * bound; connect or accept plus the handshake share one deadline. Once a
 * wait has failed the exchange is out of step: every later wait fails at
 * once instead of waiting again (a closing barrier after a timed-out report
 * must not double the time to give up).
 */
public final class PeerExchange implements AutoCloseable {
    /** The handshake of one connection may take a quarter of the accept bound, within these limits. */
    static final Duration HANDSHAKE_MAX = Duration.ofSeconds(3);
    static final Duration HANDSHAKE_MIN = Duration.ofMillis(250);
    private static final String MAC = "HmacSHA256";

    private final Socket socket;
    private final String peerName;
    /** Pushback: {@link #peerClosed} may read one byte of a frame that is already there. */
    private final PushbackInputStream in;
    private final OutputStream out;
    private int barrierSeq;
    private String lastSent = "the handshake";
    private String lastReceived = "the handshake";
    /** The first failed wait; later waits fail at once with it as the cause. */
    private PeerExchangeException failed;

    private PeerExchange(Socket socket, Duration timeout) throws IOException {
        this.socket = socket;
        this.peerName = socket.getRemoteSocketAddress().toString();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(millis(timeout));
        this.in = new PushbackInputStream(socket.getInputStream(), 1);
        this.out = socket.getOutputStream();
    }

    /** The listening half before a peer has connected; port 0 picks a free port. */
    public static final class Listener implements AutoCloseable {
        private final ServerSocket server;
        private final JobToken token;
        private final String where;
        private final boolean loopback;
        /** HELLO nonces seen: a replayed HELLO is dropped before this side answers it. */
        private final Set<String> seen = new HashSet<>();
        private Consumer<String> warn = line -> {
            System.err.println(line);
            System.err.flush();
        };

        private Listener(ServerSocket server, JobToken token) {
            this.server = server;
            this.token = token;
            InetAddress a = server.getInetAddress();
            this.loopback = a.isLoopbackAddress();
            this.where = (a.isAnyLocalAddress() ? "*" : a instanceof Inet6Address ? "[" + a.getHostAddress() + "]"
                    : a.getHostAddress()) + ":" + server.getLocalPort();
        }

        public int port() {
            return server.getLocalPort();
        }

        /** The address this side listens on (the wildcard for every interface). */
        public InetSocketAddress address() {
            return (InetSocketAddress) server.getLocalSocketAddress();
        }

        /** Where dropped connections are reported (default: one line on stderr each). */
        public Listener warnings(Consumer<String> sink) {
            this.warn = sink;
            return this;
        }

        /**
         * Waits at most timeout for a peer that completes the handshake, then
         * closes the listening socket. Connections that fail it (closed,
         * silent past the handshake bound, garbage, another job's token or
         * another version) are dropped with a warning, and the wait goes on.
         */
        public PeerExchange accept(Duration timeout) {
            long t0 = System.nanoTime();
            long deadline = t0 + timeout.toNanos();
            long handshake = Math.clamp(timeout.toNanos() / 4, HANDSHAKE_MIN.toNanos(), HANDSHAKE_MAX.toNanos());
            int dropped = 0;
            try (ServerSocket s = server) {
                for (;;) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw noPeer(timeout, t0, dropped, null);
                    }
                    s.setSoTimeout(millisAtLeastOne(left));
                    Socket c;
                    try {
                        c = s.accept();
                    } catch (SocketTimeoutException e) {
                        throw noPeer(timeout, t0, dropped, e);
                    }
                    String from = String.valueOf(c.getRemoteSocketAddress());
                    try {
                        answerHello(c, token, Math.min(deadline, System.nanoTime() + handshake), seen);
                        return new PeerExchange(c, timeout);
                    } catch (PeerExchangeException | IOException e) {
                        closeQuietly(c);
                        dropped++;
                        long rest = Math.max(0, deadline - System.nanoTime()) / 1_000_000;
                        warn.accept("marrow: warning: rendezvous on " + where + ": dropped the connection from "
                                + from + ": " + dropReason(e) + "; still waiting for the peer (" + rest
                                + " ms left)");
                    }
                }
            } catch (IOException e) {
                throw new PeerExchangeException("accepting the peer on " + where + " failed: " + e, e);
            }
        }

        private PeerExchangeException noPeer(Duration timeout, long t0, int dropped, Exception cause) {
            String hint = loopback ? "this side listens on loopback only: start the other side on this host with "
                    + "--peer " + where + ", or listen with --peer *:" + port() + " for a peer on another host"
                    : "start the other side with --peer <this-host>:" + port();
            return new PeerExchangeException("no peer connected to port " + port() + " on " + where + " within "
                    + timeout + " (" + hint + ")" + (dropped == 0 ? "" : "; " + dropped + " connection(s) failed "
                    + "the handshake and were dropped: see the warnings above")
                    + dump("connection", where, t0, timeout.toMillis()), cause);
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

    /** Listens on loopback (tests; {@code --peer :PORT}), token from the environment. */
    public static Listener bind(int port) {
        return bind(PeerAddress.listen(null, port));
    }

    /** Listens where addr says; the job token comes from the environment (created when absent). */
    public static Listener bind(PeerAddress addr) {
        return bind(addr, JobToken.resolve(System.getenv(), true, System.nanoTime()));
    }

    /**
     * Listens where addr says: a null host on loopback, {@link PeerAddress#ANY}
     * on every interface, a host name (a launcher's master address) on its
     * address that belongs to this host; when none does (e.g. a service
     * address in front of the host), on every interface, with a warning.
     */
    public static Listener bind(PeerAddress addr, JobToken token) {
        if (!addr.listens()) {
            throw new IllegalArgumentException(addr + " connects; bind needs a listening address");
        }
        InetSocketAddress at = bindAddress(addr);
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(at);
            return new Listener(s, token);
        } catch (IOException e) {
            throw new PeerExchangeException("cannot listen on " + (at.getAddress() == null ? "" : at.getAddress()
                    .getHostAddress()) + ":" + addr.port() + ": " + e.getMessage(), e);
        }
    }

    static InetSocketAddress bindAddress(PeerAddress addr) {
        if (addr.host() == null) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), addr.port());
        }
        if (addr.host().equals(PeerAddress.ANY)) {
            return new InetSocketAddress(addr.port());
        }
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(addr.host());
        } catch (UnknownHostException e) {
            throw new PeerExchangeException("cannot resolve " + addr.host() + ", the master address this side "
                    + "(rank 0) listens on: " + e.getMessage(), e);
        }
        for (InetAddress a : all) {
            if (a.isAnyLocalAddress()) {
                return new InetSocketAddress(addr.port());
            }
            if (a.isLoopbackAddress() || isLocal(a)) {
                return new InetSocketAddress(a, addr.port());
            }
        }
        System.err.println("marrow: warning: the master address " + addr.host() + " (" + java.util.Arrays.stream(all)
                .map(InetAddress::getHostAddress).toList() + ") is not an address of this host: rank 0 listens on "
                + "every interface (the job token still guards the rendezvous)");
        return new InetSocketAddress(addr.port());
    }

    private static boolean isLocal(InetAddress a) {
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** Connects, token from the environment (waiting for its file within the timeout). */
    public static PeerExchange connect(String host, int port, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        JobToken token;
        try {
            token = JobToken.resolve(System.getenv(), false, deadline);
        } catch (JobToken.Missing e) { // most likely nobody listens yet: say it as a failed connect does
            throw new PeerExchangeException("could not connect to peer " + host + ":" + port + " within " + timeout
                    + " (is the other side running with --peer :" + port + "?): " + e.getMessage(), e);
        }
        return connect(host, port, timeout, token, deadline);
    }

    /**
     * Connects to a listening peer, retrying refused connections until the
     * deadline (the peer may start a little later), and runs the handshake
     * within the same deadline.
     */
    public static PeerExchange connect(String host, int port, Duration timeout, JobToken token) {
        return connect(host, port, timeout, token, System.nanoTime() + timeout.toNanos());
    }

    private static PeerExchange connect(String host, int port, Duration timeout, JobToken token, long deadline) {
        long t0 = deadline - timeout.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(host, port), millisAtLeastOne(deadline - System.nanoTime()));
            } catch (ConnectException e) {
                last = e;
                closeQuietly(s);
                sleep(Math.min(100, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
                continue;
            } catch (IOException e) {
                closeQuietly(s);
                if (!(e instanceof SocketTimeoutException)) {
                    throw new PeerExchangeException("cannot connect to peer " + host + ":" + port + ": " + e, e);
                }
                last = e;
                continue;
            }
            try {
                sayHello(s, token, deadline, t0, timeout);
                return new PeerExchange(s, timeout);
            } catch (IOException e) {
                closeQuietly(s);
                throw new PeerExchangeException("the handshake with " + s.getRemoteSocketAddress() + " failed: " + e,
                        e);
            } catch (RuntimeException e) {
                closeQuietly(s);
                throw e;
            }
        }
        throw new PeerExchangeException("could not connect to peer " + host + ":" + port + " within " + timeout
                + " (is the other side running with --peer :" + port + " on that host, or --peer *:" + port
                + " for a peer on another host?)" + (last == null ? "" : ": " + last)
                + dump("connection", host + ":" + port, t0, timeout.toMillis()), last);
    }

    // ---- the handshake (docs/design/two-process.md section 12) --------------

    /** The connecting side: HELLO, the listener's HELLO_REPLY checked, HELLO_PROOF. */
    private static void sayHello(Socket s, JobToken token, long deadline, long t0, Duration timeout)
            throws IOException {
        String peer = String.valueOf(s.getRemoteSocketAddress());
        byte[] nc = nonce();
        OutputStream o = s.getOutputStream();
        o.write(PeerMessages.encode(PeerMessages.TYPE_HELLO, concat(nc, mac(token, "MRW5 hello", nc))));
        o.flush();
        byte[] body;
        try {
            body = PeerMessages.readFrame(bounded(s, deadline), "hello reply", PeerMessages.HELLO_MAX_BODY);
        } catch (SocketTimeoutException e) {
            throw new PeerExchangeException("no hello reply from " + peer + " within " + timeout + " (a listener "
                    + "busy with another connection, stuck, or no Marrow listener)"
                    + dump("hello reply", peer, t0, timeout.toMillis()), e);
        } catch (PeerExchangeException | SocketException e) { // EOF, or a reset: the listener dropped this side
            if (e.getCause() instanceof EOFException || e instanceof SocketException) {
                throw new PeerExchangeException("the listener at " + peer + " closed the connection during the "
                        + "handshake: it refused this side's hello (the two sides' job tokens differ: "
                        + JobToken.ENV + " or the token file, this side's from " + token.source() + "; or they run "
                        + "different Marrow versions; the listener's stderr says which)", e);
            }
            throw new PeerExchangeException(e.getMessage() + " [peer " + peer + "]", e);
        }
        byte[] p = payload(body, PeerMessages.TYPE_HELLO_REPLY, 2 * PeerMessages.HELLO_FIELD, "hello reply");
        byte[] ns = java.util.Arrays.copyOf(p, PeerMessages.HELLO_FIELD);
        byte[] theirs = java.util.Arrays.copyOfRange(p, PeerMessages.HELLO_FIELD, p.length);
        if (!MessageDigest.isEqual(theirs, mac(token, "MRW5 reply", nc, ns))) {
            throw new PeerExchangeException("the listener at " + peer + " does not know this job's token (this "
                    + "side's from " + token.source() + "): another job on that port?");
        }
        o.write(PeerMessages.encode(PeerMessages.TYPE_HELLO_PROOF, mac(token, "MRW5 proof", nc, ns)));
        o.flush();
    }

    /**
     * The connecting side's half of the handshake on a socket connected
     * elsewhere (tests that play a peer misbehaving after a valid handshake).
     */
    public static void sendHello(Socket s, JobToken token, Duration bound) throws IOException {
        sayHello(s, token, System.nanoTime() + bound.toNanos(), System.nanoTime(), bound);
    }

    /**
     * The listener's half of the handshake on a socket accepted elsewhere
     * (tests that play a peer misbehaving after a valid handshake); throws
     * when the peer fails it.
     */
    public static void answerHello(Socket c, JobToken token, Duration bound) throws IOException {
        answerHello(c, token, System.nanoTime() + bound.toNanos(), new HashSet<>());
    }

    /** Reads and checks HELLO before sending anything; then HELLO_REPLY, and HELLO_PROOF checked. */
    private static void answerHello(Socket c, JobToken token, long deadline, Set<String> seen) throws IOException {
        InputStream i = bounded(c, deadline);
        byte[] p = payload(PeerMessages.readFrame(i, "hello", PeerMessages.HELLO_MAX_BODY), PeerMessages.TYPE_HELLO,
                2 * PeerMessages.HELLO_FIELD, "hello");
        byte[] nc = java.util.Arrays.copyOf(p, PeerMessages.HELLO_FIELD);
        byte[] theirs = java.util.Arrays.copyOfRange(p, PeerMessages.HELLO_FIELD, p.length);
        if (!MessageDigest.isEqual(theirs, mac(token, "MRW5 hello", nc))) {
            throw new PeerExchangeException("its hello is not keyed with this job's token (" + token.source() + ")");
        }
        if (!seen.add(HexFormat.of().formatHex(nc))) {
            throw new PeerExchangeException("its hello replays an earlier connection's");
        }
        byte[] ns = nonce();
        OutputStream o = c.getOutputStream();
        o.write(PeerMessages.encode(PeerMessages.TYPE_HELLO_REPLY, concat(ns, mac(token, "MRW5 reply", nc, ns))));
        o.flush();
        byte[] proof = payload(PeerMessages.readFrame(i, "hello proof", PeerMessages.HELLO_MAX_BODY),
                PeerMessages.TYPE_HELLO_PROOF, PeerMessages.HELLO_FIELD, "hello proof");
        if (!MessageDigest.isEqual(proof, mac(token, "MRW5 proof", nc, ns))) {
            throw new PeerExchangeException("its hello proof is not keyed with this job's token (a replayed hello?)");
        }
    }

    private static String dropReason(Exception e) {
        if (e instanceof SocketTimeoutException) {
            return "no hello within the handshake bound";
        }
        if (e.getCause() instanceof EOFException) {
            return "it closed the connection before completing the handshake";
        }
        return e instanceof PeerExchangeException ? e.getMessage() : e.toString();
    }

    /** A frame's payload, which must be of type and exactly len bytes (magic and version checked first). */
    private static byte[] payload(byte[] body, int type, int len, String what) {
        PeerMessages.Frame f = PeerMessages.decodeFrame(body);
        if (f.type() != type || f.payload().length != len) {
            throw new PeerExchangeException("expected a " + what + " (type " + type + ", " + len + " bytes), got type "
                    + f.type() + " with " + f.payload().length + " bytes");
        }
        return f.payload();
    }

    private static byte[] mac(JobToken token, String label, byte[]... nonces) {
        try {
            Mac m = Mac.getInstance(MAC);
            m.init(new SecretKeySpec(token.key(), MAC));
            m.update(label.getBytes(StandardCharsets.US_ASCII));
            m.update(new byte[] {(byte) (PeerMessages.VERSION >>> 8), (byte) PeerMessages.VERSION});
            for (byte[] n : nonces) {
                m.update(n);
            }
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is part of every JDK", e);
        }
    }

    private static byte[] nonce() {
        byte[] n = new byte[PeerMessages.HELLO_FIELD];
        RANDOM.nextBytes(n);
        return n;
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** The socket's stream with every read bounded by what is left until deadline (a drip-feeding peer too). */
    private static InputStream bounded(Socket s, long deadline) throws IOException {
        InputStream raw = s.getInputStream();
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] b = new byte[1];
                return read(b, 0, 1) < 0 ? -1 : b[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SocketTimeoutException("handshake bound passed");
                }
                s.setSoTimeout(millisAtLeastOne(left));
                return raw.read(b, off, len);
            }
        };
    }

    /** Listens or connects as the address says; the job token comes from the environment. */
    public static PeerExchange open(PeerAddress addr, Duration timeout) {
        if (addr.listens()) {
            return bind(addr).accept(timeout);
        }
        return connect(addr.host(), addr.port(), timeout);
    }

    /** As above with a token in hand. */
    public static PeerExchange open(PeerAddress addr, Duration timeout, JobToken token) {
        if (addr.listens()) {
            return bind(addr, token).accept(timeout);
        }
        return connect(addr.host(), addr.port(), timeout, token);
    }

    /** Sends ours, returns theirs. */
    public PeerInfo exchange(PeerInfo mine) {
        send(PeerMessages.encodeInfo(mine), "peer info");
        byte[] theirs = receive("peer info");
        try {
            return PeerMessages.decodeInfo(theirs);
        } catch (PeerExchangeException e) {
            throw fail(e);
        }
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
            throw fail(new PeerExchangeException("peer " + peerName + " is at barrier " + theirs + ", this side at "
                    + seq + " (the two sides are out of step)"));
        }
    }

    /** Sends one message of the given type (e.g. a run control above the exchange); payload without header. */
    public void sendMessage(int type, byte[] payload, String what) {
        send(PeerMessages.encode(type, payload), what);
    }

    /** Receives one message that must be of the given type; returns its payload. */
    public byte[] receiveMessage(int type, String what) {
        PeerMessages.Frame f = receiveAny(what);
        if (f.type() != type) {
            throw fail(new PeerExchangeException("expected a " + what + " (type " + type + ") from " + peerName
                    + ", got type " + f.type() + " (the two sides are out of step)"));
        }
        return f.payload();
    }

    /** Receives the next message, whatever its type (magic and version checked). */
    public PeerMessages.Frame receiveAny(String what) {
        byte[] body = receive(what);
        try {
            return PeerMessages.decodeFrame(body);
        } catch (PeerExchangeException e) {
            throw fail(new PeerExchangeException(e.getMessage() + " [peer " + peerName + "]", e));
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
            throw fail(new PeerExchangeException("peer " + peerName + " is at barrier " + theirs + ", this side at "
                    + seq + " (the two sides are out of step)"));
        }
        send(PeerMessages.encodeBarrier(seq), "barrier " + seq);
    }

    private void send(byte[] frame, String what) {
        checkUsable(what);
        try {
            out.write(frame);
            out.flush();
            lastSent = what;
        } catch (IOException e) {
            throw fail(new PeerExchangeException("sending the " + what + " to " + peerName + " failed (peer gone?): "
                    + e + " [" + steps() + "]", e));
        }
    }

    private byte[] receive(String what) {
        checkUsable(what);
        long t0 = System.nanoTime();
        try {
            byte[] b = PeerMessages.readFrame(in, what);
            lastReceived = what;
            return b;
        } catch (SocketTimeoutException e) {
            throw fail(new PeerExchangeException("no " + what + " from " + peerName + " within "
                    + Duration.ofMillis(soTimeout()) + " (peer stuck or dead?) [" + steps() + "]"
                    + dump(what, peerName, t0, soTimeout()), e));
        } catch (PeerExchangeException e) {
            throw fail(new PeerExchangeException(e.getMessage() + " [peer " + peerName + "; " + steps() + "]", e));
        } catch (IOException e) {
            throw fail(new PeerExchangeException("reading the " + what + " from " + peerName + " failed: " + e
                    + " [" + steps() + "]", e));
        }
    }

    /** The last step each side is known to have reached, for the message of a failed wait. */
    private String steps() {
        return "last received: " + lastReceived + "; last sent: " + lastSent;
    }

    private PeerExchangeException fail(PeerExchangeException e) {
        if (failed == null) {
            failed = e;
        }
        return e;
    }

    /** After a failed wait the two sides are out of step: fail at once, do not wait a second time. */
    private void checkUsable(String what) {
        if (failed != null) {
            throw new PeerExchangeException("not waiting for the " + what + ": the exchange with " + peerName
                    + " already failed (" + firstLine(failed.getMessage()) + ")", failed);
        }
    }

    private static String firstLine(String m) {
        int nl = m == null ? -1 : m.indexOf('\n');
        return nl < 0 ? String.valueOf(m) : m.substring(0, nl);
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

    /**
     * Whether the peer has closed or reset the connection, looked at without
     * waiting for it (1 ms): a caller whose own work failed (a transport
     * error CQE) can say that the peer process is gone. A byte already there
     * stays unread. False while the peer is alive but silent, and when its
     * host vanished without closing (no FIN arrives).
     */
    public boolean peerClosed() {
        try {
            int was = socket.getSoTimeout();
            try {
                socket.setSoTimeout(1);
                int b = in.read();
                if (b < 0) {
                    return true;
                }
                in.unread(b);
                return false;
            } catch (SocketTimeoutException alive) {
                return false;
            } finally {
                socket.setSoTimeout(was);
            }
        } catch (IOException e) { // reset, or the socket is closed
            return true;
        }
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static int millisAtLeastOne(long nanos) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, nanos / 1_000_000));
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
