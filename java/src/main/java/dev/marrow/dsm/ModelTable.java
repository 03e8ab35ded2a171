// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.Locale;
import java.util.Map;

/**
 * The model's figures as a Markdown table: on our inputs, on the study's
 * inputs, and the values the study published (where it published one).
 */
public final class ModelTable {
    private ModelTable() {
    }

    public static String render(ModelPredictions ours, String source) {
        Map<String, Double> o = ours.figures();
        Map<String, Double> s = ModelPredictions.study().figures();
        Map<String, Reference.Ref> published = Map.of(
                "one_way_b_per_cycle", Reference.MODEL_LOAD_ONE_WAY,
                "duplex_b_per_cycle", Reference.MODEL_LOAD_DUPLEX,
                "predicted_duplex_b_per_cycle", Reference.MODEL_DUPLEX_PREDICTED,
                "cycles_per_128b_one_way", Reference.MODEL_CYCLES_PER_128_ONE_WAY,
                "cycles_per_128b_duplex", Reference.MODEL_CYCLES_PER_128_DUPLEX,
                "cap_per_sm_b_per_cycle", Reference.MODEL_PER_SM);
        StringBuilder sb = new StringBuilder();
        sb.append("Model of the study \"How does Hopper distributed shared memory actually move data?\" on ")
                .append(source).append('\n');
        sb.append("| figure | model on ours | model on the study's inputs | published by the study |\n");
        sb.append("| --- | --- | --- | --- |\n");
        for (Map.Entry<String, Double> e : o.entrySet()) {
            Reference.Ref p = published.get(e.getKey());
            sb.append("| ").append(e.getKey()).append(" | ").append(fmt(e.getValue())).append(" | ")
                    .append(fmt(s.get(e.getKey()))).append(" | ").append(p == null ? "" : fmt(p.value())).append(" |\n");
        }
        return sb.toString();
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
