// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.api.NativeException;
import dev.marrow.api.TimeoutDump;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The software NIC's benchmark waits and its QP snapshot (docs/design/watchdog.md):
 * a paused engine's timeout ends within its bound + 1 s with the producer's,
 * the queues' and the engine's view; the snapshot alone reads the same.
 */
class SoftNicTimeoutDumpTest {
    static final long BOUND_NS = 100_000_000L;

    @Test
    void aPausedEngineBenchmarkTimeoutCarriesTheEngineView() {
        try (LoopbackRig rig = new LoopbackRig(SoftNicJavaTest.quietIdle(), 8, 10, 64, 4096)) {
            rig.nic().pauseEngine(true);
            long t0 = System.nanoTime();
            NativeException e = assertThrows(NativeException.class, () -> SoftNicBench.latency(rig.qp(), 8, 1, 0,
                    rig.source(), rig.destination(), BOUND_NS));
            long took = System.nanoTime() - t0;
            assertTrue(e.isTimeout(), e.getMessage());
            assertTrue(took >= BOUND_NS && took < BOUND_NS + 1_000_000_000L, "took " + took + " ns");
            Map<String, Object> d = TimeoutDump.parse(e.getMessage());
            assertEquals(1L, d.get("sq_pi"), e.getMessage());
            assertEquals(0L, d.get("sq_ci"));
            assertEquals("RTS", d.get("emu_qp_state"));
            assertEquals("paused", d.get("emu_engine"));
            assertEquals(1L, d.get("emu_dbr"));
            assertEquals(0L, d.get("emu_sq_ci"));

            Map<String, Object> snap = TimeoutDump.parse(TimeoutDump.MARK + " " + rig.qp().watchdogDump());
            assertEquals("0x" + Integer.toHexString(rig.qp().qpn()), snap.get("emu_qpn"));
            assertEquals("paused", snap.get("emu_engine"));
            assertEquals("", rig.nic().watchdogDump(0xFFFFFF), "no such QP");
            rig.nic().pauseEngine(false);
        }
    }
}
