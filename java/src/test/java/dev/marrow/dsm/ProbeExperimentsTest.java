// SPDX-License-Identifier: Apache-2.0
// "The study" below: "How does Hopper distributed shared memory actually move data?"
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** E11-E15 end to end on a fake GPU whose offset / pressure / burst / store effects the test chooses. */
class ProbeExperimentsTest {
    private static double metric(ResultRecord r, String k) {
        return ((Number) r.metric(k)).doubleValue();
    }

    private static ResultRecord summary(List<ResultRecord> rows, String series) {
        return rows.stream().filter(r -> "summary".equals(r.params().get("row")) && series.equals(r.params().get("series")))
                .findFirst().orElseThrow(() -> new AssertionError("no summary " + series));
    }

    private static double time(double rate, int tile) {
        return (long) (ProbeDevice.ALPHA + tile / rate);
    }

    @Test
    void offsetScanReportsTheRangeOfItsMedians() {
        // Every 4th 32-B step costs 1 % more bandwidth; nothing else moves.
        ProbeDevice d = new ProbeDevice((s, tile) -> s.probe().remoteOffset() % 128 == 96 ? 19.8 : 20.0);
        List<ResultRecord> rows = new E11AddressOffset().run(ProbeDevice.ctx(d));
        for (String kind : List.of("load", "store", "tma")) {
            List<ResultRecord> offs = rows.stream().filter(r -> "offset".equals(r.params().get("row"))
                    && kind.equals(r.params().get("kind"))).toList();
            assertEquals(128, offs.size());
            Set<Object> seen = new HashSet<>();
            offs.forEach(r -> seen.add(r.params().get("offset_bytes")));
            assertEquals(128, seen.size());
            assertTrue(seen.contains(0) && seen.contains(4064));
            ResultRecord s = summary(rows, kind + " 1->0 offset scan");
            double slow = time(19.8, E11AddressOffset.SIZE);
            double fast = time(20.0, E11AddressOffset.SIZE);
            double mean = (96 * fast + 32 * slow) / 128;
            assertEquals(100 * (slow - fast) / mean, metric(s, "range_cycles_pct"), 0.01);
            assertEquals(96, ((Number) s.metric("slowest_offset_bytes")).intValue() % 128);
            assertEquals(0.39, metric(s, "reference_range_cycles_pct"));
        }
    }

    @Test
    void anAddressBlindDeviceScansFlat() {
        List<ResultRecord> rows = new E11AddressOffset().run(ProbeDevice.ctx(new ProbeDevice((s, t) -> 21.0)));
        assertEquals(0.0, metric(summary(rows, "tma 1->0 offset scan"), "range_cycles_pct"), 1e-9);
    }

    @Test
    void pressureInvarianceAndItsViolation() {
        ProbeDevice flat = new ProbeDevice((s, t) -> 20.0);
        List<ResultRecord> rows = new E12SmemPressure().run(ProbeDevice.ctx(flat));
        assertEquals(1 + 3 * 2 * 5, rows.stream().filter(r -> "pressure".equals(r.params().get("row"))).count());
        ResultRecord s = summary(rows, "load 1->0 under pressure");
        assertEquals(0.0, metric(s, "max_deviation_from_baseline_pct"), 1e-9);
        assertEquals(31, metric(s, "configurations"));
        ResultRecord both16 = rows.stream().filter(r -> "both".equals(r.params().get("where"))
                && Integer.valueOf(16).equals(r.params().get("pressure_warps"))).findFirst().orElseThrow();
        assertEquals(2 * 2 * 32 * 16, metric(both16, "pressure_accesses_per_cycle"), 1e-9); // 2 ranks
        // Conflicting pressure on the served SM costs 5 % of the bandwidth: the summary must show it.
        ProbeDevice slowed = new ProbeDevice((sp, t) -> sp.probe().conflict() && (sp.probe().pressureRanks() & 2) != 0
                ? 20.0 / 1.05 : 20.0);
        ResultRecord v = summary(new E12SmemPressure().run(ProbeDevice.ctx(slowed)), "load 1->0 under pressure");
        double base = time(20.0, E12SmemPressure.SIZE);
        double worst = time(20.0 / 1.05, E12SmemPressure.SIZE);
        assertEquals(100 * (worst - base) / base, metric(v, "max_deviation_from_baseline_pct"), 1e-3);
        assertTrue(metric(v, "max_deviation_from_baseline_pct") > 4);
    }

    @Test
    void theE12PressureConfigsFitInACta() {
        // 2 x 224 + 32 + 16 x 32 = 992 <= 1024 threads.
        assertTrue(2 * E12SmemPressure.THREADS + 32 + 32 * Probe.MAX_PRESSURE_WARPS <= 1024);
        assertEquals(0, E12SmemPressure.THREADS % 32);
    }

    @Test
    void aTokenBucketShowsAsABurstMaximumAboveTheSteadyRate() {
        // 8 KiB of credit at 40 B/cycle, then 21.33: cold transfers up to 8 KiB are fast.
        double cap = 128.0 / 6;
        ProbeDevice bucket = new ProbeDevice((s, tile) -> tile <= 8192 ? 40.0 : cap);
        List<ResultRecord> rows = new E13Burst().run(ProbeDevice.ctx(bucket));
        ResultRecord max = summary(rows, "burst maximum");
        assertTrue(metric(max, "burst_max_b_per_cycle") > 30, () -> max.toString());
        ProbeDevice steady = new ProbeDevice((s, tile) -> cap);
        List<ResultRecord> flat = new E13Burst().run(ProbeDevice.ctx(steady));
        ResultRecord m = summary(flat, "burst maximum");
        assertEquals(cap, metric(m, "burst_max_b_per_cycle"), 0.05 * cap);
        ResultRecord cold = summary(flat, "load 1->0 cold");
        assertEquals(1.0, metric(cold, "burst_max_over_steady"), 0.05);
        ResultRecord bursts = summary(flat, "store 1->0 separated bursts");
        assertEquals(cap, metric(bursts, "busy_b_per_cycle_gap_0"), 0.01 * cap);
        assertEquals(1.0, metric(bursts, "max_over_gap_0"), 0.01);
    }

