// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * E6: a first stream always carries data 1 -> 0: rank 0 loads rank 1's
 * tile (read-response data flows 1 -> 0), or rank 1 TMA-puts into rank 0.
 * A second payload flows either the same way (1 -> 0) or the opposite way
 * (0 -> 1): after a load, a store or a TMA put; after a TMA put, a store
 * (same direction: rank 0 receives both, the store landing in its source
 * region, see MARROW_DSM_ROLE_RECV_STORE_SRC). Aggregate = sum of the two
 * streams' 1/beta.
 */
public final class E6Mixed implements Experiment {
    /** The mixes: first kind (1 -> 0) and second kind. */
    static final List<OneWay[]> MIXES = List.of(new OneWay[] {OneWay.LOAD, OneWay.STORE},
            new OneWay[] {OneWay.LOAD, OneWay.TMA}, new OneWay[] {OneWay.TMA, OneWay.STORE});

    public String id() {
        return "E6";
    }

    public String name() {
        return "mixed";
    }

    public String title() {
        return "load or TMA 1->0 plus a store or TMA put in the same (1->0) or opposite (0->1) direction: aggregate 1/beta";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        for (OneWay[] mix : MIXES) {
            OneWay first = mix[0];
            OneWay second = mix[1];
            for (boolean same : new boolean[] {true, false}) {
                int src = same ? 1 : 0;
                String dirName = same ? "same" : "opposite";
                String name = first.series(1, 0) + " + " + second.label() + " " + src + "->" + (1 - src);
                Spec spec = second.add(first.add(Spec.idle(name, 2), 1, 0), src, 1 - src);
                // Labels carry the mix: the same stream occurs in several mixes.
                String l = name + ": " + first.series(1, 0);
                String w = name + ": " + second.series(src, 1 - src);
                Sweep.Result r = Sweep.run(ctx, spec, List.of(first.stream(1, 0, l), second.stream(src, 1 - src, w)));
                double agg = 0;
                for (SeriesFit f : r.fits().values()) {
                    agg += f.bytesPerCycle();
                    out.add(Report.fit(ctx, id(), spec, f, null).param("mix", name).param("direction", dirName));
                    out.addAll(Report.points(ctx, id(), f));
                }
                Reference.Ref ref = reference(first, second, same);
                ResultRecord s = Report.record(ctx, id(), "summary", name)
                        .param("first", first.label())
                        .param("second", second.label()).param("direction", dirName)
                        .metric("first_b_per_cycle", Report.round(r.fit(l).bytesPerCycle(), 3))
                        .metric("second_b_per_cycle", Report.round(r.fit(w).bytesPerCycle(), 3))
                        .metric("aggregate_b_per_cycle", Report.round(agg, 3));
                if (first == OneWay.LOAD) {
                    s.metric("load_b_per_cycle", Report.round(r.fit(l).bytesPerCycle(), 3));
                }
                if (ref != null) {
                    Report.reference(s, "aggregate_b_per_cycle", agg, ref);
                }
                out.add(s);
                ctx.progress(String.format("E6 %s (%s): aggregate %.2f B/cycle%s", name, dirName, agg,
                        ref == null ? " (no reference)" : String.format(" (reference %.2f)", ref.value())));
            }
        }
        out.addAll(ratios(ctx, out));
        return out;
    }

    /** The aggregate of "How does Hopper distributed shared memory actually move data?" for load + store / load + TMA; null for TMA + store (not published). */
    static Reference.Ref reference(OneWay first, OneWay second, boolean same) {
        if (first != OneWay.LOAD) {
            return null;
        }
        return second == OneWay.STORE
                ? (same ? Reference.MIXED_LOAD_STORE_SAME : Reference.MIXED_LOAD_STORE_OPPOSITE)
                : (same ? Reference.MIXED_LOAD_TMA_SAME : Reference.MIXED_LOAD_TMA_OPPOSITE);
    }

    /** opposite / same aggregate per mix (the directional-resource test). */
    private List<ResultRecord> ratios(DsmContext ctx, List<ResultRecord> rows) {
        List<ResultRecord> r = new ArrayList<>();
        for (OneWay[] mix : MIXES) {
            double same = aggregate(rows, mix, "same");
            double opp = aggregate(rows, mix, "opposite");
            double ratio = opp / same;
            ResultRecord x = Report.record(ctx, id(), "summary", "opposite/same " + mix[0].label() + "+" + mix[1].label())
                    .param("first", mix[0].label())
                    .param("second", mix[1].label())
                    .metric("opposite_over_same", Report.round(ratio, 4));
            Reference.Ref rs = reference(mix[0], mix[1], true);
            Reference.Ref ro = reference(mix[0], mix[1], false);
            if (rs != null) {
                Report.reference(x, "opposite_over_same", ratio, new Reference.Ref(ro.value() / rs.value(), "ratio", rs.source()));
            }
            r.add(x);
        }
        return r;
    }

    private static double aggregate(List<ResultRecord> rows, OneWay[] mix, String dir) {
        for (ResultRecord x : rows) {
            if ("summary".equals(x.params().get("row")) && mix[0].label().equals(x.params().get("first"))
                    && mix[1].label().equals(x.params().get("second")) && dir.equals(x.params().get("direction"))) {
                return ((Number) x.metric("aggregate_b_per_cycle")).doubleValue();
            }
        }
        throw new IllegalStateException("no " + dir + " row for " + mix[0] + "+" + mix[1]);
    }
}
