// SPDX-License-Identifier: Apache-2.0
// "The study" below: "How does Hopper distributed shared memory actually move data?"
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * E11: does the remote address matter for one isolated stream? Load, store
 * and TMA 1->0 in a 2-CTA cluster at 64 KiB with the tile's base moved by
 * 0, 32, ..., 4064 B (Probe.remoteOffset moves it in every CTA's source
 * region and receive buffer, so every remote address of the stream moves).
 * Reported: the median time per offset and the range of those medians
 * relative to their mean, beside the study's 0.39 %. Offsets are visited in
 * a scrambled order (37 k mod 128) so that a slow drift of the clock cannot
 * pose as an address effect.
 */
public final class E11AddressOffset implements Experiment {
    static final int SIZE = 64 * DsmContext.KIB;
    static final int STEP = 32;
    static final int SPAN = 4096;

    public String id() {
        return "E11";
    }

    public String name() {
        return "address-offset";
    }

    public String title() {
        return "load/store/TMA 1->0 at 64 KiB with the remote address offset by 0..4064 B in 32-B steps: range of medians";
    }

    /** Offsets in visiting order: a permutation of 0, 32, ..., 4064. */
    static int[] offsets() {
        int n = SPAN / STEP;
        int[] o = new int[n];
        for (int i = 0; i < n; i++) {
            o[i] = (int) ((37L * i) % n) * STEP;
        }
        return o;
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        for (OneWay kind : OneWay.values()) {
            String series = kind.series(1, 0);
            int[] offs = offsets();
            double[] cyc = new double[offs.length];
            double[] ns = new double[offs.length];
            int rejected = 0;
            for (int i = 0; i < offs.length; i++) {
                Spec spec = kind.add(Spec.idle(series + " offset " + offs[i], 2), 1, 0)
                        .withProbe(Probe.BASELINE.withRemoteOffset(offs[i]));
                FixedSize m = FixedSize.measure(ctx, spec, SIZE, kind.stream(1, 0, series));
                cyc[i] = m.medianCycles();
                ns[i] = m.medianNs();
                rejected += m.rejected();
                out.add(Report.record(ctx, id(), "offset", series)
                        .param("kind", kind.label())
                        .param("offset_bytes", offs[i])
                        .param("size_bytes", SIZE)
                        .metric("median_cycles", Report.round(cyc[i], 1))
                        .metric("median_ns", Report.round(ns[i], 1))
                        .metric("b_per_cycle", Report.round(SIZE / cyc[i], 3)));
            }
            double range = Spread.rangePct(cyc);
            ResultRecord s = Report.record(ctx, id(), "summary", series + " offset scan")
                    .param("kind", kind.label())
                    .param("size_bytes", SIZE)
                    .param("offsets", "0.." + (SPAN - STEP) + " step " + STEP)
                    .metric("offsets_scanned", offs.length)
                    .metric("min_median_cycles", Report.round(Spread.min(cyc), 1))
                    .metric("max_median_cycles", Report.round(Spread.max(cyc), 1))
                    .metric("slowest_offset_bytes", offs[Spread.argMax(cyc)])
                    .metric("range_cycles_pct", Report.round(range, 3))
                    .metric("range_ns_pct", Report.round(Spread.rangePct(ns), 3))
                    .metric("rejected_runs", rejected)
                    .metric("reference_range_cycles_pct", Reference.OFFSET_SPREAD.value())
                    .metric("reference_source", Reference.OFFSET_SPREAD.source());
            out.add(s);
            ctx.progress(String.format("E11 %s: %d offsets, medians %.0f..%.0f cycles, range %.2f%% (reference %.2f%%)",
                    series, offs.length, Spread.min(cyc), Spread.max(cyc), range, Reference.OFFSET_SPREAD.value()));
        }
        return out;
    }
}
