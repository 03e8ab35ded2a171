// SPDX-License-Identifier: Apache-2.0
// "The study" below: "How does Hopper distributed shared memory actually move data?"
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * E13: is there burst credit (a token bucket) above the steady per-SM rate?
 * (a) Cold transfers: every launch starts after the SM has moved nothing
 * for microseconds, so a bucket would be full; load, store and TMA 1->0 with
 * tiles of 1..16 KiB, fitted over sliding windows of 8 sizes. The fastest
 * window ("burst maximum") is set against our steady 16..96 KiB slope of
 * the same kind and the study's ~21.3 B/cycle. (b) Separated bursts: the
 * load or store group moves its tile in 8 bursts with 0, 2000, 20000 or
 * 200000 idle cycles between them (Probe bursts); the sum of the per-burst
 * durations, fitted against the tile (8..64 KiB), gives the rate while busy.
 * A bucket refilled during the gaps makes it rise with the gap.
 */
public final class E13Burst implements Experiment {
    static final int[] COLD_SIZES = DsmContext.sizes(1, 16, 1);
    static final int WINDOW = 8;
    static final int BURSTS = 8;
    static final long[] GAPS = {0, 2_000, 20_000, 200_000};
    static final int[] BURST_TILES = {8 * 1024, 16 * 1024, 24 * 1024, 32 * 1024, 48 * 1024, 64 * 1024};

    public String id() {
        return "E13";
    }

    public String name() {
        return "burst";
    }

    public String title() {
        return "burst credit: cold 1..16 KiB transfers (windowed slopes) and 8 bursts with idle gaps (rate while busy)";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        double best = 0;
        String bestWhat = "";
        for (OneWay kind : OneWay.values()) {
            String series = kind.series(1, 0) + " cold";
            Spec spec = kind.add(Spec.idle(series, 2), 1, 0);
            SeriesFit f = Sweep.measure(ctx, spec, List.of(kind.stream(1, 0, series)), COLD_SIZES).fit(series);
            out.add(Report.fit(ctx, id(), spec, f, null).param("part", "cold"));
            out.addAll(Report.points(ctx, id(), f));
            WindowedSlopes.Max m = WindowedSlopes.max(f.bytes(), f.medianCycles(), WINDOW);
            double steady = kind.oneWay(ctx, 2, 1, 0).fit(kind.series(1, 0)).bytesPerCycle();
            out.add(Report.record(ctx, id(), "summary", series)
                    .param("part", "cold").param("kind", kind.label())
                    .param("window_bytes", (long) m.fromBytes() + ".." + (long) m.toBytes())
                    .metric("burst_max_b_per_cycle", Report.round(m.rate(), 3))
                    .metric("whole_range_b_per_cycle", Report.round(f.bytesPerCycle(), 3))
                    .metric("steady_b_per_cycle", Report.round(steady, 3))
                    .metric("burst_max_over_steady", Report.round(m.rate() / steady, 4))
                    .metric("reference_ceiling_b_per_cycle", Reference.BURST_CEILING.value())
                    .metric("reference_source", Reference.BURST_CEILING.source()));
            ctx.progress(String.format("E13 %s: fastest 8-size window %.2f B/cycle (%d..%d B), steady %.2f", series,
                    m.rate(), (long) m.fromBytes(), (long) m.toBytes(), steady));
            if (m.rate() > best) {
                best = m.rate();
                bestWhat = series + " " + (long) m.fromBytes() + ".." + (long) m.toBytes() + " B";
            }
        }
        for (OneWay kind : List.of(OneWay.LOAD, OneWay.STORE)) {
            double[] rate = new double[GAPS.length];
            for (int g = 0; g < GAPS.length; g++) {
                String series = kind.series(1, 0) + " " + BURSTS + " bursts gap " + GAPS[g];
                Spec spec = kind.add(Spec.idle(series, 2), 1, 0).withProbe(Probe.BASELINE.withBursts(BURSTS, GAPS[g]));
                int rank = kind == OneWay.LOAD ? 0 : 1; // the group that runs the bursts
                SeriesFit f = Sweep.measure(ctx, spec, List.of(busy(rank, series)), BURST_TILES).fit(series);
                rate[g] = f.bytesPerCycle();
                out.add(Report.fit(ctx, id(), spec, f, null).param("part", "bursts")
                        .param("bursts", BURSTS).param("gap_cycles", GAPS[g]));
                out.addAll(Report.points(ctx, id(), f));
                if (rate[g] > best) {
                    best = rate[g];
                    bestWhat = series;
                }
            }
            int k = Spread.argMax(rate);
            out.add(Report.record(ctx, id(), "summary", kind.series(1, 0) + " separated bursts")
                    .param("part", "bursts").param("kind", kind.label()).param("bursts", BURSTS)
                    .metric("busy_b_per_cycle_gap_0", Report.round(rate[0], 3))
                    .metric("busy_b_per_cycle_max", Report.round(rate[k], 3))
                    .metric("gap_of_max_cycles", GAPS[k])
                    .metric("max_over_gap_0", Report.round(rate[k] / rate[0], 4))
                    .metric("reference_ceiling_b_per_cycle", Reference.BURST_CEILING.value()));
            ctx.progress(String.format("E13 %s bursts: busy rate %.2f at gap 0, max %.2f at gap %d", kind.label(),
                    rate[0], rate[k], GAPS[k]));
        }
        ResultRecord s = Report.record(ctx, id(), "summary", "burst maximum")
                .param("where", bestWhat)
                .metric("burst_max_b_per_cycle", Report.round(best, 3));
        Report.reference(s, "burst_max_b_per_cycle", best, Reference.BURST_CEILING);
        out.add(s);
        return out;
    }

    /**
     * The sum of per-burst durations of rank's group (its own clock); in ns
     * converted with that launch's own cycles-per-ns over the whole interval.
     */
    static Stream busy(int rank, String label) {
        return new Stream() {
            public String label() {
                return label;
            }

            public double cycles(Launch l) {
                return l.rank(rank).burstBusyCycles();
            }

            public double ns(Launch l) {
                Sample s = l.rank(rank);
                boolean load = s.clkLoadEnd() != 0;
                double cyc = (load ? s.clkLoadEnd() : s.clkStoreEnd()) - s.clkStart();
                double ns = (load ? s.gtLoadEnd() : s.gtStoreEnd()) - s.gtStart();
                return s.burstBusyCycles() * ns / cyc;
            }
        };
    }
}
