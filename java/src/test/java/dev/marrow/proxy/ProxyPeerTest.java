// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.api.NativeException;
import dev.marrow.peer.JobToken;
import dev.marrow.peer.PeerAddress;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Finding 8 for the mini-proxy: a responder that died shows up on the initiator first as a
 * transport error CQE; the initiator's error then also says that the peer process is gone.
 */
class ProxyPeerTest {
    static final Duration T = Duration.ofSeconds(10);
    static final JobToken TOKEN = JobToken.random("test");

    @Test
    void aTransportErrorNamesAPeerProcessThatClosedItsConnection() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            CompletableFuture<ProxyPeer> responder = CompletableFuture.supplyAsync(
                    () -> ProxyPeer.open(PeerAddress.listen(null, port), T, TOKEN));
            try (ProxyPeer initiator = ProxyPeer.open(new PeerAddress("127.0.0.1", port), T, TOKEN)) {
                ProxyPeer r = responder.get(10, TimeUnit.SECONDS);
                NativeException cqe = new NativeException(-110, "ETIMEDOUT", "marrow_proxy_cpu_rate",
                        "worker 0 failed: error CQE on QP 0x100: opcode 13 syndrome 0x15 (TRANSPORT_RETRY_EXC)");
                assertSame(cqe, initiator.explain(cqe), "a live peer adds nothing");
                r.close(); // the responder process dies
                long end = System.nanoTime() + 5_000_000_000L;
                RuntimeException e = cqe;
                while (e == cqe && System.nanoTime() < end) { // the FIN may take a moment on a loaded host
                    e = initiator.explain(cqe);
                    Thread.sleep(20);
                }
                NativeException n = (NativeException) e;
                assertEquals(-110, n.status());
                assertTrue(n.getMessage().contains("TRANSPORT_RETRY_EXC") && n.getMessage().contains(
                        "the peer process at " + initiator.peerName() + " has closed the connection"), n.getMessage());
                IllegalArgumentException usage = new IllegalArgumentException("x");
                assertSame(usage, initiator.explain(usage), "other errors keep their type (exit code)");
            }
        });
    }
}
