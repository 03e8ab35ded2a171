// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.api.Backend;
import dev.marrow.api.NativeException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The software NIC driven from Java through FFM (the C engine has its own ctest suite). */
class SoftNicJavaTest {
    static final long TIMEOUT = 5_000_000_000L;

    static SoftNic.Options quietIdle() {
        return SoftNic.Options.defaults().withQuiet(true);
    }

    @Test
    void softnicIsAlwaysAvailable() {
        assertNull(Backend.SOFTNIC.unavailabilityCause());
        assertTrue(Backend.SOFTNIC.isAvailable());
        Backend.SOFTNIC.ensureAvailability();
    }

    @Test
    void countersMatchTheTraffic() {
        try (LoopbackRig rig = new LoopbackRig(quietIdle(), 8, 10, 64, 4096)) {
            SoftNicCounters before = rig.nic().counters();
            long messages = 4096;
            int batch = 16;
            SoftNicBench.RateResult r = SoftNicBench.rate(rig.qp(), 8, batch, messages, 0, rig.source(),
                    rig.destination(), TIMEOUT);
            SoftNicCounters d = rig.nic().counters().minus(before);
            assertEquals(messages, r.messages());
            assertEquals(messages, d.get("emu_wqe_rdma_write"));
            assertEquals(messages, d.get("emu_wqebb_fetched"), "an 8-byte inline write is one WQEBB");
            assertEquals(messages * 8, d.get("emu_inline_bytes"));
            assertEquals(messages * 8, d.get("emu_payload_bytes_tx"));
            assertEquals(0, d.get("emu_gather_bytes"));
            assertEquals(messages / batch, d.get("emu_cqe_req"), "one CQE per batch: the last WQE is signaled");
            assertEquals(0, d.get("emu_cqe_req_err"));
            assertTrue(d.get("emu_doorbells_observed") <= r.doorbells(), "doorbells observed is a lower bound");
            assertTrue(d.get("emu_dbrec_advances") >= 1 && d.get("emu_dbrec_advances") <= r.doorbells());
            SoftnicAssert.samePrefix(rig, 8);
        }
    }

    @Test
    void pointerPayloadsGoThroughTheGatherPath() {
        try (LoopbackRig rig = new LoopbackRig(quietIdle(), 8, 10, 16, 8192)) {
            SoftNicCounters before = rig.nic().counters();
            SoftNicBench.rate(rig.qp(), 4096, 4, 64, 0, rig.source(), rig.destination(), TIMEOUT);
            SoftNicCounters d = rig.nic().counters().minus(before);
            assertEquals(64 * 4096, d.get("emu_gather_bytes"));
            assertEquals(0, d.get("emu_inline_bytes"));
            SoftnicAssert.samePrefix(rig, 4096);
        }
    }

    @Test
    void latencySamplesArePositiveAndThePayloadArrives() {
        try (LoopbackRig rig = new LoopbackRig(quietIdle(), 8, 10, 64, 4096)) {
            long[] s = SoftNicBench.latency(rig.qp(), 8, 200, 20, rig.source(), rig.destination(), TIMEOUT);
            assertEquals(200, s.length);
            for (long v : s) {
                assertTrue(v > 0, "sample " + v);
            }
            SoftnicAssert.samePrefix(rig, 8);
        }
    }

    @Test
    void aLostDoorbellEndsInTheTimeoutErrorNotAHang() {
        try (LoopbackRig rig = new LoopbackRig(quietIdle(), 8, 10, 64, 4096)) {
            rig.nic().pauseEngine(true);
            NativeException e = assertThrows(NativeException.class, () -> SoftNicBench.latency(rig.qp(), 8, 1, 0,
                    rig.source(), rig.destination(), 50_000_000L));
            assertTrue(e.isTimeout(), e.getMessage());
            assertTrue(e.getMessage().contains("ETIMEDOUT"), e.getMessage());
            rig.nic().pauseEngine(false);
        }
    }

    @Test
    void impossibleConfigurationsAreRefusedWithAReason() {
        try (SoftNic nic = SoftNic.open(quietIdle())) {
            CompletionQueue cq = nic.createCompletionQueue(4, false, false);
            NativeException e = assertThrows(NativeException.class,
                    () -> nic.createQueuePair(QueuePair.Config.of(cq).withLogSqWqebbs(20)));
            assertEquals(-22, e.status());
            assertTrue(e.getMessage().length() > "marrow_emu_qp_create failed: EINVAL (-22)".length(), e.getMessage());
            assertThrows(NativeException.class, () -> nic.createCompletionQueue(30, false, false));
            QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq));
            assertEquals(QpState.RESET, qp.state());
            NativeException illegal = assertThrows(NativeException.class, () -> qp.modify(QpState.RTS, 0));
            assertEquals(-22, illegal.status());
            assertEquals(QpState.RESET, qp.state(), "a refused transition leaves the state unchanged");
            qp.connect(qp);
            assertEquals(QpState.RTS, qp.state());
            try (Arena a = Arena.ofConfined()) {
                MemorySegment heapLike = MemorySegment.ofArray(new byte[64]);
                assertThrows(IllegalArgumentException.class, () -> nic.registerMemory(heapLike, Access.ALL));
                MemoryRegion mr = nic.registerMemory(a.allocate(4096, 4096), Access.ALL);
                assertTrue(mr.lkey() != 0 && mr.rkey() != 0);
                mr.close();
            }
        }
    }

    @Test
    void queueViewsAreUnreachableAfterClose() {
        MemorySegment sq;
        try (SoftNic nic = SoftNic.open(quietIdle())) {
            CompletionQueue cq = nic.createCompletionQueue(4, false, false);
            QueuePair qp = nic.createQueuePair(QueuePair.Config.of(cq));
            sq = qp.sendQueue();
            assertEquals(64L * qp.sqWqebbs(), sq.byteSize());
            assertEquals(64L * 16, cq.buffer().byteSize());
            assertEquals((byte) 0xF0, cq.buffer().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 63),
                    "CQEs start INVALID with owner 0");
        }
        MemorySegment closed = sq;
        assertThrows(IllegalStateException.class, () -> closed.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
    }
}
