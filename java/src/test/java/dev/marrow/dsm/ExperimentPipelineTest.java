// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Experiments end to end on the synthetic device: known rates in, the same rates out. */
class ExperimentPipelineTest {
    private static DsmContext ctx(SyntheticDsmDevice d) {
        return new DsmContext(d, 30, 3, DsmContext.DEFAULT_SIZES, null);
    }

    private static double metric(ResultRecord r, String k) {
        return ((Number) r.metric(k)).doubleValue();
    }

    @Test
    void oneWayTmaReportsTheSyntheticRateBesideTheReference() {
        SyntheticDsmDevice d = new SyntheticDsmDevice(19, 18, 21, 0);
        List<ResultRecord> rows = new E2E4OneWay(OneWay.TMA).run(ctx(d));
        List<ResultRecord> fits = rows.stream().filter(r -> "fit".equals(r.params().get("row"))).toList();
        assertEquals(3, fits.size());
        for (ResultRecord f : fits) {
            assertEquals(21.0, metric(f, "inv_beta_b_per_cycle"), 0.05);
            assertEquals(SyntheticDsmDevice.CLOCK, metric(f, "eff_clock_ghz"), 0.01);
            assertEquals(SyntheticDsmDevice.ALPHA, metric(f, "alpha_cycles"), 2);
            assertEquals(Reference.TMA.value(), metric(f, "reference_inv_beta_b_per_cycle"));
            assertEquals(330, metric(f, "accepted_runs"));
            assertEquals("dsm.E4", f.experiment());
            assertFalse(f.hardware());
        }
        assertEquals(33, rows.stream().filter(r -> "point".equals(r.params().get("row"))).count());
    }

    @Test
    void rejectedLaunchesAreCountedAndReplaced() {
        SyntheticDsmDevice d = new SyntheticDsmDevice(19, 18, 21, 10);
        DsmContext c = ctx(d);
        List<ResultRecord> rows = new E2E4OneWay(OneWay.LOAD).run(c);
        ResultRecord f = rows.stream().filter(r -> "fit".equals(r.params().get("row"))).findFirst().orElseThrow();
        assertEquals(330, metric(f, "accepted_runs"));
        assertTrue(metric(f, "rejected_runs") > 0);
        assertEquals(19.0, metric(f, "inv_beta_b_per_cycle"), 0.05);
        assertTrue(c.rejections().containsKey("recv_checksum"));
    }

    @Test
    void aSystematicallyBrokenSeriesAborts() {
        SyntheticDsmDevice d = new SyntheticDsmDevice(19, 18, 21, 1); // every launch bad
        assertThrows(dev.marrow.api.MarrowException.class, () -> new E2E4OneWay(OneWay.STORE).run(ctx(d)));
    }

    @Test
    void mixedAggregatesAndBidirectionalLossUseOurOwnNumbers() {
        SyntheticDsmDevice d = new SyntheticDsmDevice(20, 18, 21, 0);
        DsmContext c = ctx(d);
        List<ResultRecord> e6 = new E6Mixed().run(c);
        ResultRecord same = e6.stream().filter(r -> "summary".equals(r.params().get("row"))
                && "store".equals(r.params().get("second")) && "same".equals(r.params().get("direction")))
                .findFirst().orElseThrow();
        assertEquals(38.0, metric(same, "aggregate_b_per_cycle"), 0.1); // 20 + 18: no contention in the fake
        List<ResultRecord> e5 = new E5Bidirectional().run(c);
        ResultRecord load = e5.stream().filter(r -> "summary".equals(r.params().get("row"))
                && "load".equals(r.params().get("kind"))).findFirst().orElseThrow();
        assertEquals(0.0, metric(load, "loss_vs_one_way_pct"), 0.1);
    }

