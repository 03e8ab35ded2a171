// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The before/after table of docs/results/h200-dsm.md for the DSM traffic
 * kernel's touch-word change (phase dsmab): files h200-dsm/touch-ab/TAG-KIND.jsonl
 * with TAG "before", "after" or "after2" (see TAGS) and KIND "default-N" (three processes),
 * "width-W" or "bytes-W". One row per (kind, experiment, series): the fitted
 * B/cycle (1/beta) before and after, median over a kind's processes.
 */
final class DsmTouchWordDocTables {
    private DsmTouchWordDocTables() {
    }

    static final String DIR = "h200-dsm/touch-ab";
    /** The kernel builds, in order: per-warp word; per-lane words; per-lane words and the init barrier. */
    static final List<String> TAGS = List.of("before", "after", "after2");

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
        Table.Builder b = new Table.Builder("touch word and mbarrier barrier: B/cycle by kernel build").col(
                "kernel run", "experiment", "series", "before (per-warp word)", "after (per-lane words)",
                "after2 (+ init barrier)", "after vs before", "after2 vs before", "processes");
        for (Map.Entry<String, Map<String, List<Double>>> e : fits.entrySet()) {
            String[] k = e.getKey().split("\\|", 3);
            Map<String, List<Double>> byTag = e.getValue();
            List<String> row = new ArrayList<>(List.of(k[0], k[1], k[2]));
            List<String> counts = new ArrayList<>();
            for (String tag : TAGS) {
                List<Double> v = byTag.getOrDefault(tag, List.of());
                row.add(v.isEmpty() ? "—" : Fmt.fixed(median(v), 3));
                counts.add(Integer.toString(v.size()));
            }
            for (String tag : List.of("after", "after2")) {
                List<Double> v = byTag.getOrDefault(tag, List.of());
                List<Double> b0 = byTag.getOrDefault("before", List.of());
                row.add(v.isEmpty() || b0.isEmpty() ? "—"
                        : Fmt.fixed(100.0 * (median(v) / median(b0) - 1.0), 1) + " %");
            }
            row.add(String.join(" / ", counts));
            b.row(row.toArray(String[]::new));
        }
        t.put("dsm.touch-ab", b.build().markdown());
        return t;
    }

    private static double median(List<Double> v) {
        double[] d = v.stream().mapToDouble(Double::doubleValue).toArray();
        return dev.marrow.results.RunMerge.median(d);
    }
}
