// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scaling tables of runs 1-3 in docs/results/h200-softnic-scaling.md:
 * {@code scaling.runs12} from h200-softnic-scaling/call*-scaling-p*.jsonl and
 * {@code scaling.run3} from h200-softnic-scaling/run3/scaling-p*.jsonl. One row
 * per {@code softnic rate} record: its median, min and max over the repeats
 * (computed by the bench), in M msg/s with one decimal, rows by producers.
 * File names say what the record does not: a "-paired" run placed each engine
 * beside its producer; a later call's file for a producer count an earlier
 * call already ran is a repeat on a second machine (scripts/device-run.sh,
 * phase_scaling).
 */
final class SoftnicScalingDocTables {
    private SoftnicScalingDocTables() {
    }

    static final String RUNS12 = "h200-softnic-scaling";
    static final String RUN3 = "h200-softnic-scaling/run3";

    /** The targets: 1 + 1 at 60 M msg/s, 8 + 8 at a ConnectX-7's 260 M msg/s. */
    static final Map<Integer, Double> TARGET = Map.of(1, 60.0, 8, 260.0);

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        List<String> runs12 = in.under(RUNS12).stream().filter(n -> n.matches("call\\d+-scaling-p\\d+.*")).toList();
        if (!runs12.isEmpty()) {
            t.put("scaling.runs12", table(in, RUNS12, runs12, "M msg/s, median"));
        }
        List<String> run3 = in.under(RUN3).stream().filter(n -> n.startsWith("scaling-p")).toList();
        if (!run3.isEmpty()) {
            t.put("scaling.run3", table(in, RUN3, run3, "M msg/s, median of 5"));
        }
        return t;
    }

    private record Row(String file, Map<String, Object> r) {
        int producers() {
            return (int) Fmt.lng(r, "producers");
        }

        boolean paired() {
            return file.contains("-paired");
        }
    }

    static String table(DocTables.Inputs in, String folder, List<String> files, String medianHeader) {
        List<Row> rows = new ArrayList<>();
        for (String f : files) {
            for (Map<String, Object> r : in.records(folder + "/" + f)) {
                if ("softnic.rate".equals(r.get("experiment"))) {
                    rows.add(new Row(f, r));
                }
            }
        }
        rows.sort(Comparator.comparingInt(Row::producers).thenComparing(Row::paired).thenComparing(Row::file));
        Table.Builder b = new Table.Builder("software NIC rate per producers = engines")
                .col("producers = engines", "engine CPUs", "producer CPUs", medianHeader, "min - max", "target (issue)")
                .align("| --- | --- | --- | --- | --- | --- |");
        List<Integer> seen = new ArrayList<>();
        for (Row row : rows) {
            Map<String, Object> r = row.r();
            int p = row.producers();
            String label = Integer.toString(p);
            if (row.paired()) {
                label += ", each engine beside its producer";
            } else if (seen.contains(p)) {
                label += " (repeat, 2nd machine)";
            }
            seen.add(p);
            double median = Fmt.num(r, "rate_mmsg_s");
            Double target = TARGET.get(p);
            boolean met = target != null && median >= target;
            String m = Fmt.fixed(median, 1);
            String goal = target == null ? ""
                    : ">= " + Fmt.fixed(target, 0) + (p == 8 ? " (a ConnectX-7's rate)" : "") + ": "
                            + (met ? "**met**" : "**not met**");
            b.row(label, cpus(r.get("engine_cpus")), cpus(r.get("producer_cpus")), met ? "**" + m + "**" : m,
                    Fmt.fixed(Fmt.num(r, "rate_min_mmsg_s"), 1) + " - " + Fmt.fixed(Fmt.num(r, "rate_max_mmsg_s"), 1),
                    goal);
        }
        // an empty target cell is written "| |", as the doc had it by hand
        return b.build().markdown().replace(" |  |\n", " | |\n");
    }

    /** A CPU list as the doc writes it: "0-7" for three or more consecutive CPUs, else "1,3,5,7". */
    static String cpus(Object v) {
        if (!(v instanceof List<?> l) || l.isEmpty()) {
            throw new IllegalArgumentException("softnic rate record lacks its CPU list: " + v);
        }
        List<Long> c = l.stream().map(o -> ((Number) o).longValue()).toList();
        boolean consecutive = true;
        for (int i = 1; i < c.size(); i++) {
            consecutive &= c.get(i) == c.get(i - 1) + 1;
        }
        if (consecutive && c.size() >= 3) {
            return c.getFirst() + "-" + c.getLast();
        }
        return String.join(",", c.stream().map(String::valueOf).toList());
    }
}
