// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * E5: the same kind both ways at once ({@code 0 <-> 1}). Per-direction 1/beta and
 * its loss against our own one-way value of the same direction.
 */
public final class E5Bidirectional implements Experiment {
    public String id() {
        return "E5";
    }

    public String name() {
        return "bidirectional";
    }

    public String title() {
        return "load/load, store/store, TMA/TMA between 0 and 1 at once: per-direction 1/beta and loss vs one-way";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        List<ResultRecord> out = new ArrayList<>();
        for (OneWay k : OneWay.values()) {
            String a = k.series(1, 0);
            String b = k.series(0, 1);
            Spec spec = k.add(k.add(Spec.idle(k.label() + " 0<->1", 2), 1, 0), 0, 1);
            Sweep.Result r = Sweep.run(ctx, spec, List.of(k.stream(1, 0, a), k.stream(0, 1, b)));
            double sum = 0;
            double lossSum = 0;
            for (String dir : List.of(a, b)) {
                SeriesFit f = r.fit(dir);
                int src = dir.endsWith("1->0") ? 1 : 0;
                SeriesFit one = k.oneWay(ctx, 2, src, 1 - src).fit(dir);
                double loss = 100.0 * (1 - f.bytesPerCycle() / one.bytesPerCycle());
                sum += f.bytesPerCycle();
                lossSum += loss;
                out.add(Report.fit(ctx, id(), spec, f, k.bidirReference())
                        .param("direction", dir)
                        .metric("one_way_b_per_cycle", Report.round(one.bytesPerCycle(), 3))
                        .metric("loss_vs_one_way_pct", Report.round(loss, 2)));
                out.addAll(Report.points(ctx, id(), f));
            }
            double d0 = r.fit(a).bytesPerCycle();
            double d1 = r.fit(b).bytesPerCycle();
            double refLoss = 100.0 * (1 - k.bidirReference().value() / k.oneWayReference().value());
            ResultRecord s = Report.record(ctx, id(), "summary", k.label() + " 0<->1")
                    .param("kind", k.label())
                    .metric("per_direction_b_per_cycle", Report.round(sum / 2, 3))
                    .metric("aggregate_b_per_cycle", Report.round(sum, 3))
                    .metric("direction_mismatch_pct", Report.round(100.0 * Math.abs(d0 - d1) / Math.max(d0, d1), 2))
                    .metric("loss_vs_one_way_pct", Report.round(lossSum / 2, 2))
                    .metric("reference_loss_pct", Report.round(refLoss, 2));
            Report.reference(s, "per_direction_b_per_cycle", sum / 2, k.bidirReference());
            out.add(s);
            ctx.progress(String.format("E5 %s: %.2f B/cycle per direction, loss %.1f%% (reference %.2f, loss %.1f%%)",
                    k.label(), sum / 2, lossSum / 2, k.bidirReference().value(), refLoss));
        }
        return out;
    }
}
