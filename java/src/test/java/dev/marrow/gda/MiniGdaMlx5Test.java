// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.api.Backend;
import dev.marrow.api.NativeException;
import dev.marrow.results.ResultRecord;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * cuda + mlx5 end to end on one host: two verbs RC QPs on the same ConnectX
 * connected to each other, GPU threads posting through the mlx5dv views, the
 * UAR mapped as IO memory. Needs a ConnectX AND a GPU; skipped elsewhere
 * with the reason (verbs through @RequiresBackend, CUDA by assumption).
 */
@Tag("rdma")
@Tag("gpu")
@RequiresBackend(Backend.VERBS)
class MiniGdaMlx5Test {

    @BeforeAll
    static void needsAGpuToo() {
        assumeTrue(Backend.CUDA.isAvailable(), () -> {
            String why = "cuda + mlx5 needs a GPU too: " + Backend.CUDA.unavailabilityCause().getMessage();
            System.out.println("skipped: " + why);
            return why;
        });
    }

    static GdaSetup mlx5() {
        return GdaSetup.defaults(Target.CUDA).withNic(Nic.MLX5);
    }

    /** A driver without PeerMappingOverride=1 refuses the UAR (mapped per run): say so and skip rather than fail. */
    static GdaRun run(MiniGda g, GdaRunSpec spec) {
        try {
            return g.run(spec);
        } catch (NativeException e) {
            if (e.getMessage().contains("PeerMappingOverride=1")) {
                Assumptions.abort("the driver does not map the UAR into the GPU: " + e.getMessage());
            }
            throw e;
        }
    }

    static void assertDelivered(MiniGda g, GdaRun r) {
        GdaRunSpec s = r.spec();
        long total = s.iters() + s.warmup();
        String what = s.experiment() + " " + s.ordering() + " " + s.payload() + " " + s.size() + " B";
        assertTrue(r.valid(), what + ": payload errors " + r.payloadErrors());
        assertEquals(s.iters(), r.samplesNs().length);
        assertEquals(total, r.posts(), what + ": posts");
        assertEquals(total, r.cqes(), what + ": one CQE per signaled WRITE");
        assertTrue(r.emuCounters().isEmpty(), "no emulator on hardware");
        if (s.experiment() == Experiment.ROUND_TRIP) {
            assertEquals(total, r.peerPosts(), what + ": the peer answered every ping");
            assertTrue(GdaPattern.holds(g.inboxA(), 8, total - 1), what + ": reply word in A's inbox");
        }
        assertTrue(GdaPattern.holds(g.inboxB(), s.size(), total - 1), what + ": destination holds the last iteration");
        assertTrue(r.smClockGhz() > 0.1 && r.smClockGhz() < 5, "SM clock " + r.smClockGhz());
    }

    @Test
    void oneHostDeliversEveryExperimentAndPayloadAndIsRecordedAsHardware() {
        try (MiniGda g = MiniGda.open(mlx5())) {
            System.out.println("cuda+mlx5: " + g.connection());
            assertTrue(g.connection().contains("one host"), g.connection());
            for (Ordering o : new Ordering[] {Ordering.GPU_FENCE, Ordering.RELEASE_SYS, Ordering.FENCE_SYS}) {
                for (Payload p : Payload.values()) {
                    List<GdaRun> runs = new ArrayList<>();
                    for (Experiment e : Experiment.values()) {
                        GdaRun r = run(g, GdaRunSpec.of(e, o, p, 8).withIters(200, 20));
                        assertDelivered(g, r);
                        runs.add(r);
                    }
                    ResultRecord rec = GdaRecords.record(runs);
                    assertTrue(rec.hardware(), "cuda+mlx5 is hardware");
                    assertEquals("cuda+mlx5", rec.backend());
                    assertEquals(g.setup().mlx5().device(), rec.params().get("mlx5_device"));
                }
            }
        }
    }

    @Test
    void inlineSizesOfFig3aArrive() {
        try (MiniGda g = MiniGda.open(mlx5())) {
            for (int size : new int[] {16, 28, 32, 60, 92, 124, 220}) {
                assertDelivered(g, run(g, GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.GPU_FENCE, Payload.INLINE,
                        size).withIters(100, 10)));
            }
        }
    }

    @Test
    void openedDeviceIsNamedInTheSetup() {
        try (MiniGda g = MiniGda.open(mlx5())) {
            assertTrue(g.setup().mlx5().device().startsWith("mlx5"), g.setup().mlx5().device());
            assertTrue(g.setup().mlx5().port() >= 1);
        }
    }
    /**
     * Placement gpu: DevX QPs with SQ, CQ and doorbell records in GPU memory
     * (docs/design/mlx5-queue-formats.md §7.1). A driver or NIC without DevX is a
     * skip with the reason. Two runs of each experiment on one session: the
     * second resumes from the doorbell records read back with cudaMemcpy, and
     * every run's read-back is checked against its posts and CQEs by MiniGda.
     */
    @Test
    void gpuResidentQueuesThroughDevxDeliverAndResume() {
        MiniGda g;
        try {
            g = MiniGda.open(mlx5().withPlacement(Placement.GPU));
        } catch (dev.marrow.api.BackendUnavailableException e) {
            Assumptions.abort("GPU-resident queues unavailable here: " + e.getMessage());
            return;
        }
        try (g) {
            System.out.println("cuda+mlx5 placement gpu: " + g.connection());
            assertTrue(g.connection().contains("DevX (queues in GPU memory"), g.connection());
            for (Payload p : Payload.values()) {
                for (Experiment e : new Experiment[] {Experiment.PUT_COMPLETION, Experiment.ROUND_TRIP,
                        Experiment.PUT_COMPLETION}) {
                    GdaRun r = run(g, GdaRunSpec.of(e, Ordering.GPU_FENCE, p, 8).withIters(200, 20));
                    assertDelivered(g, r);
                    ResultRecord rec = GdaRecords.record(List.of(r));
                    assertEquals("gpu", rec.params().get("placement"), rec.params().toString());
                    assertTrue(rec.hardware(), "cuda+mlx5 is hardware");
                }
            }
        }
    }
}
