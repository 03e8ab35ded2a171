// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.py;

/**
 * Tables of docs/results/h200-presets.md from the GPU phases presetrate and
 * presetgoodput: {@code presets.gda-rate} (one row per file of
 * h200-presets/presetrate/, each a gda rate run with --preset) and
 * {@code presets.goodput} (one row per file of h200-presets/presetgoodput/:
 * GB/s at every size, and the first size at 90 % of the wire model's line rate).
 */
final class PresetRunsDocTables {
    private PresetRunsDocTables() {
    }

    static final String RATE = "h200-presets/presetrate";
    static final String GOODPUT = "h200-presets/presetgoodput";

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        List<String> rate = in.under(RATE);
        if (!rate.isEmpty()) {
            Table.Builder b = new Table.Builder("gda rate per preset").col("file", "preset", "nic", "placement", "QPs",
                    "publication", "WQEs per doorbell", "ordering", "M msg/s (median of repeats [min, max])",
                    "limited by", "engine busy", "valid");
            for (String f : rate) {
                for (Map<String, Object> r : in.records(RATE + "/" + f)) {
                    if (!"gda.rate".equals(r.get("experiment"))) {
                        continue;
                    }
                    b.row(f, py(r.get("preset")), py(r.get("nic")), py(r.get("placement")), py(r.get("qps")),
                            py(r.get("publication")), py(r.get("batch")), py(r.get("ordering")),
                            py(r.get("rate_mmsg_s")) + " [" + py(r.get("rate_min_mmsg_s")) + ", "
                                    + py(r.get("rate_max_mmsg_s")) + "]",
                            py(r.get("limited_by")), py(r.get("engine_busy_ratio")), py(r.get("valid")));
                }
            }
            t.put("presets.gda-rate", b.build().markdown());
        }
        List<String> goodput = in.under(GOODPUT);
        if (!goodput.isEmpty()) {
            List<Long> sizes = new ArrayList<>();
            Map<String, Map<Long, Object>> gbs = new LinkedHashMap<>();
            Map<String, Object> first90 = new LinkedHashMap<>();
            for (String f : goodput) {
                Map<Long, Object> row = new LinkedHashMap<>();
                for (Map<String, Object> r : in.records(GOODPUT + "/" + f)) {
                    String name = py(r.get("preset"));
                    if (r.containsKey("first_size_at_90pct_line_rate")) {
                        first90.put(f, r.get("first_size_at_90pct_line_rate"));
                    } else if (r.containsKey("goodput_gbps")) {
                        long s = Fmt.lng(r, "size_bytes");
                        if (!sizes.contains(s)) {
                            sizes.add(s);
                        }
                        row.put(s, r.get("goodput_gbps"));
                    }
                    first90.putIfAbsent(f + "#preset", name);
                }
                gbs.put(f, row);
            }
            sizes.sort(null);
            List<String> header = new ArrayList<>(List.of("file", "preset"));
            sizes.forEach(s -> header.add(Fmt.size(s) + " GB/s"));
            header.add("first size at 90 % of line rate");
            Table.Builder b = new Table.Builder("goodput per preset").col(header.toArray(String[]::new));
            for (String f : goodput) {
                List<String> row = new ArrayList<>(List.of(f, py(first90.get(f + "#preset"))));
                sizes.forEach(s -> row.add(gbs.get(f).containsKey(s) ? py(gbs.get(f).get(s)) : "—"));
                Object v = first90.get(f);
                row.add(v == null ? "none (never reached)" : Fmt.size(((Number) v).longValue()));
                b.row(row.toArray(String[]::new));
            }
            t.put("presets.goodput", b.build().markdown());
        }
        return t;
    }
}
