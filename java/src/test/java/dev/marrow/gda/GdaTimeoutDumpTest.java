// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.NativeException;
import dev.marrow.api.TimeoutDump;
import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Watchdog dumps through MiniGda on cpu + softnic (docs/design/watchdog.md):
 * a timed-out run ends within its bound + 1 s, its message carries the
 * runner's queue state and the engine's view, and a failed sweep row
 * carries the same as structured fields.
 */
class GdaTimeoutDumpTest {
    static final long BOUND_NS = 100_000_000L;

    @Test
    void aPausedEngineTimeoutCarriesTheQueueStateInTheMessageAndTheRecord() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (MiniGda g = MiniGda.open(MiniGdaCpuTest.cpu())) {
                g.softNic().pauseEngine(true);
                GdaRunSpec spec = GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.RELEASE_SYS, Payload.INLINE, 8)
                        .withIters(5, 0).withTimeoutNs(BOUND_NS);
                long t0 = System.nanoTime();
                NativeException e = assertThrows(NativeException.class, () -> g.run(spec));
                long took = System.nanoTime() - t0;
                g.softNic().pauseEngine(false);
                assertTrue(e.isTimeout(), e.getMessage());
                assertTrue(took >= BOUND_NS && took < BOUND_NS + 1_000_000_000L, "took " + took + " ns");
                assertTrue(e.getMessage().contains("initiator timed out after 100000000 ns"), e.getMessage());

                Map<String, Object> d = TimeoutDump.parse(e.getMessage());
                assertEquals("cqe", d.get("waited_for"), e.getMessage());
                assertEquals(100L, d.get("bound_ms"));
                assertEquals(1L, d.get("sq_pi"), "one WQEBB posted");
                assertEquals(0L, d.get("sq_ci"), "none completed");
                assertEquals(1L, d.get("dbr"));
                assertEquals("none", d.get("last_cqe"));
                assertEquals("invalid", d.get("next_cqe"));
                // the engine's own view, added for the software NIC
                assertEquals(d.get("qpn"), d.get("emu_qpn"));
                assertEquals("RTS", d.get("emu_qp_state"));
                assertEquals("paused", d.get("emu_engine"));
                assertEquals(0L, d.get("emu_sq_ci"));
                assertEquals(1L, d.get("emu_dbr"));
                assertTrue(((String) d.get("emu_db_pending")).startsWith("0x") && !d.get("emu_db_pending")
                        .equals("0x0000000000000000"), "the doorbell waits in the page: " + d);

                ResultRecord r = GdaRecords.failed(g.setup(), spec, List.of(), e.getMessage());
                assertEquals(false, r.metric("valid"));
                assertEquals(e.getMessage(), r.metric("error"));
                assertEquals(d, r.metric("timeout_dump"));
            }
        });
    }

    @Test
    void aFailureWithoutADumpAddsNoField() {
        try (MiniGda g = MiniGda.open(MiniGdaCpuTest.cpu())) {
            GdaRunSpec spec = GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.RELEASE_SYS, Payload.INLINE, 8);
            ResultRecord r = GdaRecords.failed(g.setup(), spec, List.of(), "got an error CQE: syndrome 0x04");
            assertEquals(false, r.metric("valid"));
            assertEquals(null, r.metric("timeout_dump"));
        }
    }
}