    @Test
    void burstCreditRefilledByTheGapRaisesTheBusyRate() {
        ProbeDevice refill = new ProbeDevice((s, tile) -> s.probe().burstGapCycles() >= 20_000 ? 30.0 : 21.0);
        ResultRecord b = summary(new E13Burst().run(ProbeDevice.ctx(refill)), "load 1->0 separated bursts");
        assertEquals(30.0 / 21.0, metric(b, "max_over_gap_0"), 0.01);
        assertTrue(((Number) b.metric("gap_of_max_cycles")).longValue() >= 20_000);
    }

    @Test
    void storeVariantsNameTheClosestAndSayWhetherTheGapIsExplained() {
        ProbeDevice none = new ProbeDevice((s, t) -> 21.3);
        ResultRecord open = summary(new E14StoreVariants().run(ProbeDevice.ctx(none)), "store variants vs the study");
        assertTrue(((String) open.params().get("verdict")).contains("remains open"));
        ProbeDevice generic = new ProbeDevice((s, t) -> s.probe().genericStore() && s.probe().storeUnroll() == 1
                ? 18.9 : 21.3);
        ResultRecord hit = summary(new E14StoreVariants().run(ProbeDevice.ctx(generic)), "store variants vs the study");
        assertTrue(((String) hit.params().get("verdict")).contains("candidate explanation"));
        assertTrue(((String) hit.params().get("closest_variant")).startsWith("generic u1"));
        assertEquals(100 * Math.abs(18.9 - 18.87) / 18.87, metric(hit, "closest_diff_pct"), 0.3);
    }

    @Test
    void ringIsolationReportsPerSmRatesAndTheSlowestReceivers() {
        // Receivers are slower when 16 SMs ring: the summary's loss must show it.
        ProbeDevice d = new ProbeDevice((s, t) -> s.activeRanks() == 16 ? 19.0 : 21.0);
        List<ResultRecord> rows = new E15RingIsolate().run(ProbeDevice.ctx(d));
        ResultRecord s = summary(rows, "ring 16 isolation");
        assertEquals(21.0, metric(s, "packed8_b_per_cycle"), 0.05);
        assertEquals(19.0, metric(s, "rank_order16_b_per_cycle"), 0.05);
        assertEquals(100 * (1 - 19.0 / 21.0), metric(s, "loss16_vs_packed8_pct"), 0.3);
        ResultRecord p16 = summary(rows, "tma ring packed k=16");
        assertTrue(((String) p16.params().get("slowest_receivers")).startsWith("smid "));
    }

    @Test
    void theModelRunsOnOurOwnFits() {
        // One-way load 20 B/cycle, both ways at once 16 per direction: exactly the model's 4/5.
        ProbeDevice d = new ProbeDevice((s, t) -> s.activeRanks() == 2 ? 16.0 : 20.0);
        List<ResultRecord> rows = new E16Model().run(ProbeDevice.ctx(d));
        ResultRecord ours = summary(rows, "model on our fits");
        assertEquals(20.0, metric(ours, "one_way_b_per_cycle"), 0.01);
        assertEquals(16.0, metric(ours, "duplex_b_per_cycle"), 0.01);
        assertEquals(16.0, metric(ours, "predicted_duplex_b_per_cycle"), 0.01);
        assertEquals(0.0, metric(ours, "prediction_above_measured_pct"), 0.1);
        assertEquals(15.90, metric(ours, "reference_predicted_duplex_b_per_cycle"));
        ResultRecord study = summary(rows, "model on the study's inputs");
        assertEquals(15.899, metric(study, "predicted_duplex_b_per_cycle"), 0.001);
    }

    @Test
    void probesAreSelectedByNameButNotByAll() {
        assertEquals(11, Experiments.select("all").size());
        assertEquals(List.of("E11", "E12", "E13", "E14", "E15", "E16"),
                Experiments.select("probes").stream().map(Experiment::id).toList());
        assertEquals("E13", Experiments.select("burst").getFirst().id());
        assertEquals(2, Experiments.select("E2,model").size());
        assertThrows(IllegalArgumentException.class, () -> Experiments.select("E17"));
    }

    @Test
    void probeKnobsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> Probe.BASELINE.withRemoteOffset(20));
        assertThrows(IllegalArgumentException.class, () -> Probe.BASELINE.withPressure(17, 1, false));
        assertThrows(IllegalArgumentException.class, () -> Probe.BASELINE.withPressure(4, 0, false));
        assertThrows(IllegalArgumentException.class, () -> Probe.BASELINE.withBursts(65, 0));
        assertThrows(IllegalArgumentException.class, () -> Probe.BASELINE.withStore(true, 2, false, 16));
        assertThrows(IllegalArgumentException.class, () -> Probe.BASELINE.withBursts(4, 0).withStore(false, 4, true, 16));
        assertThrows(IllegalArgumentException.class, () -> Probe.BASELINE.withStore(false, 4, false, 12));
        assertEquals("", Probe.NONE.label());
        assertTrue(Probe.BASELINE.withRemoteOffset(64).label().contains("offset=64"));
    }
}
