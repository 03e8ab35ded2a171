// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;

import java.util.ArrayList;
import java.util.List;

/**
 * E8: 16-SM TMA permutations at 64 KiB: ring strides r -> (r + s) mod 16,
 * s = 1..15, and 8 disjoint adjacent pairs {@code r <-> r^1}. Aggregates under every
 * definition (Aggregate); full size sweeps for s = 1 and the pairs give the
 * sum of per-SM slopes.
 */
public final class E8RingStrides implements Experiment {
    static final int N = 16;
    static final int SIZE = 64 * DsmContext.KIB;

    public String id() {
        return "E8";
    }

    public String name() {
        return "ring-strides";
    }

    public String title() {
        return "16-SM TMA ring strides 1..15 and 8 disjoint adjacent pairs at 64 KiB: aggregate GB/s";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        double[] span = new double[N - 1];
        double best = 0;
        double worst = Double.MAX_VALUE;
        int bestS = 0;
        int worstS = 0;
        for (int s = 1; s < N; s++) {
            int[] src = new int[N];
            int[] dst = new int[N];
            for (int r = 0; r < N; r++) {
                src[r] = r;
                dst[r] = (r + s) % N;
            }
            Aggregate a = measure(ctx, "tma stride " + s, src, dst, out);
            span[s - 1] = a.spanGbS();
            if (a.spanGbS() > best) {
                best = a.spanGbS();
                bestS = s;
            }
            if (a.spanGbS() < worst) {
                worst = a.spanGbS();
                worstS = s;
            }
        }
        int[] src = new int[N];
        int[] dst = new int[N];
        for (int r = 0; r < N; r++) {
            src[r] = r;
            dst[r] = r ^ 1;
        }
        Aggregate pairs = measure(ctx, "tma pairs r<->r^1", src, dst, out);
        double median = Stats.median(span);
        ResultRecord s = Report.record(ctx, id(), "summary", "strides vs pairs")
                .param("size_bytes", SIZE)
                .param("definition", "span: 16*B / (last end - first start), globaltimer")
                .metric("best_stride", bestS)
                .metric("best_span_gb_s", Report.round(best, 2))
                .metric("worst_stride", worstS)
                .metric("worst_span_gb_s", Report.round(worst, 2))
                .metric("median_ring_span_gb_s", Report.round(median, 2))
                .metric("pairs_span_gb_s", Report.round(pairs.spanGbS(), 2))
                .metric("pairs_vs_median_ring_pct", Report.round(100 * (pairs.spanGbS() / median - 1), 2))
                .metric("reference_best_gb_s", Reference.STRIDE_BEST.value())
                .metric("reference_worst_gb_s", Reference.STRIDE_WORST.value())
                .metric("reference_pairs_vs_ring_pct", Reference.PAIRS_VS_RING.value())
                .metric("reference_source", Reference.STUDY);
        out.add(s);
        // Slopes: full sweeps for stride 1 and the pairs.
        for (boolean pairMode : new boolean[] {false, true}) {
            Spec spec = Spec.idle(pairMode ? "tma pairs r<->r^1" : "tma stride 1", N);
            List<Stream> streams = new ArrayList<>();
            for (int r = 0; r < N; r++) {
                int d = pairMode ? r ^ 1 : (r + 1) % N;
                spec = spec.tma(r, d);
                streams.add(Stream.tma(r, d, "tma " + r + "->" + d));
            }
            Sweep.Result res = Sweep.run(ctx, spec, streams);
            double sumCyc = 0;
            double sumGb = 0;
            for (SeriesFit f : res.fits().values()) {
                sumCyc += f.bytesPerCycle();
                sumGb += f.gbPerS();
            }
            out.add(Report.record(ctx, id(), "summary", spec.name() + " slopes")
                    .param("placement", res.placement())
                    .metric("sum_of_slopes_b_per_cycle", Report.round(sumCyc, 2))
                    .metric("sum_of_slopes_gb_s", Report.round(sumGb, 2))
                    .metric("per_sm_b_per_cycle", Report.round(sumCyc / N, 3)));
        }
        ctx.progress(String.format("E8: strides %.1f..%.1f GB/s (span), pairs %.1f GB/s (%+.1f%% vs median ring)",
                worst, best, pairs.spanGbS(), 100 * (pairs.spanGbS() / median - 1)));
        return out;
    }

    private Aggregate measure(DsmContext ctx, String name, int[] src, int[] dst, List<ResultRecord> out) {
        Spec spec = Spec.idle(name, N);
        for (int r = 0; r < src.length; r++) {
            spec = spec.tma(src[r], dst[r]);
        }
        DsmContext.Collected c = ctx.collect(spec, SIZE);
        Aggregate a = Aggregate.of(c.accepted(), src, dst);
        out.add(Report.record(ctx, id(), "stride", name)
                .param("size_bytes", SIZE)
                .param("placement", c.accepted().getFirst().placement())
                .metric("span_gb_s", Report.round(a.spanGbS(), 2))
                .metric("sum_e2e_gb_s", Report.round(a.sumE2eGbS(), 2))
                .metric("sum_e2e_b_per_cycle", Report.round(a.sumE2eBPerCycle(), 2))
                .metric("accepted_runs", c.accepted().size())
                .metric("rejected_runs", c.rejected()));
        return a;
    }
}
