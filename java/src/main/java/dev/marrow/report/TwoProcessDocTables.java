// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.py;

/**
 * The single-pass latency table of docs/results/h200-two-process.md
 * ({@code twoproc.latency}) from h200-two-process/{single,pair}-{cuda,cpu}.jsonl
 * (phase twoproc; the pair files are written by rank 0). The cells copy the
 * records' fields; the row order is GPU then CPU initiator, one process then two.
 */
final class TwoProcessDocTables {
    private TwoProcessDocTables() {
    }

    static final String FOLDER = "h200-two-process";
    static final List<String> RUNS = List.of("single-cuda", "pair-cuda", "single-cpu", "pair-cpu");

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        List<String> present = in.under(FOLDER);
        if (!present.containsAll(RUNS.stream().map(r -> r + ".jsonl").toList())) {
            return t;
        }
        Table.Builder b = new Table.Builder("two processes: latency, 8 B inline").col("run", "processes", "initiator",
                "issue p50", "issue p99", "put+completion p50", "put+completion p99", "RTT p50", "RTT p99", "RTT max",
                "valid", "payload_errors");
        for (String run : RUNS) {
            for (Map<String, Object> r : in.records(FOLDER + "/" + run + ".jsonl")) {
                if (!"gda.latency".equals(r.get("experiment"))) {
                    continue;
                }
                boolean gpu = "cuda".equals(r.get("target"));
                String initiator = (gpu ? "GPU (cuda)" : "CPU") + (r.containsKey("rank") ? ", rank " + py(r.get("rank")) : "");
                b.row(run, r.containsKey("world_size") ? py(r.get("world_size")) : "1", initiator,
                        py(r.get("issue_p50_ns")), py(r.get("issue_p99_ns")), py(r.get("putc_p50_ns")),
                        py(r.get("putc_p99_ns")), py(r.get("rtt_p50_ns")), py(r.get("rtt_p99_ns")),
                        py(r.get("rtt_max_ns")), Fmt.lower(r.get("valid")), py(r.get("payload_errors")));
            }
        }
        t.put("twoproc.latency", b.build().markdown());
        return t;
    }
}
