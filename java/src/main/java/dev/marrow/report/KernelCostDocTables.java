// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.py;
import static dev.marrow.report.Fmt.ranged;

/**
 * Tables of docs/results/h200-kernel-cost.md from h200-kernel-cost/*.jsonl:
 * the dormant arm of every file, and per sending file its two sending arms
 * side by side (slowdown and waiting loss as percentages of the records'
 * ratios).
 */
final class KernelCostDocTables {
    private KernelCostDocTables() {
    }

    static final String DIR = "h200-kernel-cost/";
    static final List<String> DORMANT = List.of("kernel-cost-dormant", "kernel-cost-dormant-1056", "kernel-cost-gda",
            "kernel-cost-proxy");
    static final List<String> SENDING = List.of("kernel-cost-gda", "kernel-cost-proxy");

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        if (!DORMANT.stream().allMatch(f -> in.has(DIR + f + ".jsonl"))) {
            return t;
        }
        Table.Builder d = new Table.Builder("dormant arm").col("file", "transport", "caller", "live values", "blocks",
                "blocks/SM (base→arm)", "regs/thread (base→arm)", "kernel p50 ms", "baseline p50 ms", "slowdown",
                "throughput loss");
        for (String f : DORMANT) {
            for (Map<String, Object> r : in.records(DIR + f + ".jsonl")) {
                if ("dormant".equals(r.get("arm"))) {
                    d.row(f, py(r.get("transport")), py(r.get("caller")), py(r.get("live_values")), ranged(r, "blocks"),
                            ranged(r, "baseline_blocks_per_sm") + "→" + ranged(r, "blocks_per_sm"),
                            ranged(r, "baseline_regs_per_thread") + "→" + ranged(r, "regs_per_thread"),
                            ranged(r, "kernel_p50_ms"), ranged(r, "baseline_p50_ms"), percent(r, "slowdown") + " %",
                            percent(r, "throughput_loss") + " %");
                }
            }
        }
        t.put("kcost.dormant", d.build().markdown());
        for (String f : SENDING) {
            t.put("kcost.sending." + f.substring(f.lastIndexOf('-') + 1), sending(in.records(DIR + f + ".jsonl")));
        }
        return t;
    }

    /** A ratio field as a percentage with one decimal (merged records: "median [min, max]"). */
    static String percent(Map<String, Object> r, String key) {
        return ranged(r, key, v -> Fmt.fixed(((Number) v).doubleValue() * 100, 1));
    }

    private static String sending(List<Map<String, Object>> rs) {
        Map<List<Object>, Map<String, Map<String, Object>>> byPoint = new LinkedHashMap<>();
        for (Map<String, Object> r : rs) {
            Object arm = r.get("arm");
            if ("send-then-compute".equals(arm) || "send-wait-compute".equals(arm)) {
                List<Object> key = java.util.Arrays.asList(r.get("caller"), r.get("live_values"), r.get("msgs_per_block"),
                        r.get("msg_size_bytes"));
                byPoint.computeIfAbsent(key, k -> new LinkedHashMap<>()).put((String) arm, r);
            }
        }
        Table.Builder b = new Table.Builder("sending arms").col("caller", "live", "msgs/block", "size",
                "send-then-compute slowdown", "send-wait-compute slowdown", "waiting_loss", "regs (send-wait)", "all valid");
        for (Map.Entry<List<Object>, Map<String, Map<String, Object>>> e : byPoint.entrySet()) {
            List<Object> k = e.getKey();
            Map<String, Object> sc = e.getValue().get("send-then-compute");
            Map<String, Object> sw = e.getValue().get("send-wait-compute");
            boolean ok = e.getValue().values().stream().allMatch(r -> Fmt.bool(r, "valid"));
            b.row(py(k.get(0)), py(k.get(1)), py(k.get(2)), Fmt.size(((Number) k.get(3)).longValue()),
                    sc == null ? "—" : percent(sc, "slowdown"), sw == null ? "—" : percent(sw, "slowdown"),
                    sw == null || !sw.containsKey("waiting_loss") ? "—" : percent(sw, "waiting_loss"),
                    sw == null ? "—" : ranged(sw, "regs_per_thread"), py(ok));
        }
        return b.build().markdown();
    }
}
