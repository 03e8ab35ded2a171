// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * E7: every rank r TMA-puts its tile to (r + 1) mod N, N = 2, 4, 8, 16.
 * Per-SM 1/beta (each receiver on its own clock), the slowest receiver's
 * fit (whose alpha carries the cluster-size dependent completion cost) and
 * the ring span in globaltimer ns (aggregate = N / beta_span).
 */
public final class E7RingScaling implements Experiment {
    public String id() {
        return "E7";
    }

    public String name() {
        return "ring-scaling";
    }

    public String title() {
        return "TMA ring over 2/4/8/16 SMs: per-SM 1/beta, intercept growth, ring span";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        for (int n : new int[] {2, 4, 8, 16}) {
            Spec spec = Spec.idle("tma ring " + n, n);
            List<Stream> streams = new ArrayList<>();
            int[] all = new int[n];
            for (int r = 0; r < n; r++) {
                spec = spec.tma(r, (r + 1) % n);
                streams.add(Stream.tma(r, (r + 1) % n, "tma " + r + "->" + (r + 1) % n));
                all[r] = r;
            }
            streams.add(Stream.slowestTma(all, "ring " + n + " slowest receiver"));
            Sweep.Result res = Sweep.run(ctx, spec, streams);
            double rate = 0;
            double alpha = 0;
            double minRate = Double.MAX_VALUE;
            for (int r = 0; r < n; r++) {
                SeriesFit f = res.fits().get(streams.get(r).label());
                rate += f.bytesPerCycle() / n;
                alpha += f.cycles().alpha() / n;
                minRate = Math.min(minRate, f.bytesPerCycle());
                out.add(Report.fit(ctx, id(), spec, f, null).param("ring", n));
            }
            SeriesFit slow = res.fit("ring " + n + " slowest receiver");
            out.add(Report.fit(ctx, id(), spec, slow, null).param("ring", n));
            out.addAll(Report.points(ctx, id(), slow));
            ResultRecord s = Report.record(ctx, id(), "summary", "tma ring " + n)
                    .param("ring", n)
                    .param("placement", res.placement())
                    .metric("per_sm_b_per_cycle", Report.round(rate, 3))
                    .metric("min_sm_b_per_cycle", Report.round(minRate, 3))
                    .metric("per_sm_alpha_cycles", Report.round(alpha, 1))
                    .metric("slowest_b_per_cycle", Report.round(slow.bytesPerCycle(), 3))
                    .metric("slowest_alpha_cycles", Report.round(slow.cycles().alpha(), 1))
                    .metric("span_aggregate_gb_s", Report.round(n * slow.gbPerS(), 2))
                    .metric("span_alpha_ns", Report.round(slow.ns().alpha(), 1))
                    .metric("eff_clock_ghz", Report.round(slow.clockGhz(), 4));
            Report.reference(s, "per_sm_b_per_cycle", rate, Reference.RING_PER_SM);
            if (n == 2) {
                s.metric("reference_alpha_cycles", Reference.RING_ALPHA_2.value());
            } else if (n == 16) {
                s.metric("reference_alpha_cycles", Reference.RING_ALPHA_16.value());
            }
            out.add(s);
            ctx.progress(String.format("E7 ring %d: %.2f B/SM-cycle, alpha per-SM %.0f / slowest %.0f cycles", n, rate,
                    alpha, slow.cycles().alpha()));
        }
        return out;
    }
}
