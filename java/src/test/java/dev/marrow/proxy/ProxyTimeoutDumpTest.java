// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.api.NativeException;
import dev.marrow.api.TimeoutDump;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A stopped worker's ring wait ends within its bound + 1 s with the ring's state (docs/design/watchdog.md). */
class ProxyTimeoutDumpTest {
    static final long BOUND_NS = 100_000_000L;

    @Test
    void aStoppedWorkerTimeoutCarriesTheRingState() {
        try (MiniProxy px = MiniProxy.open(MiniProxyTest.small(1, 1, 4, Handoff.BASELINE).withLogSlots(2))) {
            px.start();
            px.stop();
            for (int i = 0; i < 4; i++) { // fills the 4 slots; nobody takes them
                px.enqueue(0, 0, 20000, 8, BOUND_NS);
            }
            long t0 = System.nanoTime();
            NativeException e = assertThrows(NativeException.class, () -> px.enqueue(0, 0, 20000, 8, BOUND_NS));
            long took = System.nanoTime() - t0;
            assertTrue(e.isTimeout(), e.getMessage());
            assertTrue(took >= BOUND_NS && took < BOUND_NS + 1_000_000_000L, "took " + took + " ns");
            assertTrue(e.getMessage().contains("worker 0 is stopped"), e.getMessage());
            Map<String, Object> d = TimeoutDump.parse(e.getMessage());
            assertEquals("free_slot", d.get("waited_for"), e.getMessage());
            assertEquals(100L, d.get("bound_ms"));
            assertEquals(4L, d.get("position"));
            assertEquals(0L, d.get("tail"));
            assertEquals(4L, d.get("slots"));
            assertEquals("stopped", d.get("worker_state"));
            assertEquals(0L, d.get("worker_requests"));
            assertEquals(0L, d.get("dbr"), "the worker posted nothing to its QP");
        }
    }
}
