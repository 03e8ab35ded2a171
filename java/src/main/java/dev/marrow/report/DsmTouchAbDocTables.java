// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The before/after table of docs/results/h200-dsm.md for the DSM traffic
 * kernel's touch-word change (phase dsmab): files h200-dsm/touch-ab/TAG-KIND.jsonl
 * with TAG "before" or "after" and KIND "default-N" (three processes),
 * "width-W" or "bytes-W". One row per (kind, experiment, series): the fitted
 * B/cycle (1/beta) before and after, median over a kind's processes.
 */
final class DsmTouchAbDocTables {
    private DsmTouchAbDocTables() {
    }

    static final String DIR = "h200-dsm/touch-ab";

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        List<String> files = in.under(DIR);
        if (files.isEmpty()) {
            return t;
        }
        // kind|experiment|series -> tag -> values
        Map<String, Map<String, List<Double>>> fits = new LinkedHashMap<>();
        for (String f : files) {
            String stem = f.substring(0, f.length() - ".jsonl".length());
            int dash = stem.indexOf('-');
            if (dash < 0) {
                continue;
            }
            String tag = stem.substring(0, dash);
            String kind = stem.substring(dash + 1).replaceFirst("^default-\\d+$", "default");
            for (Map<String, Object> r : in.records(DIR + "/" + f)) {
                if (!"fit".equals(r.get("row")) || !(r.get("inv_beta_b_per_cycle") instanceof Number v)) {
                    continue;
                }
                String key = kind + "|" + r.get("experiment") + "|" + r.get("series");
                fits.computeIfAbsent(key, k -> new LinkedHashMap<>()).computeIfAbsent(tag, k -> new ArrayList<>())
                        .add(v.doubleValue());
            }
        }
        Table.Builder b = new Table.Builder("touch word: per warp (before) vs per lane (after)").col("kernel run",
                "experiment", "series", "B/cycle before", "B/cycle after", "after vs before", "processes");
        for (Map.Entry<String, Map<String, List<Double>>> e : fits.entrySet()) {
            String[] k = e.getKey().split("\\|", 3);
            List<Double> before = e.getValue().getOrDefault("before", List.of());
            List<Double> after = e.getValue().getOrDefault("after", List.of());
            if (before.isEmpty() || after.isEmpty()) {
                continue;
            }
            double mb = median(before);
            double ma = median(after);
            b.row(k[0], k[1], k[2], Fmt.fixed(mb, 3), Fmt.fixed(ma, 3), Fmt.fixed(100.0 * (ma / mb - 1.0), 1) + " %",
                    before.size() + " / " + after.size());
        }
        t.put("dsm.touch-ab", b.build().markdown());
        return t;
    }

    private static double median(List<Double> v) {
        double[] d = v.stream().mapToDouble(Double::doubleValue).toArray();
        return dev.marrow.results.RunMerge.median(d);
    }
}
