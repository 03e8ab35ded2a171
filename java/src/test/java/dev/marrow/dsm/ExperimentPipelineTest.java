// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    void experimentSelection() {
        assertEquals(11, Experiments.select("all").size());
        assertEquals("E4", Experiments.select("one-way-tma").getFirst().id());
        assertEquals(2, Experiments.select("e0, E9").size());
        assertThrows(IllegalArgumentException.class, () -> Experiments.select("E42"));
    }
}
