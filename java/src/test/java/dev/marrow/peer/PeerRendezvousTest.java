// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rendezvous as a listener on loopback meets it (docs/design/two-process.md
 * section 12): connections that are not the job's peer are dropped with one
 * warning each and give nothing away, the real peer still gets in; the
 * listener is reachable only where it was asked to listen; a frozen peer ends
 * the wait within one timeout, not two.
 */
class PeerRendezvousTest {
    static final Duration T = Duration.ofSeconds(10);
    static final Duration BOUND = Duration.ofSeconds(30);
    static final JobToken TOKEN = JobToken.random("test");

    static PeerInfo info(int qpn) {
        return PeerExchangeTest.info(qpn, 2);
    }

    /** What a rogue connection got back before the listener dropped it: must be nothing. */
    private static int bytesBack(Socket s) throws IOException {
        s.setSoTimeout(5_000);
        InputStream in = s.getInputStream();
        int n = 0;
        try {
            while (in.read() >= 0) {
                n++;
            }
        } catch (SocketException reset) {
            // a reset is also "nothing sent"
        }
        return n;
    }

    @Test
    void connectionsThatAreNotThePeerAreDroppedSilentlyAndThePeerStillGetsIn() {
        assertTimeoutPreemptively(BOUND, () -> {
            List<String> warnings = new CopyOnWriteArrayList<>();
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)
                    .warnings(warnings::add)) {
                int port = l.port();
                CompletableFuture<PeerInfo> rank0 = CompletableFuture.supplyAsync(() -> {
                    try (PeerExchange x = l.accept(T)) {
                        return x.exchange(info(0x100));
                    }
                });
                List<Integer> ports = new java.util.ArrayList<>();
                // 1. a bare connect-and-close (the fault trial's 0.07 s kill)
                try (Socket bare = new Socket("127.0.0.1", port)) {
                    ports.add(bare.getLocalPort());
                }
                // 2. garbage: an HTTP request
                try (Socket g = new Socket("127.0.0.1", port)) {
                    ports.add(g.getLocalPort());
                    g.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    g.getOutputStream().flush();
                    assertEquals(0, bytesBack(g), "the listener answered garbage");
                }
                // 3. a well-formed hello keyed with another job's token
                try (Socket w = new Socket("127.0.0.1", port)) {
                    ports.add(w.getLocalPort());
                    PeerExchangeException e = assertThrows(PeerExchangeException.class,
                            () -> PeerExchange.sendHello(w, JobToken.random("other job"), T));
                    assertTrue(e.getMessage().contains("closed the connection during the handshake")
                            && e.getMessage().contains("job tokens differ"), e.getMessage());
                }
                // 4. a hello of another exchange version (an older Marrow's first frame is its INFO)
                try (Socket v = new Socket("127.0.0.1", port)) {
                    ports.add(v.getLocalPort());
                    byte[] f = PeerMessages.encodeInfo(info(0x300));
                    f[4 + 5] = 3; // version 3
                    v.getOutputStream().write(f);
                    v.getOutputStream().flush();
                    assertEquals(0, bytesBack(v), "the listener answered an old version's INFO");
                }
                // the job's peer, after all of them
                PeerInfo got;
                try (PeerExchange x = PeerExchange.connect("127.0.0.1", port, T, TOKEN)) {
                    got = x.exchange(info(0x200));
                }
                assertEquals(info(0x100), got);
                assertEquals(info(0x200), rank0.get(10, TimeUnit.SECONDS));
                assertEquals(4, warnings.size(), String.join("\n", warnings));
                for (int i = 0; i < 4; i++) {
                    String w = warnings.get(i);
                    assertTrue(w.contains("dropped the connection from /127.0.0.1:" + ports.get(i))
                            && !w.contains("\n"), "one line naming the address: " + w);
                }
                assertTrue(warnings.get(0).contains("closed the connection"), warnings.get(0));
                assertTrue(warnings.get(1).contains("another program"), warnings.get(1));
                assertTrue(warnings.get(2).contains("not keyed with this job's token"), warnings.get(2));
                assertTrue(warnings.get(3).contains("exchange version 3"), warnings.get(3));
            }
        });
    }

    @Test
    void aSilentConnectionIsDroppedAfterTheHandshakeBoundAndThePeerStillGetsIn() {
        assertTimeoutPreemptively(BOUND, () -> {
            List<String> warnings = new CopyOnWriteArrayList<>();
            Duration timeout = Duration.ofSeconds(6); // handshake bound: a quarter, 1.5 s
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)
                    .warnings(warnings::add); Socket silent = new Socket("127.0.0.1", l.port())) {
                CompletableFuture<PeerInfo> rank0 = CompletableFuture.supplyAsync(() -> {
                    try (PeerExchange x = l.accept(timeout)) {
                        return x.exchange(info(0x100));
                    }
                });
                Thread.sleep(100);
                long t0 = System.nanoTime();
                try (PeerExchange x = PeerExchange.connect("127.0.0.1", l.port(), timeout, TOKEN)) {
                    x.exchange(info(0x200));
                }
                double s = (System.nanoTime() - t0) / 1e9;
                assertEquals(info(0x200), rank0.get(10, TimeUnit.SECONDS));
                assertTrue(s < 4.5, "the peer waited " + s + " s behind a silent connection");
                assertEquals(1, warnings.size(), String.join("\n", warnings));
                assertTrue(warnings.getFirst().contains("/127.0.0.1:" + silent.getLocalPort())
                        && warnings.getFirst().contains("no hello within"), warnings.getFirst());
                assertEquals(0, bytesBack(silent));
            }
        });
    }

    @Test
    void aListenerOnLoopbackIsNotReachableOnAnotherLocalAddress() throws Exception {
        try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
            InetSocketAddress a = l.address();
            assertEquals(InetAddress.getLoopbackAddress(), a.getAddress(), "--peer :PORT listens on loopback");
            // 127.0.0.2 is this host too (all of 127/8 is the loopback interface on Linux): a wildcard
            // listener answers there, one bound to 127.0.0.1 refuses
            try (Socket s = new Socket()) {
                assertThrows(ConnectException.class, () -> s.connect(new InetSocketAddress("127.0.0.2", l.port()),
                        2000));
            }
        }
        // a launcher's rank 0 with MASTER_ADDR=127.0.0.1 / localhost listens there, not on every interface
        for (String master : new String[] {"127.0.0.1", "localhost"}) {
            InetSocketAddress b = PeerExchange.bindAddress(PeerAddress.listen(master, 29517));
            assertTrue(b.getAddress().isLoopbackAddress(), master + " -> " + b);
        }
        assertTrue(PeerExchange.bindAddress(PeerAddress.listen(PeerAddress.ANY, 29517)).getAddress()
                .isAnyLocalAddress(), "*:PORT listens on every interface");
    }

    /** Finding 7: a peer that connects late and never speaks ends the listener within one timeout. */
    @Test
    void aPeerThatConnectsLateAndNeverSpeaksEndsTheWaitWithinTheTimeout() {
        assertTimeoutPreemptively(BOUND, () -> {
            Duration timeout = Duration.ofSeconds(1);
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)
                    .warnings(w -> { })) {
                CompletableFuture<Socket> frozen = CompletableFuture.supplyAsync(() -> {
                    try {
                        Thread.sleep(700); // connects late in the accept window, then never speaks
                        return new Socket("127.0.0.1", l.port());
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                long t0 = System.nanoTime();
                PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> {
                    try (PeerExchange x = l.accept(timeout)) {
                        x.exchange(info(0x100));
                    }
                });
                double s = (System.nanoTime() - t0) / 1e9;
                frozen.get(5, TimeUnit.SECONDS).close();
                assertTrue(s < 1.5, "gave up after " + s + " s with a 1 s timeout: " + e.getMessage());
                assertTrue(e.getMessage().contains("no peer connected"), e.getMessage());
            }
        });
    }

    /** Finding 7: after a timed-out wait the closing barrier (MiniGda.close) fails at once. */
    @Test
    void aFrozenPeerAfterTheHandshakeEndsWithinOneTimeoutIncludingTheClosingBarrier() {
        assertTimeoutPreemptively(BOUND, () -> {
            Duration timeout = Duration.ofSeconds(1);
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
                CompletableFuture<Socket> frozen = CompletableFuture.supplyAsync(() -> {
                    try {
                        Socket s = new Socket("127.0.0.1", l.port());
                        PeerExchange.sendHello(s, TOKEN, T); // a real peer, then frozen
                        return s;
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                long t0 = System.nanoTime();
                try (PeerExchange x = l.accept(timeout)) {
                    assertThrows(PeerExchangeException.class, () -> x.exchange(info(0x100)));
                    PeerExchangeException closing = assertThrows(PeerExchangeException.class, x::barrier);
                    assertTrue(closing.getMessage().contains("already failed"), closing.getMessage());
                }
                double s = (System.nanoTime() - t0) / 1e9;
                frozen.get(5, TimeUnit.SECONDS).close();
                assertTrue(s < 1.5, "gave up after " + s + " s with a 1 s timeout");
            }
        });
    }

    /** Finding 8: a peer that goes away is named with what was awaited and the last step of each side. */
    @Test
    void aPeerThatClosesIsNamedWithTheLastSteps() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
                CompletableFuture<Void> dies = CompletableFuture.runAsync(() -> {
                    try (PeerExchange x = PeerExchange.connect("127.0.0.1", l.port(), T, TOKEN)) {
                        x.exchange(info(0x200)); // then exits
                    }
                });
                try (PeerExchange x = l.accept(T)) {
                    x.exchange(info(0x100));
                    dies.get(5, TimeUnit.SECONDS);
                    PeerExchangeException e = assertThrows(PeerExchangeException.class, x::barrier);
                    String m = e.getMessage();
                    assertTrue(m.contains("closed the connection") && m.contains("barrier 1")
                            && m.contains(x.peerName()) && m.contains("last received: peer info")
                            && m.contains("last sent: barrier 1"), m);
                }
            }
        });
    }

    @Test
    void peerClosedLooksWithoutWaitingAndLosesNoByte() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
                CompletableFuture<PeerExchange> other = CompletableFuture.supplyAsync(
                        () -> PeerExchange.connect("127.0.0.1", l.port(), T, TOKEN));
                try (PeerExchange x = l.accept(T)) {
                    PeerExchange o = other.get(10, TimeUnit.SECONDS);
                    long t0 = System.nanoTime();
                    assertTrue(!x.peerClosed(), "alive and silent");
                    assertTrue(System.nanoTime() - t0 < 1_000_000_000L);
                    o.sendMessage(PeerMessages.TYPE_WIRE, "w".getBytes(StandardCharsets.UTF_8), "wire name");
                    Thread.sleep(100);
                    assertTrue(!x.peerClosed(), "a frame waiting to be read");
                    assertEquals("w", new String(x.receiveMessage(PeerMessages.TYPE_WIRE, "wire name"),
                            StandardCharsets.UTF_8), "the probe lost a byte of the frame");
                    o.close();
                    long end = System.nanoTime() + 5_000_000_000L;
                    while (!x.peerClosed() && System.nanoTime() < end) {
                        Thread.sleep(20);
                    }
                    assertTrue(x.peerClosed(), "closed");
                }
            }
        });
    }

    @Test
    void theHandshakeNeverCarriesTheToken() throws Exception {
        byte[] key = "a-job-token-that-must-not-travel".getBytes(StandardCharsets.UTF_8);
        JobToken t = JobToken.of(key, "test");
        List<byte[]> sent = Collections.synchronizedList(new java.util.ArrayList<>());
        try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), t)) {
            CompletableFuture<PeerExchange> rank0 = CompletableFuture.supplyAsync(() -> l.accept(T));
            try (Socket s = new Socket("127.0.0.1", l.port())) {
                OutputStream o = s.getOutputStream();
                Socket spy = new Socket() { // records what the connecting side writes
                    @Override
                    public OutputStream getOutputStream() {
                        return new OutputStream() {
                            @Override
                            public void write(int b) throws IOException {
                                write(new byte[] {(byte) b}, 0, 1);
                            }

                            @Override
                            public void write(byte[] b, int off, int len) throws IOException {
                                sent.add(java.util.Arrays.copyOfRange(b, off, off + len));
                                o.write(b, off, len);
                            }
                        };
                    }

                    @Override
                    public InputStream getInputStream() throws IOException {
                        return s.getInputStream();
                    }

                    @Override
                    public java.net.SocketAddress getRemoteSocketAddress() {
                        return s.getRemoteSocketAddress();
                    }

                    @Override
                    public synchronized void setSoTimeout(int ms) throws SocketException {
                        s.setSoTimeout(ms);
                    }
                };
                PeerExchange.sendHello(spy, t, T);
                rank0.get(10, TimeUnit.SECONDS).close();
            }
        }
        String all = sent.stream().map(b -> new String(b, StandardCharsets.ISO_8859_1))
                .reduce("", String::concat);
        assertEquals(4 + 72 + 4 + 40, all.length(), "HELLO and HELLO_PROOF only");
        assertTrue(!all.contains(new String(key, StandardCharsets.ISO_8859_1)), "the token went over the wire");
    }
}
