// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The TCP exchange over loopback: round trip, and every way a peer can go wrong ends in a clear error. */
class PeerExchangeTest {
    static final Duration T = Duration.ofSeconds(5);
    static final Duration BOUND = Duration.ofSeconds(20);
    static final JobToken TOKEN = JobToken.random("test");

    static PeerInfo info(int qpn, int link) {
        byte[] gid = new byte[16];
        gid[10] = (byte) 0xff;
        gid[11] = (byte) 0xff;
        gid[12] = 10;
        gid[15] = (byte) qpn;
        return new PeerInfo(qpn, 0xabcdef, 0x1234, link == 1 ? 7 : 0, link, 3, gid, 0x7f00_0000_1000L, 4096);
    }

    @Test
    void twoThreadsExchangeAndMeetAtBarriers() throws Exception {
        assertTimeoutPreemptively(BOUND, () -> {
            PeerInfo a = info(0x111, 2), b = info(0x222, 2);
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
                int port = l.port();
                CompletableFuture<PeerInfo> server = CompletableFuture.supplyAsync(() -> {
                    try (PeerExchange x = l.accept(T)) {
                        PeerInfo got = x.exchange(a);
                        x.barrier();
                        x.barrier();
                        return got;
                    }
                });
                PeerInfo got;
                try (PeerExchange x = PeerExchange.open(PeerAddress.parse("127.0.0.1:" + port), T, TOKEN)) {
                    got = x.exchange(b);
                    x.barrier();
                    x.barrier();
                }
                assertEquals(a, got);
                assertEquals(b, server.get(10, TimeUnit.SECONDS));
            }
        });
    }

    @Test
    void codecRoundTripsEveryField() {
        PeerInfo p = new PeerInfo(0xffffff, 0xffffff, -1, 0xffff, 1, 5, new byte[16], -2L, Long.MAX_VALUE);
        byte[] frame = PeerMessages.encodeInfo(p);
        assertEquals(4 + 56, frame.length);
        assertEquals(56, ByteBuffer.wrap(frame).getInt());
        assertEquals(p, PeerMessages.decodeInfo(body(frame)));
        assertEquals(7, PeerMessages.decodeBarrier(body(PeerMessages.encodeBarrier(7))));
    }

    @Test
    void malformedMessagesAreRefusedWithTheReason() {
        byte[] good = body(PeerMessages.encodeInfo(info(0x333, 1)));

        byte[] magic = good.clone();
        magic[0] = 'X';
        assertMsg(() -> PeerMessages.decodeInfo(magic), "magic");

        byte[] version = good.clone();
        version[5] = (byte) (PeerMessages.VERSION + 1);
        assertMsg(() -> PeerMessages.decodeInfo(version), "version " + (PeerMessages.VERSION + 1)
                + ", this build speaks " + PeerMessages.VERSION);

        byte[] type = good.clone();
        type[7] = PeerMessages.TYPE_BARRIER;
        assertMsg(() -> PeerMessages.decodeInfo(type), "out of step");

        byte[] shortBody = java.util.Arrays.copyOf(good, 40);
        assertMsg(() -> PeerMessages.decodeInfo(shortBody), "has 56 bytes, the peer sent 40");
        assertMsg(() -> PeerMessages.decodeInfo(new byte[3]), "shorter than");

        byte[] badMtu = good.clone();
        badMtu[8 + 15] = 9; // mtu byte
        assertMsg(() -> PeerMessages.decodeInfo(badMtu), "MTU enum 9");
        byte[] badQpn = good.clone();
        badQpn[8] = 1; // QPN above 24 bits
        assertMsg(() -> PeerMessages.decodeInfo(badQpn), "QPN");
    }

    @Test
    void garbageFromThePeerIsAClearError() {
        assertTimeoutPreemptively(BOUND, () -> {
            PeerExchangeException e = againstRawPeer(out -> write(out, "HTTP/1.1 200 OK\r\n\r\n".getBytes()));
            assertTrue(e.getMessage().contains("announced") || e.getMessage().contains("magic"), e.getMessage());
        });
    }

    @Test
    void wrongVersionFromThePeerIsAClearError() {
        assertTimeoutPreemptively(BOUND, () -> {
            byte[] f = PeerMessages.encodeInfo(info(0x444, 1));
            f[4 + 5] = 9;
            PeerExchangeException e = againstRawPeer(out -> write(out, f));
            assertTrue(e.getMessage().contains("exchange version 9"), e.getMessage());
        });
    }

    @Test
    void aPeerThatClosesMidMessageIsAClearErrorNotAHang() {
        assertTimeoutPreemptively(BOUND, () -> {
            byte[] f = PeerMessages.encodeInfo(info(0x555, 1));
            PeerExchangeException e = againstRawPeer(out -> write(out, java.util.Arrays.copyOf(f, 14)));
            assertTrue(e.getMessage().contains("closed the connection after 10 of 56 bytes"), e.getMessage());
        });
    }

    @Test
    void aPeerThatClosesBeforeSendingIsAClearError() {
        assertTimeoutPreemptively(BOUND, () -> {
            PeerExchangeException e = againstRawPeer(out -> { });
            assertTrue(e.getMessage().contains("closed the connection after 0 of 4 bytes"), e.getMessage());
        });
    }

    @Test
    void aPeerThatVanishesAtOnceIsAClearError() throws Exception {
        try (ServerSocket raw = new ServerSocket(0)) {
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> {
                try {
                    Socket s = raw.accept();
                    s.setSoLinger(true, 0); // abortive close: RST
                    s.close();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertTimeoutPreemptively(BOUND, () -> {
                // The reset may arrive while connecting or while exchanging: both must be clear errors.
                PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> {
                    try (PeerExchange x = PeerExchange.connect("127.0.0.1", raw.getLocalPort(), T, TOKEN)) {
                        peer.get(5, TimeUnit.SECONDS);
                        x.exchange(info(0x888, 1));
                    }
                });
                String m = e.getMessage();
                assertTrue(m.contains("peer gone") || m.contains("closed the connection") || m.contains("reset"), m);
            });
            peer.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aSilentPeerTimesOut() throws Exception {
        try (ServerSocket raw = new ServerSocket(0)) {
            CompletableFuture<Socket> held = CompletableFuture.supplyAsync(() -> {
                try {
                    Socket s = raw.accept();
                    PeerExchange.answerHello(s, TOKEN, T); // then says nothing
                    return s;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertTimeoutPreemptively(BOUND, () -> {
                try (PeerExchange x = PeerExchange.connect("127.0.0.1", raw.getLocalPort(), Duration.ofMillis(300),
                        TOKEN)) {
                    PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> x.exchange(info(0x666, 1)));
                    assertTrue(e.getMessage().contains("no peer info from") && e.getMessage().contains("within"),
                            e.getMessage());
                }
            });
            held.get(5, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void nobodyListeningOrConnectingIsBounded() {
        assertTimeoutPreemptively(BOUND, () -> {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort(); // free again once closed
            }
            int p = port;
            assertMsg(() -> PeerExchange.connect("127.0.0.1", p, Duration.ofMillis(400), TOKEN),
                    "could not connect to peer");
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
                assertMsg(() -> l.accept(Duration.ofMillis(200)), "no peer connected to port");
            }
        });
    }

    @Test
    void peerAddressParsing() {
        assertEquals(new PeerAddress("node7", 7000), PeerAddress.parse("node7:7000"));
        assertEquals(new PeerAddress(null, 7000), PeerAddress.parse(":7000"));
        assertTrue(PeerAddress.parse(":7000").listens());
        assertEquals(new PeerAddress("fe80::1", 7000), PeerAddress.parse("[fe80::1]:7000"));
        assertEquals("[fe80::1]:7000", PeerAddress.parse("[fe80::1]:7000").toString());
        // the wildcard listens (nobody connects to it); a bare :port listens on loopback only
        for (String any : new String[] {"*:7000", "0.0.0.0:7000", "[::]:7000"}) {
            assertEquals(PeerAddress.listen(PeerAddress.ANY, 7000), PeerAddress.parse(any));
        }
        assertEquals("*:7000", PeerAddress.parse("*:7000").toString());
        assertEquals(":7000", PeerAddress.parse(":7000").toString());
        assertEquals("listening on node1:7000", PeerAddress.listen("node1", 7000).toString());
        assertMsg(() -> PeerAddress.parse("node7"), "host:port");
        assertMsg(() -> PeerAddress.parse("node7:x"), "host:port");
        assertMsg(() -> PeerAddress.parse("node7:70000"), "1..65535");
        assertMsg(() -> PeerAddress.parse("fe80::1:7000"), "brackets");
        assertMsg(() -> PeerAddress.parse(""), "host:port");
    }

    /** A raw TCP "peer" that runs script, then closes; returns what exchange() threw. */
    private static PeerExchangeException againstRawPeer(Consumer<OutputStream> script) throws Exception {
        try (ServerSocket raw = new ServerSocket(0)) {
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> {
                try (Socket s = raw.accept()) {
                    PeerExchange.answerHello(s, TOKEN, T);
                    // Read our frame first: closing on unread data would send RST instead of FIN.
                    s.getInputStream().readNBytes(4 + 56);
                    script.accept(s.getOutputStream());
                    s.getOutputStream().flush();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            try (PeerExchange x = PeerExchange.connect("127.0.0.1", raw.getLocalPort(), T, TOKEN)) {
                PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> x.exchange(info(0x777, 1)));
                peer.get(5, TimeUnit.SECONDS);
                return e;
            }
        }
    }

    private static void write(OutputStream out, byte[] b) {
        try {
            out.write(b);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    private static byte[] body(byte[] frame) {
        return java.util.Arrays.copyOfRange(frame, 4, frame.length);
    }

    private static void assertMsg(org.junit.jupiter.api.function.Executable x, String part) {
        RuntimeException e = assertThrows(RuntimeException.class, x);
        assertTrue(e.getMessage().contains(part), "expected '" + part + "' in: " + e.getMessage());
    }
}
