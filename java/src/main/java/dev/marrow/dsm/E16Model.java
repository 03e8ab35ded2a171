// SPDX-License-Identifier: Apache-2.0
// "The study" below: "How does Hopper distributed shared memory actually move data?"
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * E16: the study's model (ModelPredictions) evaluated on our own fitted
 * one-way and duplex read rates, beside the same model on the study's
 * inputs and the study's published outputs. Reuses E2's and E5's load
 * sweeps when they ran in the same invocation (the context cache).
 */
public final class E16Model implements Experiment {
    public String id() {
        return "E16";
    }

    public String name() {
        return "model";
    }

    public String title() {
        return "the study's lane/flit model on our one-way and duplex read: predicted vs measured duplex, cycles per 128 B";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        OneWay k = OneWay.LOAD;
        double oneWay = (k.oneWay(ctx, 2, 1, 0).fit(k.series(1, 0)).bytesPerCycle()
                + k.oneWay(ctx, 2, 0, 1).fit(k.series(0, 1)).bytesPerCycle()) / 2;
        String a = k.series(1, 0);
        String b = k.series(0, 1);
        // The same spec and streams as E5, so its sweep is shared when E5 ran.
        Spec spec = k.add(k.add(Spec.idle(k.label() + " 0<->1", 2), 1, 0), 0, 1);
        Sweep.Result r = Sweep.run(ctx, spec, List.of(k.stream(1, 0, a), k.stream(0, 1, b)));
        double duplex = (r.fit(a).bytesPerCycle() + r.fit(b).bytesPerCycle()) / 2;
        ModelPredictions ours = new ModelPredictions(oneWay, duplex);
        ctx.progress(String.format("E16 model on ours: one-way %.3f, duplex %.3f measured vs %.3f predicted; "
                + "%.3f -> %.3f cycles per 128 B", oneWay, duplex, ours.predictedDuplex(), ours.cyclesPer128OneWay(),
                ours.cyclesPer128Duplex()));
        return records(ctx, ours);
    }

    /** One record for our inputs (with the study's published outputs beside) and one for the study's inputs. */
    static List<ResultRecord> records(DsmContext ctx, ModelPredictions ours) {
        List<ResultRecord> out = new ArrayList<>();
        ResultRecord o = Report.record(ctx, "E16", "summary", "model on our fits").param("inputs", "ours");
        put(o, ours);
        o.metric("reference_predicted_duplex_b_per_cycle", Reference.MODEL_DUPLEX_PREDICTED.value())
                .metric("reference_duplex_b_per_cycle", Reference.MODEL_LOAD_DUPLEX.value())
                .metric("reference_cycles_per_128b_one_way", Reference.MODEL_CYCLES_PER_128_ONE_WAY.value())
                .metric("reference_cycles_per_128b_duplex", Reference.MODEL_CYCLES_PER_128_DUPLEX.value())
                .metric("reference_source", Reference.STUDY);
        out.add(o);
        ResultRecord s = Report.record(ctx, "E16", "summary", "model on the study's inputs").param("inputs", "study");
        put(s, ModelPredictions.study());
        s.metric("reference_source", Reference.MODEL_LOAD_ONE_WAY.source());
        out.add(s);
        return out;
    }

    private static void put(ResultRecord r, ModelPredictions m) {
        for (Map.Entry<String, Double> e : m.figures().entrySet()) {
            r.metric(e.getKey(), Report.round(e.getValue(), 4));
        }
    }
}
