// SPDX-License-Identifier: Apache-2.0
// "The study" below: "How does Hopper distributed shared memory actually move data?"
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * E12: is remote-load completion limited by shared memory or the LSU of
 * either SM? Rank 0 loads rank 1's 64-KiB tile while 1, 2, 4, 8 or 16
 * extra warps read-modify-write local shared memory (Probe pressure warps,
 * conflict-free or 32-way bank-conflicting) on the loader, on the SM that
 * serves the loads, or on both. Load groups have 224 threads here so that
 * 16 pressure warps fit in a CTA (2 x 224 + 32 + 16 x 32 = 992 threads);
 * the baseline is the same kernel without pressure. The study: completion
 * stays at 3,628-3,633 cycles with up to 16 warps of pressure, including a
 * conflicting bank pattern.
 */
public final class E12SmemPressure implements Experiment {
    static final int SIZE = 64 * DsmContext.KIB;
    static final int THREADS = 224;
    static final int[] WARPS = {1, 2, 4, 8, 16};
    /** Where the pressure runs: rank masks (rank 0 = loader, rank 1 = served SM). */
    static final String[] WHERE = {"loader", "served", "both"};
    static final int[] MASK = {1, 2, 3};

    public String id() {
        return "E12";
    }

    public String name() {
        return "smem-pressure";
    }

    public String title() {
        return "load 1->0 at 64 KiB with 1..16 warps of local shared-memory pressure on either SM: completion cycles";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        Probe base = Probe.BASELINE.withGroupThreads(THREADS);
        Stream load = Stream.load(0, "load 1->0");
        FixedSize b = FixedSize.measure(ctx, OneWay.LOAD.add(Spec.idle("load 1->0 no pressure", 2), 1, 0)
                .withProbe(base), SIZE, load);
        out.add(row(ctx, "none", 0, "none", b, b.medianCycles(), 0));
        List<Double> all = new ArrayList<>();
        all.add(b.medianCycles());
        for (int w = 0; w < WHERE.length; w++) {
            for (boolean conflict : new boolean[] {false, true}) {
                for (int warps : WARPS) {
                    Spec spec = OneWay.LOAD.add(Spec.idle("load 1->0 pressure", 2), 1, 0)
                            .withProbe(base.withPressure(warps, MASK[w], conflict));
                    FixedSize m = FixedSize.measure(ctx, spec, SIZE, load);
                    final int mask = MASK[w];
                    double ops = m.median(l -> pressureOps(l, mask));
                    out.add(row(ctx, WHERE[w], warps, conflict ? "conflict" : "spread", m, b.medianCycles(), ops));
                    all.add(m.medianCycles());
                }
            }
        }
        double[] v = all.stream().mapToDouble(Double::doubleValue).toArray();
        double dev = Spread.maxDeviationPct(v, b.medianCycles());
        out.add(Report.record(ctx, id(), "summary", "load 1->0 under pressure")
                .param("size_bytes", SIZE)
                .param("group_threads", THREADS)
                .metric("configurations", v.length)
                .metric("baseline_cycles", Report.round(b.medianCycles(), 1))
                .metric("min_median_cycles", Report.round(Spread.min(v), 1))
                .metric("max_median_cycles", Report.round(Spread.max(v), 1))
                .metric("range_cycles_pct", Report.round(Spread.rangePct(v), 3))
                .metric("max_deviation_from_baseline_pct", Report.round(dev, 3))
                .metric("reference_min_cycles", Reference.PRESSURE_MIN.value())
                .metric("reference_max_cycles", Reference.PRESSURE_MAX.value())
                .metric("reference_range_cycles_pct", Report.round(100.0 * (Reference.PRESSURE_MAX.value()
                        - Reference.PRESSURE_MIN.value()) / ((Reference.PRESSURE_MAX.value()
                        + Reference.PRESSURE_MIN.value()) / 2), 3))
                .metric("reference_source", Reference.PRESSURE_MIN.source()));
        ctx.progress(String.format("E12: %d configurations, %.0f..%.0f cycles, max %.2f%% from the unpressured %.0f "
                + "(reference %.0f..%.0f)", v.length, Spread.min(v), Spread.max(v), dev, b.medianCycles(),
                Reference.PRESSURE_MIN.value(), Reference.PRESSURE_MAX.value()));
        return out;
    }

    /** Shared-memory accesses per cycle of the pressure warps, summed over the pressured ranks of one launch. */
    static double pressureOps(Launch l, int mask) {
        double ops = 0;
        for (int r = 0; r < l.ranks().size(); r++) {
            if ((mask >> r & 1) != 0) {
                ops += l.rank(r).pressureOps();
            }
        }
        return ops / Probe.PRESSURE_CYCLES;
    }

    private ResultRecord row(DsmContext ctx, String where, int warps, String pattern, FixedSize m, double baseline,
            double opsPerCycle) {
        return Report.record(ctx, id(), "pressure", "load 1->0 " + where + " " + warps + "w " + pattern)
                .param("where", where)
                .param("pressure_warps", warps)
                .param("pattern", pattern)
                .param("group_threads", THREADS)
                .param("size_bytes", SIZE)
                .metric("median_cycles", Report.round(m.medianCycles(), 1))
                .metric("median_ns", Report.round(m.medianNs(), 1))
                .metric("vs_baseline_pct", Report.round(100.0 * (m.medianCycles() / baseline - 1), 3))
                .metric("pressure_accesses_per_cycle", Report.round(opsPerCycle, 3))
                .metric("rejected_runs", m.rejected());
    }
}
