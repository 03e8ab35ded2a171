// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.api.Backend;
import dev.marrow.results.ResultRecord;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Placement gpu: the SQ, CQ, DBRs and doorbell pages in GPU memory, the
 * software NIC's device engine (a persistent kernel) serving them, GPU
 * threads posting. The kernel validates every iteration's bytes; the
 * engine's counters must account for every WQE and CQE.
 */
@Tag("gpu")
@RequiresBackend(Backend.CUDA)
class MiniGdaDeviceEngineTest {
    static GdaSetup gpuResident(int nicSms) {
        return GdaSetup.defaults(Target.CUDA).withPlacement(Placement.GPU).withNicSms(nicSms);
    }

    @Test
    void everySafeOrderingPayloadAndExperimentDeliversWithGpuScopeFences() {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (MiniGda g = MiniGda.open(gpuResident(1))) {
                assertEquals(1, g.nicSmsUsed(), g.connection());
                for (Ordering o : Ordering.values()) {
                    if (o == Ordering.NONE) {
                        continue; // orders nothing: a finding, not a fidelity check
                    }
                    for (Payload p : Payload.values()) {
                        for (Experiment e : Experiment.values()) {
                            GdaRun r = g.run(GdaRunSpec.of(e, o, p, 8).withIters(50, 5));
                            String what = o.label() + "/" + p.label() + "/" + e;
                            assertEquals(50, r.samplesNs().length, what);
                            assertEquals(0, r.payloadErrors(), what);
                            assertTrue(r.valid(), what);
                            long writes = r.emuCounters().getOrDefault("emu_wqe_rdma_write", 0L);
                            long cqes = r.emuCounters().getOrDefault("emu_cqe_req", 0L);
                            assertEquals(r.posts() + r.peerPosts(), writes, what + ": every WQE executed once");
                            assertEquals(r.posts() + r.peerPosts(), cqes, what + ": one CQE per signaled WQE");
                            assertEquals(0L, r.emuCounters().getOrDefault("emu_cqe_req_err", 0L), what);
                        }
                    }
                }
            }
        });
    }

    @Test
    void recordsSayDeviceEngineNotHardwareAndTheSmsTaken() {
        try (MiniGda g = MiniGda.open(gpuResident(2))) {
            assertEquals(2, g.nicSmsUsed(), "two blocks on two SMs: " + g.connection());
            GdaRun r = g.run(GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.GPU_FENCE, Payload.INLINE, 8)
                    .withIters(100, 10));
            ResultRecord rec = GdaRecords.record(List.of(r));
            String json = rec.toString();
            assertTrue(!rec.hardware(), json);
            assertEquals("softnic-device", rec.params().get("nic"), json);
            assertEquals("gpu", rec.params().get("placement"), json);
            assertEquals(2, rec.params().get("nic_sms"), json);
            assertEquals(2, rec.params().get("nic_sms_distinct"), json);
            // The default layout (AUTO) resolves to lane, 8 engine threads per SM (docs/design/device-engine.md §2.4).
            assertEquals("lane", rec.params().get("nic_engine_layout"), json);
            assertEquals(8, rec.params().get("nic_engine_threads_per_sm"), json);
            assertEquals("cuda+softnic-device", rec.backend(), json);
        }
    }

    @Test
    void inboxesAreGpuMemoryAndSaySo() {
        try (MiniGda g = MiniGda.open(gpuResident(1))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, g::inboxB);
            assertTrue(e.getMessage().contains("GPU memory"), e.getMessage());
        }
    }
}
