// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.marrow.report.Fmt.py;
import static dev.marrow.report.Fmt.ranged;

/**
 * Tables of docs/results/h200-goodput.md: goodput vs size per file, each
 * file's first size at 90 % of line rate, and the single-op put+completion
 * sweep (Fig. 11), from the pass in h200-goodput/ (names "goodput.*"; the
 * second pass, call 5, left the page and its archive).
 */
final class GoodputDocTables {
    private GoodputDocTables() {
    }

    static final List<String> GOODPUT = List.of("gda-goodput-cuda-w200", "gda-goodput-cpu-w200", "gda-goodput-cuda-nowire",
            "proxy-goodput-cuda-w200", "proxy-goodput-cpu-w200", "proxy-goodput-cpu-nowire");
    static final String SINGLE_OP = "gda-singleop-cuda-w200";
    /** Folder of each pass and the prefix of its table names. */
    static final Map<String, String> PASSES = Map.of("h200-goodput/", "goodput.");

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        for (Map.Entry<String, String> pass : new TreeMap<>(PASSES).entrySet()) {
            String dir = pass.getKey();
            if (GOODPUT.stream().allMatch(f -> in.has(dir + f + ".jsonl")) && in.has(dir + SINGLE_OP + ".jsonl")) {
                pass(in, dir, pass.getValue(), t);
            }
        }
        if (!in.under(SCALING).isEmpty()) {
            t.put("goodput.scaling", scaling(in));
        }
        for (String call : in.subfolders("h200-goodput").stream().filter(c -> c.startsWith("goodput2k")).toList()) {
            String dir = "h200-goodput/" + call;
            if (!in.under(dir).isEmpty()) {
                t.put("goodput." + call, perFile(in, dir, "goodput vs size, many posters (" + call + "), GB/s",
                        List.of("posters", "qps", "batch", "engine_threads", "workers"),
                        List.of("posters", "QPs", "batch", "engine threads", "proxy workers")));
            }
        }
        return t;
    }

    // Phase goodput2k writes one folder per device call (goodput2k*): many GPU posters (gda) beside the
    // proxy; the folders are found among the inputs.

    /** Phase goodput9: several QPs and engine threads on one modelled port. */
    static final String SCALING = "h200-goodput/goodput9";

    /** One row per file of {@link #SCALING}: GB/s at every size, and the first size at 90 % of line rate. */
    private static String scaling(DocTables.Inputs in) {
        return perFile(in, SCALING, "goodput vs size over several QPs, GB/s", List.of("qps", "engine_threads"),
                List.of("QPs", "engine threads"));
    }

    /**
     * A goodput table with one row per file of dir: the knobs named by keys (from the file's
     * first size record), GB/s at every size any file has, and the summary record's first size at
     * 90 % of the wire model's line rate ("none" when the summary has none, "—" without a summary).
     */
    static String perFile(DocTables.Inputs in, String dir, String caption, List<String> keys, List<String> labels) {
        List<String> files = in.under(dir);
        TreeMap<Long, String> sizes = new TreeMap<>();
        Map<String, Map<Long, Map<String, Object>>> bySize = new LinkedHashMap<>();
        Map<String, Map<String, Object>> summary = new LinkedHashMap<>();
        for (String f : files) {
            Map<Long, Map<String, Object>> m = new TreeMap<>();
            for (Map<String, Object> r : in.records(dir + "/" + f)) {
                if (Fmt.str(r, "experiment").endsWith(".summary")) {
                    summary.put(f, r);
                } else if (r.containsKey("size_bytes") && r.containsKey("goodput_gbps")) {
                    long b = Fmt.lng(r, "size_bytes");
                    m.put(b, r);
                    sizes.put(b, Fmt.size(b));
                }
            }
            bySize.put(f, m);
        }
        Table.Builder g = new Table.Builder(caption).col("file");
        labels.forEach(g::col);
        sizes.values().forEach(v -> g.col(v + " GB/s"));
        g.col("first size at 90 % of line rate");
        for (String f : files) {
            Map<Long, Map<String, Object>> m = bySize.get(f);
            Map<String, Object> any = m.isEmpty() ? Map.of() : m.values().iterator().next();
            List<String> row = new ArrayList<>(List.of(f));
            keys.forEach(k -> row.add(py(any.get(k))));
            for (Long b : sizes.keySet()) {
                Map<String, Object> r = m.get(b);
                row.add(r == null ? "—" : py(r.get("goodput_gbps")) + (Fmt.bool(r, "valid") ? "" : " INVALID"));
            }
            Map<String, Object> sum = summary.get(f);
            Object first = sum == null ? null : sum.get("first_size_at_90pct_line_rate");
            row.add(first instanceof Number n ? Fmt.size(n.longValue()) : sum == null ? "—" : "none (never reached)");
            g.row(row);
        }
        return g.build().markdown();
    }

    private static void pass(DocTables.Inputs in, String dir, String prefix, Map<String, String> t) {
        Map<String, Map<Long, Map<String, Object>>> bySize = new LinkedHashMap<>();
        for (String f : GOODPUT) {
            Map<Long, Map<String, Object>> m = new TreeMap<>();
            for (Map<String, Object> r : in.records(dir + f + ".jsonl")) {
                if (r.containsKey("size_bytes")) {
                    m.put(Fmt.lng(r, "size_bytes"), r);
                }
            }
            bySize.put(f, m);
        }
        Table.Builder g = new Table.Builder("goodput vs size, GB/s").col("size").col(GOODPUT.toArray(String[]::new))
                .col("wire ceiling (200 Gb/s model)");
        Map<Long, Map<String, Object>> first = bySize.get(GOODPUT.getFirst());
        for (Map.Entry<Long, Map<String, Object>> e : first.entrySet()) {
            List<String> row = new ArrayList<>(List.of(Fmt.size(e.getKey())));
            for (String f : GOODPUT) {
                Map<String, Object> r = bySize.get(f).get(e.getKey());
                row.add(r == null ? "—" : ranged(r, "goodput_gbps", v -> Fmt.fixed(((Number) v).doubleValue(), 3))
                        + (Fmt.bool(r, "valid") ? "" : " INVALID"));
            }
            row.add(ranged(e.getValue(), "wire_ceiling_gbps"));
            g.row(row);
        }
        t.put(prefix + "size", g.build().markdown());
        Table.Builder s = new Table.Builder("first size at 90 % of line rate").col("file",
                "first size at 90 % of line rate", "note");
        for (String f : GOODPUT) {
            Map<String, Object> r = in.records(dir + f + ".jsonl").stream()
                    .filter(m -> Fmt.str(m, "experiment").endsWith(".summary")).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(dir + f + ".jsonl has no *.summary record"));
            s.row(f, py(r.get("first_size_at_90pct_line_rate")), py(r.get("note")));
        }
        t.put(prefix + "summary", s.build().markdown());
        Table.Builder o = new Table.Builder("single-op put+completion, ns").col("size", "p50", "p99", "min", "max",
                "wire_cqe_hold_ns", "valid", "truncated");
        for (Map<String, Object> r : in.records(dir + SINGLE_OP + ".jsonl")) {
            o.row(Fmt.size(Fmt.lng(r, "size_bytes")), ranged(r, "putc_p50_ns"), ranged(r, "putc_p99_ns"),
                    ranged(r, "putc_min_ns"), ranged(r, "putc_max_ns"), ranged(r, "wire_cqe_hold_ns"),
                    py(r.get("valid")), py(r.get("truncated")));
        }
        t.put(prefix + "singleop", o.build().markdown());
    }
}
