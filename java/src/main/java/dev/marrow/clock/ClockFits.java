// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns clock samples into one fit record per (group, sequence). Samples of a
 * locked sweep are first reduced to one point per locked clock (the median
 * measured clock and the median latency over the passes), as Table 6 of
 * "GPU-Initiated Communication: Dissecting Down to the Bone" fits clock
 * medians; samples without a locked clock are points as
 * they are. The fit's f is always the MEASURED clock, so a lock the driver
 * did not honour shows up as a point where it really ran.
 */
public final class ClockFits {
    public static final String CLOCK_BASIS = "measured SM clock (clock64 cycles / globaltimer ns during the run); "
            + "median per locked clock when clocks were locked";

    private ClockFits() {
    }

    /** One (group, sequence): its points and either a fit or the reason there is none. */
    public record Outcome(String group, String sequence, double[] clockMhz, double[] latencyUs, ClockFit fit,
                          String notFitted) {
        public boolean fitted() {
            return fit != null;
        }
    }

    public static List<Outcome> fit(List<ClockSample> samples) {
        Map<String, List<ClockSample>> byKey = new LinkedHashMap<>();
        for (ClockSample s : samples) {
            byKey.computeIfAbsent(s.group() + "\u0000" + s.sequence(), k -> new ArrayList<>()).add(s);
        }
        List<Outcome> out = new ArrayList<>();
        for (List<ClockSample> l : byKey.values()) {
            List<double[]> pts = points(l);
            double[] f = pts.stream().mapToDouble(p -> p[0]).toArray();
            double[] t = pts.stream().mapToDouble(p -> p[1]).toArray();
            ClockSample first = l.getFirst();
            try {
                out.add(new Outcome(first.group(), first.sequence(), f, t, ClockFit.of(f, t), null));
            } catch (IllegalArgumentException e) {
                out.add(new Outcome(first.group(), first.sequence(), f, t, null, e.getMessage()));
            }
        }
        return out;
    }

    /** (measured MHz, latency us) points: medians per locked clock, or the samples themselves. */
    static List<double[]> points(List<ClockSample> l) {
        boolean locked = l.stream().allMatch(s -> s.lockedMhz() > 0);
        List<double[]> pts = new ArrayList<>();
        if (!locked) {
            for (ClockSample s : l) {
                pts.add(new double[] {s.measuredMhz(), s.latencyUs()});
            }
            return pts;
        }
        Map<Integer, List<ClockSample>> byClock = new TreeMap<>();
        for (ClockSample s : l) {
            byClock.computeIfAbsent(s.lockedMhz(), k -> new ArrayList<>()).add(s);
        }
        for (List<ClockSample> c : byClock.values()) {
            pts.add(new double[] {Stats.median(c.stream().mapToDouble(ClockSample::measuredMhz).toArray()),
                    Stats.median(c.stream().mapToDouble(ClockSample::latencyUs).toArray())});
        }
        return pts;
    }

    /** The fit record of one outcome (experiment e.g. "gda.clock_sweep.fit"). */
    public static ResultRecord record(String experiment, String backend, boolean hardware, Outcome o) {
        ResultRecord r = new ResultRecord(experiment, backend, hardware)
                .param("group", o.group()).param("sequence", o.sequence())
                .param("model", "T(f) = C / f + B, least squares over 1/f (T in us, f in MHz, C in cycles)")
                .param("clock_basis", CLOCK_BASIS);
        List<List<Double>> pts = new ArrayList<>();
        for (int i = 0; i < o.clockMhz().length; i++) {
            pts.add(List.of(ResultRecord.round(o.clockMhz()[i], 1), ResultRecord.round(o.latencyUs()[i], 4)));
        }
        r.metric("points_mhz_us", pts).metric("n_points", pts.size()).metric("fitted", o.fitted());
        if (!o.fitted()) {
            return r.metric("not_fitted_reason", o.notFitted());
        }
        ClockFit f = o.fit();
        return r.metric("c_cycles", ResultRecord.round(f.cCycles(), 1))
                .metric("b_us", ResultRecord.round(f.bUs(), 4))
                .metric("r2", ResultRecord.round(f.r2(), 4))
                .metric("rmse_us", ResultRecord.round(f.rmseUs(), 4))
                .metric("top_clock_mhz", ResultRecord.round(f.topClockMhz(), 1))
                .metric("bottom_clock_mhz", ResultRecord.round(f.bottomClockMhz(), 1))
                .metric("clock_sensitive_share_at_top", ResultRecord.round(f.sensitiveShareAtTop(), 4));
    }
}
