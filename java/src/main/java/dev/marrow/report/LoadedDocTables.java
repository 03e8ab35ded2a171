// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.py;
import static dev.marrow.report.Fmt.ranged;

/**
 * Tables of docs/results/h200-loaded.md: the probe's round trip under load,
 * one table per *loaded*.jsonl file of a pass ("loaded.call4.gda-loaded-cuda").
 * Calls 4 and 5 (h200-loaded/call4/, call5/) show the CPU background cap
 * (background_streams_requested / _capped); call 2 (h200-loaded/) predates it.
 * The only computed column is p50 / idle p50; a paced file is divided by its
 * unpaced file's idle row.
 */
final class LoadedDocTables {
    private LoadedDocTables() {
    }

    static final List<String> ORDER = List.of("gda-loaded-cuda", "gda-loaded-cuda-paced", "gda-loaded-cpu",
            "gda-loaded-cpu-paced", "proxy-loaded-cpu", "proxy-loaded-cpu-paced");
    /** Call 2's files (no cap fields) and the folder of each pass with its table-name prefix. */
    static final List<String> CALL2 = List.of("gda-loaded-cuda", "gda-loaded-cuda-paced", "proxy-loaded-cpu",
            "proxy-loaded-cpu-paced");
    static final String[][] PASSES = {{"h200-loaded/", "loaded.call2."}, {"h200-loaded/call4/", "loaded.call4."},
        {"h200-loaded/call5/", "loaded.call5."}};

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        for (String[] pass : PASSES) {
            boolean call2 = pass[0].equals(PASSES[0][0]);
            List<String> files = call2 ? CALL2 : ORDER;
            if (call2 && !CALL2.stream().allMatch(f -> in.has(pass[0] + f + ".jsonl"))) {
                continue;
            }
            for (String f : files) {
                if (in.has(pass[0] + f + ".jsonl")) {
                    t.put(pass[1] + f, table(in, pass[0], f, !call2));
                }
            }
        }
        return t;
    }

    private static String table(DocTables.Inputs in, String dir, String f, boolean capFields) {
        Table.Builder b = new Table.Builder(f).col("queue");
        if (capFields) {
            b.col("background (requested)", "capped");
        } else {
            b.col("background");
        }
        b.col("pace msg/s", "probe p50 ns", "p99 ns", "p99.9 ns", "p50 / idle p50", "background M msg/s", "slot errors",
                "spinning threads", "cpu_oversubscribed", "valid");
        String unpaced = dir + f.replace("-paced", "") + ".jsonl";
        Map<String, Object> idle = !in.has(unpaced) ? null : in.records(unpaced).stream()
                .filter(r -> "idle".equals(r.get("queue"))).findFirst().orElse(null);
        for (Map<String, Object> r : in.records(dir + f + ".jsonl")) {
            List<String> row = new ArrayList<>(List.of(py(r.get("queue"))));
            if (capFields) {
                Object req = r.containsKey("background_streams_requested") ? r.get("background_streams_requested")
                        : r.get("background_streams");
                row.add(ranged(r, "background_streams") + " (" + py(req) + ")");
                row.add(r.containsKey("background_streams_capped") ? py(r.get("background_streams_capped")) : "—");
            } else {
                row.add(ranged(r, "background_streams"));
            }
            row.addAll(List.of(ranged(r, "pace_msgs_per_s"), ranged(r, "probe_p50_ns"), ranged(r, "probe_p99_ns"),
                    ranged(r, "probe_p999_ns"),
                    idle == null ? "—" : Fmt.fixed(Fmt.num(r, "probe_p50_ns") / Fmt.num(idle, "probe_p50_ns"), 2),
                    ranged(r, "background_mmsg_s"), ranged(r, "background_slot_errors"), ranged(r, "spinning_threads"),
                    py(r.get("cpu_oversubscribed")), Fmt.bool(r, "valid") ? "true" : "**FALSE**"));
            b.row(row);
        }
        return b.build().markdown();
    }
}
