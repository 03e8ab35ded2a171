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
        if (!in.under(GOODPUT).isEmpty()) {
            t.put("presets.goodput", GoodputDocTables.perFile(in, GOODPUT, "goodput per preset", List.of("preset"),
                    List.of("preset")));
        }
        return t;
    }
}
