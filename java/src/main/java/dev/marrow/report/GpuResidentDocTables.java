// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.marrow.report.Fmt.lower;
import static dev.marrow.report.Fmt.py;

/**
 * Tables of docs/results/h200-gpu-resident.md (host vs GPU placement per
 * ordering, the GPU-resident size sweep, the device engine's C-bench rate;
 * calls 4 and 5 in h200-gpu-resident/call4|call5/) and the device-engine
 * table of docs/results/h200-gda-rate.md (every file of
 * h200-gda-rate/devnic/). Times are the records' ns divided by 1000.
 */
final class GpuResidentDocTables {
    private GpuResidentDocTables() {
    }

    static final String DIR = "h200-gpu-resident/";
    static final List<String> CALLS = List.of("call4", "call5");
    static final String DEVNIC = "h200-gda-rate/devnic";

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        for (String c : CALLS) {
            if (in.has(DIR + c + "/gda-ordering-host.jsonl") && in.has(DIR + c + "/gda-ordering-gpu.jsonl")) {
                t.put("gpu-resident.ordering." + c, ordering(in, DIR + c + "/"));
            }
        }
        if (CALLS.stream().allMatch(c -> in.has(DIR + c + "/gda-size-gpu.jsonl"))) {
            t.put("gpu-resident.size", size(in));
        }
        if (CALLS.stream().allMatch(c -> in.has(DIR + c + "/rate.jsonl"))) {
            t.put("gpu-resident.rate", rate(in));
        }
        for (String run : in.subfolders(DIR.substring(0, DIR.length() - 1))) {
            if (CALLS.contains(run) || run.equals("medians")) {
                continue; // the two ordering calls and the merged medians have tables of their own
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

    private static String ordering(DocTables.Inputs in, String dir) {
        Map<List<Object>, Map<String, Object>> host = new LinkedHashMap<>();
        in.records(dir + "gda-ordering-host.jsonl").forEach(r -> host.put(Arrays.asList(r.get("ordering"), r.get("payload")), r));
        Map<List<Object>, Map<String, Object>> gpu = new LinkedHashMap<>();
        in.records(dir + "gda-ordering-gpu.jsonl").forEach(r -> gpu.put(Arrays.asList(r.get("ordering"), r.get("payload")), r));
        Table.Builder b = new Table.Builder("host vs gpu placement").col("ordering", "payload", "issue p50 host / gpu",
                "issue p99 host / gpu", "put+c p50 host / gpu", "put+c p99 host / gpu", "gpu − host put+c p50",
                "valid host / gpu");
        for (Map.Entry<List<Object>, Map<String, Object>> e : gpu.entrySet()) {
            Map<String, Object> g = e.getValue();
            Map<String, Object> h = host.get(e.getKey());
            if (h == null) {
                throw new IllegalArgumentException(dir + "gda-ordering-host.jsonl has no row " + e.getKey());
            }
            List<String> row = new ArrayList<>(List.of(py(e.getKey().get(0)), py(e.getKey().get(1))));
            for (String k : List.of("issue_p50_ns", "issue_p99_ns", "putc_p50_ns", "putc_p99_ns")) {
                row.add(us(h, k) + " / " + us(g, k));
            }
            row.add("+" + Fmt.fixed((Fmt.num(g, "putc_p50_ns") - Fmt.num(h, "putc_p50_ns")) / 1000, 2));
            row.add(lower(h.get("valid")) + (Fmt.bool(h, "valid") ? "" : " (payload_errors " + py(h.get("payload_errors")) + ")")
                    + " / " + lower(g.get("valid")));
            b.row(row);
        }
        return b.build().markdown();
    }

    private static String size(DocTables.Inputs in) {
        List<Map<String, Object>> a = in.records(DIR + "call4/gda-size-gpu.jsonl");
        List<Map<String, Object>> c = in.records(DIR + "call5/gda-size-gpu.jsonl");
        Table.Builder b = new Table.Builder("size sweep, call 4 | call 5").col("bytes", "WQEBBs", "issue p50",
                "issue p99", "put+c p50", "put+c p99", "valid");
        for (int i = 0; i < Math.min(a.size(), c.size()); i++) {
            Map<String, Object> x = a.get(i);
            Map<String, Object> y = c.get(i);
            List<String> row = new ArrayList<>(List.of(py(x.get("size_bytes")), py(x.get("wqebbs"))));
            for (String k : List.of("issue_p50_ns", "issue_p99_ns", "putc_p50_ns", "putc_p99_ns")) {
                row.add(us(x, k) + " \\| " + us(y, k)); // an escaped bar: one cell holds both calls
            }
            row.add(String.valueOf(Fmt.bool(x, "valid") && Fmt.bool(y, "valid")));
            b.row(row);
        }
        return b.build().markdown();
    }

    private static String rate(DocTables.Inputs in) {
        Table.Builder b = new Table.Builder("softnic_device_rate").col("call", "QPs", "nic_sms", "nic_sms_distinct",
                "repeats (M msg/s)", "median", "max", "error CQEs", "valid");
        for (String call : CALLS) {
            Map<List<Long>, List<Map<String, Object>>> groups = new TreeMap<>((p, q) -> p.get(0).equals(q.get(0))
                    ? Long.compare(p.get(1), q.get(1)) : Long.compare(p.get(0), q.get(0)));
            for (Map<String, Object> r : in.records(DIR + call + "/rate.jsonl")) {
                groups.computeIfAbsent(List.of(Fmt.lng(r, "qps"), Fmt.lng(r, "nic_sms")), k -> new ArrayList<>()).add(r);
            }
            for (Map.Entry<List<Long>, List<Map<String, Object>>> e : groups.entrySet()) {
                List<Map<String, Object>> rs = e.getValue();
                List<Object> v = rs.stream().map(r -> r.get("rate_mmsg_s")).toList();
                b.row(call.substring(call.length() - 1), String.valueOf(e.getKey().get(0)), String.valueOf(e.getKey().get(1)),
                        py(rs.getFirst().get("nic_sms_distinct")), String.join(", ", v.stream().map(Fmt::py).toList()),
                        py(median(v)), py(v.stream().max((p, q) -> Double.compare(((Number) p).doubleValue(),
                                ((Number) q).doubleValue())).orElseThrow()),
                        String.valueOf(rs.stream().mapToLong(r -> Fmt.lng(r, "emu_cqe_req_err")).sum()),
                        String.valueOf(rs.stream().allMatch(r -> Fmt.bool(r, "valid"))));
            }
        }
        return b.build().markdown();
    }

    /** The middle value (as the record holds it) or, for an even count, the mean of the two middle ones. */
    static Object median(List<Object> v) {
        List<Object> s = new ArrayList<>(v);
        s.sort((p, q) -> Double.compare(((Number) p).doubleValue(), ((Number) q).doubleValue()));
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2)
                : (((Number) s.get(n / 2 - 1)).doubleValue() + ((Number) s.get(n / 2)).doubleValue()) / 2;
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
