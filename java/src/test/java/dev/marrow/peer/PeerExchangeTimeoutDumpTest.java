// SPDX-License-Identifier: Apache-2.0
package dev.marrow.peer;

import dev.marrow.api.TimeoutDump;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCP peer's waits (docs/design/watchdog.md): each ends within its
 * bound + 1 s and says what it waited for, from whom, elapsed vs bound.
 */
class PeerExchangeTimeoutDumpTest {
    static final Duration BOUND = Duration.ofMillis(300);
    static final JobToken TOKEN = JobToken.random("test");

    private static void withinBound(Map<String, Object> d, long tookNs, String msg) {
        long elapsed = (Long) d.get("elapsed_ms");
        assertEquals(BOUND.toMillis(), d.get("bound_ms"), msg);
        assertTrue(elapsed >= BOUND.toMillis() - 5 && elapsed < BOUND.toMillis() + 1000, msg);
        assertTrue(tookNs < BOUND.toNanos() + 1_000_000_000L, "took " + tookNs + " ns: " + msg);
    }

    @Test
    void aSilentPeerSaysWhatWasAwaited() throws Exception {
        try (ServerSocket raw = new ServerSocket(0)) {
            CompletableFuture<Socket> held = CompletableFuture.supplyAsync(() -> {
                try {
                    Socket s = raw.accept();
                    PeerExchange.answerHello(s, TOKEN, Duration.ofSeconds(5)); // then says nothing
                    return s;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                try (PeerExchange x = PeerExchange.connect("127.0.0.1", raw.getLocalPort(), BOUND, TOKEN)) {
                    long t0 = System.nanoTime();
                    PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> x.barrier());
                    long took = System.nanoTime() - t0;
                    assertTrue(e.getMessage().startsWith("no barrier 1 from"), e.getMessage());
                    Map<String, Object> d = TimeoutDump.parse(e.getMessage());
                    assertEquals("barrier_1", d.get("waited_for"), e.getMessage());
                    assertEquals(x.peerName().replace(' ', '_'), d.get("peer"));
                    withinBound(d, took, e.getMessage());
                }
            });
            held.get(5, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void nobodyConnectingSaysWhichPort() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
                int port = l.port();
                long t0 = System.nanoTime();
                PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> l.accept(BOUND));
                long took = System.nanoTime() - t0;
                Map<String, Object> d = TimeoutDump.parse(e.getMessage());
                assertEquals("connection", d.get("waited_for"), e.getMessage());
                assertEquals("127.0.0.1:" + port, d.get("peer")); // the loopback address it listened on
                withinBound(d, took, e.getMessage());
            }
        });
    }
}
