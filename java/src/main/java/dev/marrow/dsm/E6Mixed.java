// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * E6: rank 0 always loads rank 1's tile (read-response data flows 1 -> 0).
 * A second payload (store or TMA put) flows either the same way (1 -> 0,
 * into rank 0's receive buffer) or the opposite way (0 -> 1). Aggregate =
 * sum of the two streams' 1/beta.
 */
public final class E6Mixed implements Experiment {
    public String id() {
        return "E6";
    }

    public String name() {
        return "mixed";
    }

    public String title() {
        return "load 1->0 plus a store or TMA put in the same (1->0) or opposite (0->1) direction: aggregate 1/beta";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        for (OneWay second : List.of(OneWay.STORE, OneWay.TMA)) {
            for (boolean same : new boolean[] {true, false}) {
                int src = same ? 1 : 0;
                String dirName = same ? "same" : "opposite";
                String name = "load 1->0 + " + second.label() + " " + src + "->" + (1 - src);
                Spec spec = second.add(OneWay.LOAD.add(Spec.idle(name, 2), 1, 0), src, 1 - src);
                // Labels carry the mix: the same stream occurs in all four mixes.
                String l = name + ": " + OneWay.LOAD.series(1, 0);
                String w = name + ": " + second.series(src, 1 - src);
                Sweep.Result r = Sweep.run(ctx, spec, List.of(OneWay.LOAD.stream(1, 0, l), second.stream(src, 1 - src, w)));
                double agg = 0;
                for (SeriesFit f : r.fits().values()) {
                    agg += f.bytesPerCycle();
                    out.add(Report.fit(ctx, id(), spec, f, null).param("mix", name).param("direction", dirName));
                    out.addAll(Report.points(ctx, id(), f));
                }
                Reference.Ref ref = second == OneWay.STORE
                        ? (same ? Reference.MIXED_LOAD_STORE_SAME : Reference.MIXED_LOAD_STORE_OPPOSITE)
                        : (same ? Reference.MIXED_LOAD_TMA_SAME : Reference.MIXED_LOAD_TMA_OPPOSITE);
                ResultRecord s = Report.record(ctx, id(), "summary", name)
                        .param("second", second.label()).param("direction", dirName)
                        .metric("load_b_per_cycle", Report.round(r.fit(l).bytesPerCycle(), 3))
                        .metric("second_b_per_cycle", Report.round(r.fit(w).bytesPerCycle(), 3))
                        .metric("aggregate_b_per_cycle", Report.round(agg, 3));
                Report.reference(s, "aggregate_b_per_cycle", agg, ref);
                out.add(s);
                ctx.progress(String.format("E6 %s (%s): aggregate %.2f B/cycle (reference %.2f)", name, dirName, agg,
                        ref.value()));
            }
        }
        out.addAll(ratios(ctx, out));
        return out;
    }

    /** opposite / same aggregate per second kind (the directional-resource test). */
    private List<ResultRecord> ratios(DsmContext ctx, List<ResultRecord> rows) {
        List<ResultRecord> r = new ArrayList<>();
        for (OneWay second : List.of(OneWay.STORE, OneWay.TMA)) {
            double same = aggregate(rows, second, "same");
            double opp = aggregate(rows, second, "opposite");
            Reference.Ref rs = second == OneWay.STORE ? Reference.MIXED_LOAD_STORE_SAME : Reference.MIXED_LOAD_TMA_SAME;
            Reference.Ref ro = second == OneWay.STORE ? Reference.MIXED_LOAD_STORE_OPPOSITE : Reference.MIXED_LOAD_TMA_OPPOSITE;
            double ratio = opp / same;
            ResultRecord x = Report.record(ctx, id(), "summary", "opposite/same load+" + second.label())
                    .param("second", second.label())
                    .metric("opposite_over_same", Report.round(ratio, 4));
            Report.reference(x, "opposite_over_same", ratio, new Reference.Ref(ro.value() / rs.value(), "ratio", rs.source()));
            r.add(x);
        }
        return r;
    }

    private static double aggregate(List<ResultRecord> rows, OneWay second, String dir) {
        for (ResultRecord x : rows) {
            if ("summary".equals(x.params().get("row")) && second.label().equals(x.params().get("second"))
                    && dir.equals(x.params().get("direction"))) {
                return ((Number) x.metric("aggregate_b_per_cycle")).doubleValue();
            }
        }
        throw new IllegalStateException("no " + dir + " row for " + second);
    }
}
