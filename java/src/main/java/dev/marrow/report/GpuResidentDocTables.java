// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.marrow.report.Fmt.lower;
import static dev.marrow.report.Fmt.py;

/**
 * Tables of docs/results/h200-gpu-resident.md, one set per run folder found in
 * its inputs (h200-gpu-resident/RUN/: latency, handoff, stages, rates), and the
 * device-engine table of docs/results/h200-gda-rate.md (every file of
 * h200-gda-rate/devnic/). Times are the records' ns divided by 1000.
 */
final class GpuResidentDocTables {
    private GpuResidentDocTables() {
    }

    static final String DIR = "h200-gpu-resident/";
    static final String DEVNIC = "h200-gda-rate/devnic";

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        for (String run : in.subfolders(DIR.substring(0, DIR.length() - 1))) {
            if (run.equals("medians")) {
                continue; // the merged medians have tables of their own (MediansDocTables)
            }
            if (in.has(DIR + run + "/stages.jsonl")) {
                t.put("gpu-resident." + run + ".stages", stages(in.records(DIR + run + "/stages.jsonl")));
            }
            List<Map<String, Object>> lat = new ArrayList<>();
            for (String f : in.under(DIR + run)) {
                if (f.startsWith("gda-")) {
                    lat.addAll(in.records(DIR + run + "/" + f));
                }
            }
            if (!lat.isEmpty()) {
                t.put("gpu-resident." + run + ".latency", latency(lat));
            }
            if (in.has(DIR + run + "/rate.jsonl")) {
                t.put("gpu-resident." + run + ".rate", benchRate(in.records(DIR + run + "/rate.jsonl")));
            }
            List<String> gda = in.under(DIR + run).stream().filter(f -> f.startsWith("rate-devnic")).toList();
            if (!gda.isEmpty()) {
                t.put("gpu-resident." + run + ".gda-rate", devnic(in, DIR + run, gda));
            }
            if (in.has(DIR + run + "/handoff.jsonl")) {
                t.put("gpu-resident." + run + ".handoff", handoff(in.records(DIR + run + "/handoff.jsonl")));
            }
        }
        List<String> devnic = in.under(DEVNIC);
        if (!devnic.isEmpty()) {
            t.put("gda-rate.devnic", devnic(in, DEVNIC, devnic));
        }
        return t;
    }

    /** native/bench/softnic_device_rate.c, one row per repeat: the engine layout as run, M msg/s, busy passes. */
    private static String benchRate(List<Map<String, Object>> recs) {
        Table.Builder b = new Table.Builder("softnic_device_rate").col("layout", "QPs", "nic_sms", "engine threads/SM",
                "batch", "M msg/s", "busy passes / all passes", "valid");
        for (Map<String, Object> r : recs) {
            double busy = Fmt.num(r, "emu_busy_passes");
            double all = busy + Fmt.num(r, "emu_idle_passes");
            b.row(py(r.get("engine_layout")), py(r.get("qps")), py(r.get("nic_sms")), py(r.get("threads_per_sm")),
                    py(r.get("batch")), py(r.get("rate_mmsg_s")), Fmt.fixed(all > 0 ? busy / all : 0, 4),
                    lower(r.get("valid")));
        }
        return b.build().markdown();
    }

    /** native/bench/sm_handoff.cu: the SM-to-SM round trip under the device engine, ns. */
    private static String handoff(List<Map<String, Object>> recs) {
        Table.Builder b = new Table.Builder("sm_handoff").col("variant", "round trip p50 ns", "p99 ns", "min ns",
                "iters", "SMs (initiator, responder)", "valid");
        for (Map<String, Object> r : recs) {
            b.row(py(r.get("variant")), py(r.get("rtt_p50_ns")), py(r.get("rtt_p99_ns")), py(r.get("rtt_min_ns")),
                    py(r.get("iters")), py(r.get("initiator_smid")) + ", " + py(r.get("responder_smid")),
                    lower(r.get("valid")));
        }
        return b.build().markdown();
    }

    /** The stage profile: median SM cycles and ns per engine stage, and the initiator's put+completion. */
    private static String stages(List<Map<String, Object>> recs) {
        Table.Builder b = new Table.Builder("device engine stages").col("payload", "stage", "covers", "p50 cycles",
                "p50 ns", "SM clock kHz (measured)");
        for (Map<String, Object> r : recs) {
            b.row(py(r.get("payload")), py(r.get("stage")), Fmt.str(r, "covers"), py(r.get("p50_cycles")),
                    py(r.get("p50_ns")), py(r.get("sm_clock_khz")));
        }
        return b.build().markdown();
    }

    /**
     * gda issue and put+completion on GPU-resident queues, one row per record, µs; with doorbell-to-CQE
     * columns when any record has them.
     */
    private static String latency(List<Map<String, Object>> recs) {
        boolean db2cqe = recs.stream().anyMatch(r -> r.containsKey("db2cqe_p50_ns"));
        Table.Builder b = new Table.Builder("device engine latency");
        if (db2cqe) {
            b.col("ordering", "payload", "bytes", "nic_sms", "issue p50", "issue p99", "put+c p50", "put+c p99",
                    "db→CQE p50", "db→CQE p99", "valid");
        } else {
            b.col("ordering", "payload", "bytes", "nic_sms", "issue p50", "issue p99", "put+c p50", "put+c p99", "valid");
        }
        for (Map<String, Object> r : recs) {
            if (!r.containsKey("putc_p50_ns")) {
                continue;
            }
            List<String> row = new ArrayList<>(List.of(py(r.get("ordering")), py(r.get("payload")),
                    py(r.get("size_bytes")), py(r.get("nic_sms")), us(r, "issue_p50_ns"), us(r, "issue_p99_ns"),
                    us(r, "putc_p50_ns"), us(r, "putc_p99_ns")));
            if (db2cqe) {
                row.add(r.containsKey("db2cqe_p50_ns") ? us(r, "db2cqe_p50_ns") : "—");
                row.add(r.containsKey("db2cqe_p99_ns") ? us(r, "db2cqe_p99_ns") : "—");
            }
            row.add(py(r.get("valid")));
            b.row(row);
        }
        return b.build().markdown();
    }

    static String us(Map<String, Object> r, String key) {
        return Fmt.fixed(Fmt.num(r, key) / 1000, 2);
    }

    private static String devnic(DocTables.Inputs in, String dir, List<String> names) {
        Table.Builder b = new Table.Builder("gda rate --nic softnic-device").col("file", "blocks", "QPs",
                "nic_sms (distinct)", "M msg/s [min, max]", "repeats", "limited_by", "SQ-full share",
                "SQ-full waits / doorbells", "engine busy (passes)", "valid");
        for (String name : names) {
            for (Map<String, Object> r : in.records(dir + "/" + name)) {
                b.row(name, py(r.get("blocks")), py(r.get("qps")), py(r.get("nic_sms")) + " (" + py(r.get("nic_sms_distinct")) + ")",
                        py(r.get("rate_mmsg_s")) + " [" + py(r.get("rate_min_mmsg_s")) + ", " + py(r.get("rate_max_mmsg_s")) + "]",
                        py(r.get("repeats")), py(r.get("limited_by")), py(r.get("sq_full_share")),
                        py(r.get("sq_full_waits")) + " / " + py(r.get("doorbells")), py(r.get("engine_busy_ratio")),
                        lower(r.get("valid")));
            }
        }
        return b.build().markdown();
    }
}
