// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One record per point: emulated label, parameters, per-experiment percentiles that match the samples. */
class GdaRecordsTest {
    @Test
    void recordCarriesTheSamplesStatisticsAndTheEmulatedLabel() {
        GdaSetup s = GdaSetup.defaults(Target.CPU);
        GdaRunSpec issue = GdaRunSpec.of(Experiment.ISSUE, Ordering.RELEASE_GPU, Payload.POINTER, 8).withIters(5, 2);
        long[] ns = {50, 10, 40, 20, 30};
        GdaRun r1 = new GdaRun(s, issue, new GdaRun.Samples(ns, null, 150, 0),
                new GdaRun.Counters(7, 7, 7, 0, 0), new GdaRun.WqeShape(3, 1), Map.of("emu_wqe_rdma_write", 7L, "emu_cqe_req", 7L, "emu_cqe_req_err", 0L));
        GdaRun r2 = new GdaRun(s, issue.withExperiment(Experiment.PUT_COMPLETION), new GdaRun.Samples(new long[] {100, 300, 200, 400, 500}, null, 1500, 0),
                new GdaRun.Counters(7, 7, 7, 0, 1), new GdaRun.WqeShape(3, 1), Map.of("emu_wqe_rdma_write", 7L));
        ResultRecord rec = GdaRecords.record(List.of(r1, r2));
        assertFalse(rec.hardware(), "softnic results are emulated");
        assertEquals("cpu+softnic", rec.backend());
        assertEquals("release-gpu", rec.params().get("ordering"));
        assertEquals("pointer", rec.params().get("payload"));
        assertEquals(30L, rec.metric("issue_p50_ns"));
        assertEquals(10L, rec.metric("issue_min_ns"));
        assertEquals(50L, rec.metric("issue_max_ns"));
        assertEquals(300L, rec.metric("putc_p50_ns"));
        assertEquals(500L, rec.metric("putc_p99_ns"));
        assertNull(rec.metric("issue_sm_clock_ghz"), "no SM clock off the GPU");
        assertEquals(1L, rec.metric("payload_errors"));
        assertEquals(false, rec.metric("valid"));
        assertEquals(14L, rec.metric("emu_wqe_rdma_write"));
        assertTrue(rec.flat().containsKey("warmup"));
    }

    @Test
    void gpuRunsReportCyclesAndTheEffectiveClock() {
        GdaSetup s = GdaSetup.defaults(Target.CUDA);
        GdaRunSpec spec = GdaRunSpec.of(Experiment.ISSUE, Ordering.GPU_FENCE, Payload.INLINE, 8).withIters(3, 0);
        GdaRun r = new GdaRun(s, spec, new GdaRun.Samples(new long[] {700, 800, 900}, new long[] {1400, 1600, 1800}, 2000, 3960),
                new GdaRun.Counters(3, 3, 3, 0, 0), new GdaRun.WqeShape(3, 1), Map.of());
        ResultRecord rec = GdaRecords.record(List.of(r));
        assertEquals(1600L, rec.metric("issue_p50_cycles"));
        assertEquals(1.98, rec.metric("issue_sm_clock_ghz"));
        assertEquals("cuda+softnic", rec.backend());
    }

    @Test
    void hardwareFlagAndBackendFollowTheNic() {
        GdaRunSpec spec = GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.GPU_FENCE, Payload.INLINE, 8).withIters(3, 0);
        for (Target t : Target.values()) {
            GdaSetup soft = GdaSetup.defaults(t);
            ResultRecord rec = GdaRecords.record(List.of(new GdaRun(soft, spec, new GdaRun.Samples(new long[] {1, 2, 3}, null, 6, 0),
                new GdaRun.Counters(3, 3, 3, 0, 0), new GdaRun.WqeShape(3, 1), Map.of("emu_wqe_rdma_write", 3L))));
            assertFalse(rec.hardware(), t + "+softnic stays emulated");
            assertEquals(t.label() + "+softnic", rec.backend());
            assertEquals(3L, rec.metric("emu_wqe_rdma_write"));
            assertEquals(false, rec.flat().get("hardware"));
        }
        GdaSetup hw = GdaSetup.defaults(Target.CUDA).withNic(Nic.MLX5)
                .withMlx5(Mlx5Options.defaults().withDevice("mlx5_1", 3));
        ResultRecord rec = GdaRecords.record(List.of(new GdaRun(hw, spec, new GdaRun.Samples(new long[] {1, 2, 3}, new long[] {2, 4, 6}, 6, 12),
                new GdaRun.Counters(3, 3, 3, 0, 0), new GdaRun.WqeShape(3, 1), Map.of())));
        assertTrue(rec.hardware(), "mlx5 runs are hardware, not emulated");
        assertEquals(true, rec.flat().get("hardware"));
        assertEquals("cuda+mlx5", rec.backend());
        assertEquals("mlx5_1", rec.params().get("mlx5_device"));
        assertEquals(3, rec.params().get("gid_index"));
        assertEquals("loopback (one host)", rec.params().get("peer"));
        assertNull(rec.metric("emu_wqe_rdma_write"), "no emulator counters on hardware");
        ResultRecord failed = GdaRecords.failed(hw, spec, List.of(), "error CQE");
        assertTrue(failed.hardware());
        assertEquals("cuda+mlx5", failed.backend());
    }

    @Test
    void deviceEngineRecordsSayHowTheEngineRan() {
        GdaRunSpec spec = GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.GPU_FENCE, Payload.INLINE, 8).withIters(3, 0);
        GdaSetup dev = GdaSetup.defaults(Target.CUDA).withPlacement(Placement.GPU);
        assertTrue(dev.deviceEngine());
        GdaRun.Samples samples = new GdaRun.Samples(new long[] {1, 2, 3}, new long[] {2, 4, 6}, 6, 12);
        GdaRun.Counters counters = new GdaRun.Counters(3, 3, 3, 0, 0);
        ResultRecord rec = GdaRecords.record(List.of(new GdaRun(dev, spec, samples, counters, new GdaRun.WqeShape(3, 1),
                Map.of("emu_wqe_rdma_write", 3L), new GdaRun.DeviceEngine(1, "lane", 8))));
        assertFalse(rec.hardware(), "the device engine is an emulated NIC");
        assertEquals(true, rec.params().get("gpu_hardware"));
        assertEquals(false, rec.params().get("nic_hardware"));
        assertEquals(1, rec.params().get("nic_sms_distinct"));
        assertEquals("lane", rec.params().get("nic_engine_layout"));
        assertEquals(8, rec.params().get("nic_engine_threads_per_sm"));
        // A run that did not report the engine (a failure before it ran) names no layout.
        ResultRecord failed = GdaRecords.failed(dev, spec, List.of(), "timeout");
        assertNull(failed.params().get("nic_engine_layout"));
        assertEquals(false, failed.params().get("nic_hardware"));
    }
}
