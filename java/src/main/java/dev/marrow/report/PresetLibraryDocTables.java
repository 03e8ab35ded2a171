// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.py;

/**
 * The single-pass preset tables of docs/results/h200-presets.md (GPU phase
 * presets), from the files directly in h200-presets/: {@code presets.table3}
 * (one row per gda latency record of gda-*.jsonl, put+completion in µs) and
 * {@code presets.table10} (one row per proxy rate record of proxy-*.jsonl,
 * fastest first). Presets that were refused wrote no records and have no row.
 * Beside each of ours: the library's own row of "GPU-Initiated Communication:
 * Dissecting Down to the Bone" (Tables 3 and 10, P-IB), read from
 * paper-references.json by the preset's name; "—" where the paper has none.
 */
final class PresetLibraryDocTables {
    private PresetLibraryDocTables() {
    }

    static final String FOLDER = "h200-presets";

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        List<Map<String, Object>> gda = records(in, "gda-", "gda.latency");
        if (!gda.isEmpty()) {
            Table.Builder b = new Table.Builder("Table 3 library rows: put+completion per preset")
                    .col("preset", "ours put+c p50 (µs)", "ours p99 (µs)", "ours min / max (µs)")
                    .ref("paper put+c P-IB (µs)").align("| --- | --- | --- | --- | --- |");
            for (Map<String, Object> r : gda) {
                b.row("`" + py(r.get("preset")) + "`", "**" + us3(r, "putc_p50_ns") + "**", us3(r, "putc_p99_ns"),
                        us3(r, "putc_min_ns") + " / " + us3(r, "putc_max_ns"),
                        paper("Table 3", py(r.get("preset")), ".putc"));
            }
            t.put("presets.table3", b.build().markdown());
        }
        List<Map<String, Object>> proxy = records(in, "proxy-", "proxy.rate");
        if (!proxy.isEmpty()) {
            proxy.sort(Comparator.comparingDouble((Map<String, Object> r) -> Fmt.num(r, "rate_mmsg_s")).reversed());
            Table.Builder b = new Table.Builder("Table 10 / Fig. 7: proxy rate per preset")
                    .col("preset", "T", "R", "B", "producer (count)", "ours M msg/s", "posts/s (M)", "mean chain")
                    .ref("paper cold / warm P-IB (M msg/s)").align("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
            for (Map<String, Object> r : proxy) {
                boolean adaptive = Fmt.str(r, "preset_knobs").contains("chaining=adaptive");
                b.row("`" + py(r.get("preset")) + "`", py(r.get("workers")), py(r.get("rings")),
                        py(r.get("batch")) + (adaptive ? " (adaptive)" : ""),
                        py(r.get("producer")) + " (" + py(r.get("producers")) + ")",
                        "**" + py(r.get("rate_mmsg_s")) + "**", Fmt.fixed(Fmt.num(r, "posts_per_s") / 1e6, 2),
                        py(r.get("chain_len_mean")), paper("Table 10", py(r.get("preset")), ".cold") + " / "
                                + paper("Table 10", py(r.get("preset")), ".warm"));
            }
            t.put("presets.table10", b.build().markdown());
        }
        return t;
    }

    /** The paper's value of a preset's library row, as printed, or "—" where the paper has none. */
    private static String paper(String source, String preset, String suffix) {
        PaperReferences.Ref r = PaperReferences.get().forPreset(source, preset, suffix);
        return r == null ? "—" : PaperReferences.number(r.value());
    }

    /** ns as µs with three decimals (the nanosecond digits). */
    private static String us3(Map<String, Object> r, String key) {
        return Fmt.fixed(Fmt.num(r, key) / 1000.0, 3);
    }

    /** The records of one experiment in the files named prefix* directly in h200-presets/, by file name. */
    private static List<Map<String, Object>> records(DocTables.Inputs in, String prefix, String experiment) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String name : in.under(FOLDER)) {
            if (name.startsWith(prefix)) {
                for (Map<String, Object> r : in.records(FOLDER + "/" + name)) {
                    if (experiment.equals(r.get("experiment"))) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }
}
