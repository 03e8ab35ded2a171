// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * E9: each of the 240 directed pairs of a 16-CTA cluster alone (one TMA
 * stream, 14 idle ranks) at 64 KiB: end-to-end GB/s, and the alpha it
 * implies with our E4 one-way slope. Correlated with E1's latency matrix.
 */
public final class E9AllPairs implements Experiment {
    static final int N = 16;
    static final int SIZE = 64 * DsmContext.KIB;

    public String id() {
        return "E9";
    }

    public String name() {
        return "all-pairs";
    }

    public String title() {
        return "all 240 directed pairs of a 16-CTA cluster, one TMA stream each at 64 KiB: end-to-end GB/s";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        double slope = OneWay.TMA.oneWay(ctx, 2, 1, 0).fit(OneWay.TMA.series(1, 0)).cycles().beta();
        LatencyMatrix lat = E1Latency.matrix(ctx, N);
        double[] gbs = new double[N * (N - 1)];
        double[] lats = new double[gbs.length];
        double[] cyc = new double[gbs.length];
        int k = 0;
        for (int src = 0; src < N; src++) {
            for (int dst = 0; dst < N; dst++) {
                if (src == dst) {
                    continue;
                }
                Spec spec = Spec.idle("tma " + src + "->" + dst, N).tma(src, dst);
                DsmContext.Collected c = ctx.collect(spec, SIZE);
                Stream st = Stream.tma(src, dst, spec.name());
                double[] ns = new double[c.accepted().size()];
                double[] cy = new double[ns.length];
                for (int j = 0; j < ns.length; j++) {
                    ns[j] = st.ns(c.accepted().get(j));
                    cy[j] = st.cycles(c.accepted().get(j));
                }
                double mns = Stats.median(ns);
                double mcy = Stats.median(cy);
                gbs[k] = SIZE / mns;
                cyc[k] = mcy;
                lats[k] = lat.cyclesPerHop()[src][dst];
                k++;
                Sample s0 = c.accepted().getFirst().rank(src);
                Sample d0 = c.accepted().getFirst().rank(dst);
                out.add(Report.record(ctx, id(), "pair", spec.name())
                        .param("src", src).param("dst", dst)
                        .param("smid_src", s0.smidStart()).param("smid_dst", d0.smidStart())
                        .metric("e2e_gb_s", Report.round(SIZE / mns, 3))
                        .metric("e2e_b_per_cycle", Report.round(SIZE / mcy, 3))
                        .metric("median_cycles", Report.round(mcy, 1))
                        .metric("implied_alpha_cycles", Report.round(mcy - slope * SIZE, 1))
                        .metric("accepted_runs", c.accepted().size())
                        .metric("rejected_runs", c.rejected()));
            }
        }
        double[] sorted = gbs.clone();
        Arrays.sort(sorted);
        double[] alpha = new double[cyc.length];
        for (int i = 0; i < cyc.length; i++) {
            alpha[i] = cyc[i] - slope * SIZE;
        }
        ResultRecord s = Report.record(ctx, id(), "summary", "240 pairs")
                .param("size_bytes", SIZE)
                .metric("min_gb_s", Report.round(sorted[0], 3))
                .metric("median_gb_s", Report.round(Stats.median(gbs), 3))
                .metric("max_gb_s", Report.round(sorted[sorted.length - 1], 3))
                .metric("spread_pct", Report.round(100 * (sorted[sorted.length - 1] / sorted[0] - 1), 3))
                .metric("median_implied_alpha_cycles", Report.round(Stats.median(alpha), 1))
                .metric("slope_source", "E4 tma 1->0 cluster 2")
                .metric("corr_with_e1_latency", Report.round(pearson(lats, cyc), 4))
                .metric("reference_min_gb_s", Reference.PAIR_MIN.value())
                .metric("reference_max_gb_s", Reference.PAIR_MAX.value())
                .metric("reference_source", Reference.STUDY);
        out.add(s);
        ctx.progress(String.format("E9: 240 pairs %.2f..%.2f GB/s (reference %.2f..%.2f)", sorted[0],
                sorted[sorted.length - 1], Reference.PAIR_MIN.value(), Reference.PAIR_MAX.value()));
        return out;
    }

    /** Pearson correlation; NaN when either side is constant. */
    static double pearson(double[] x, double[] y) {
        int n = x.length;
        double mx = Arrays.stream(x).average().orElse(0);
        double my = Arrays.stream(y).average().orElse(0);
        double sxy = 0;
        double sxx = 0;
        double syy = 0;
        for (int i = 0; i < n; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }
        return sxy / Math.sqrt(sxx * syy);
    }
}
