// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Target;
import dev.marrow.api.Backend;
import dev.marrow.api.softnic.WireModel;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The goodput runner through the Java API: bytes delivered and counts on
 * the CPU target, the same on a GPU (tagged gpu, skipped without CUDA), and
 * the wire model bounding what a stream carries; the same over several QPs
 * of {@link GoodputQueues} on several engine threads, whose one port bounds
 * all of them together.
 */
class GdaGoodputTest {
    static void check(MiniGda g, int size, WireModel w) {
        g.softNic().setWire(w);
        GdaGoodput.Run r = GdaGoodput.run(g, new GdaGoodput.Spec(Ordering.RELEASE_SYS, size, 64, 16, 2000, 64,
                5_000_000_000L));
        assertTrue(r.valid(), "payload errors " + r.payloadErrors());
        assertEquals(2064, r.doorbells());
        assertEquals(2000L * size, r.timedBytes());
        assertEquals(2064, r.emuCounters().get("emu_wqe_rdma_write"));
        assertTrue(r.timedNs() > 0);
        if (w.enabled()) { // never faster than the port (one message may already be on it at t0)
            assertTrue(r.timedNs() * 1000 >= 1999 * w.timePs(size), r.gbPerS() + " GB/s beats the wire");
        }
    }

    /** 2000 timed + 64 warm-up WRITEs over q.qps() QPs, 16 outstanding and every 8th signaled per QP. */
    static void checkQps(GoodputQueues q, int size, WireModel w) {
        q.softNic().setWire(w);
        GdaGoodput.Run r = GdaGoodput.run(q, new GdaGoodput.Spec(Ordering.RELEASE_SYS, size, 16, 8, 2000, 64,
                5_000_000_000L));
        assertTrue(r.valid(), "payload errors " + r.payloadErrors());
        assertEquals(2064, r.doorbells());
        assertEquals(2064, r.emuCounters().get("emu_wqe_rdma_write"));
        assertEquals(2000L * size, r.timedBytes());
        assertTrue(r.slots() >= q.qps(), "slots " + r.slots());
        if (w.enabled()) { // one port for every QP: at most one message per QP on it at t0
            assertTrue(r.timedNs() * 1000 >= (2000 - q.qps()) * w.timePs(size), r.gbPerS() + " GB/s beats the port");
        }
    }

    @Test
    void cpuPosterOverTwoQpsOnTwoEngineThreads() {
        try (GoodputQueues q = GoodputQueues.open(Target.CPU, 0, 2, 2, null,
                dev.marrow.api.softnic.SoftNic.PollMode.IDLE, 1 << 20)) {
            assertEquals(2, q.qps());
            checkQps(q, 64, WireModel.NONE);
            checkQps(q, 4096, WireModel.infiniband(20));
        }
    }

    @Test
    @Tag("gpu")
    @RequiresBackend(Backend.CUDA)
    void gpuPosterOverFourQpsOnFourEngineThreads() {
        try (GoodputQueues q = GoodputQueues.open(Target.CUDA, 0, 4, 4, null,
                dev.marrow.api.softnic.SoftNic.PollMode.HOT, 4 << 20)) {
            checkQps(q, 8, WireModel.NONE);
            checkQps(q, 65536, WireModel.infiniband(200));
        }
    }

    @Test
    void cpuPipelinedWritesDeliverAndRespectTheWire() {
        try (MiniGda g = MiniGda.open(GdaSetup.defaults(Target.CPU).withPollMode(
                dev.marrow.api.softnic.SoftNic.PollMode.IDLE).withBufferBytes(1 << 20))) {
            check(g, 64, WireModel.NONE);
            check(g, 4096, WireModel.infiniband(20));
        }
    }

    @Test
    @Tag("gpu")
    @RequiresBackend(Backend.CUDA)
    void gpuPipelinedWritesDeliverAndRespectTheWire() {
        try (MiniGda g = MiniGda.open(GdaSetup.defaults(Target.CUDA).withBufferBytes(1 << 20))) {
            check(g, 8, WireModel.NONE);
            check(g, 65536, WireModel.infiniband(200));
        }
    }
}