    @Test
    void tmaPlusStoreMixesAreReportedWithoutAReference() {
        SyntheticDsmDevice d = new SyntheticDsmDevice(20, 18, 21, 0);
        List<ResultRecord> e6 = new E6Mixed().run(ctx(d));
        for (String dir : List.of("same", "opposite")) {
            ResultRecord s = e6.stream().filter(r -> "summary".equals(r.params().get("row"))
                    && "tma".equals(r.params().get("first")) && "store".equals(r.params().get("second"))
                    && dir.equals(r.params().get("direction"))).findFirst().orElseThrow();
            assertEquals(39.0, metric(s, "aggregate_b_per_cycle"), 0.1); // 21 + 18
            assertEquals(21.0, metric(s, "first_b_per_cycle"), 0.05);
            assertEquals(18.0, metric(s, "second_b_per_cycle"), 0.05);
            assertNull(s.metric("reference_aggregate_b_per_cycle"));
        }
        ResultRecord ratio = e6.stream().filter(r -> "opposite/same tma+store".equals(r.params().get("series")))
                .findFirst().orElseThrow();
        assertEquals(1.0, metric(ratio, "opposite_over_same"), 0.01);
        // The load mixes keep their references.
        ResultRecord ls = e6.stream().filter(r -> "opposite/same load+store".equals(r.params().get("series")))
                .findFirst().orElseThrow();
        assertEquals(Reference.MIXED_LOAD_STORE_OPPOSITE.value() / Reference.MIXED_LOAD_STORE_SAME.value(),
                metric(ls, "reference_opposite_over_same"), 1e-9);
        // 3 mixes x 2 directions x 2 streams.
        assertEquals(12, e6.stream().filter(r -> "fit".equals(r.params().get("row"))).count());
    }

    @Test
    void sharingRunsTmaAndLoadStreamsPerLayoutAndK() {
        SyntheticDsmDevice d = new SyntheticDsmDevice(19, 18, 21, 0);
        List<ResultRecord> e10 = new E10Sharing().run(ctx(d));
        for (String kind : List.of("tma", "load")) {
            List<ResultRecord> perK = e10.stream().filter(r -> kind.equals(r.params().get("kind"))
                    && r.params().get("k") != null).toList();
            assertEquals(16, perK.size(), kind);
            double rate = kind.equals("tma") ? 21.0 : 19.0;
            for (ResultRecord r : perK) {
                assertEquals(rate, metric(r, "per_sender_b_per_cycle"), 0.05);
                int k = ((Number) r.params().get("k")).intValue();
                assertEquals(rate * k, metric(r, "aggregate_b_per_cycle"), 0.05 * k);
            }
            assertEquals(2, e10.stream().filter(r -> kind.equals(r.params().get("kind"))
                    && r.metric("per_sender_k8_over_k1") != null).count());
        }
        ResultRecord loadPacked = e10.stream().filter(r -> "load packed k=8 vs k=1".equals(r.params().get("series")))
                .findFirst().orElseThrow();
        assertEquals(1.0, metric(loadPacked, "per_sender_k8_over_k1"), 0.01);
    }

    @Test
    void aStoreIntoTheSourceRegionIsCheckedThroughLoadSum() {
        Sample good = new Sample(0, 0, 2, 2, 0, Sample.ROLE_RECV_TMA | Sample.ROLE_RECV_STORE_SRC, 1, 1, 0, 0, 0, 0,
                5, 5, 0, 1, 7, 7, 9, 9);
        assertTrue(good.ok());
        Sample bad = new Sample(0, 0, 2, 2, 0, Sample.ROLE_RECV_TMA | Sample.ROLE_RECV_STORE_SRC, 1, 1, 0, 0, 0, 0,
                5, 5, 0, 1, 6, 7, 9, 9);
        assertFalse(bad.ok());
    }

    @Test
    void experimentSelection() {
        assertEquals(11, Experiments.select("all").size());
        assertEquals("E4", Experiments.select("one-way-tma").getFirst().id());
        assertEquals(2, Experiments.select("e0, E9").size());
        assertThrows(IllegalArgumentException.class, () -> Experiments.select("E42"));
    }
}
