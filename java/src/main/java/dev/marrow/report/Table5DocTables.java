// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tables of docs/results/h200-table5.md: mini-gda's message rate at the shapes of Table 5 of
 * "GPU-Initiated Communication: Dissecting Down to the Bone", from
 * {@code h200-table5/BUILD/VARIANT/ROW.jsonl} (scripts/device-table5.sh writes VARIANT/ROW.jsonl; a
 * run's folder is named by the build it measured). Block {@code table5.BUILD}: one row per record
 * (a row file holds several records where the row sweeps QPs or B), the paper's P-IB value beside it
 * from the one data file, one column per variant the run has, and where the first variant's time
 * went (docs/design/methods.md §2.1). Block {@code table5.builds}: the first variant across builds.
 */
final class Table5DocTables {
    private Table5DocTables() {
    }

    static final String PAGE = "h200-table5";

    /** The script's row files, in Table 5's order, and the paper value each one stands beside. */
    static final Map<String, String> ROWS = rows();

    private static Map<String, String> rows() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("1t-1qp-b1", "t5.pib.minigda.1t1q_b1");
        m.put("1t-nqp-b1", "t5.pib.minigda.1t_nqp_b1");
        m.put("1t-1qp-b16", "t5.pib.minigda.1t1q_b16");
        m.put("1qp-lock32", "t5.pib.minigda.oneqp_lock32");
        m.put("1qp-slot256", "t5.pib.minigda.oneqp_slot256");
        m.put("1qp-warp32", "t5.pib.minigda.oneqp_warp32");
        m.put("1qp-warp256", "t5.pib.minigda.oneqp_warp256");
        m.put("16x16", null); // B=1 and B=16 records: the id follows the record's batch
        m.put("1sm-32q", "t5.pib.minigda.32q1sm");
        m.put("1sm-64q", "t5.pib.minigda.64q1sm");
        m.put("64x64", "t5.pib.minigda.64q64sm_b16");
        return m;
    }

    /** Variants in the order the page explains them (scripts/device-table5.sh). */
    static final List<String> VARIANTS = List.of("dev-after", "dev-before", "dev-shared-gf", "host-after",
            "host-before");

    static Map<String, String> tables(DocTables.Inputs in) {
        Map<String, String> t = new LinkedHashMap<>();
        List<String> builds = in.branches(PAGE);
        for (String b : builds) {
            List<String> vs = VARIANTS.stream().filter(v -> !in.under(PAGE + "/" + b + "/" + v).isEmpty()).toList();
            if (!vs.isEmpty()) {
                t.put("table5." + b, run(in, b, vs));
            }
        }
        List<String> withFirst = builds.stream()
                .filter(b -> !in.under(PAGE + "/" + b + "/" + VARIANTS.getFirst()).isEmpty()).toList();
        if (withFirst.size() > 1) {
            t.put("table5.builds", acrossBuilds(in, withFirst));
        }
        return t;
    }

    private static String paperId(String row, Map<String, Object> r) {
        if (!"16x16".equals(row)) {
            return ROWS.get(row);
        }
        return Fmt.lng(r, "batch") == 1 ? "t5.pib.minigda.16q16sm_b1" : "t5.pib.minigda.16q16sm_b16";
    }

    private static String paper(String row, Map<String, Object> r) {
        PaperReferences.Ref ref = PaperReferences.get().find(paperId(row, r));
        return ref == null ? "—" : PaperReferences.number(ref.value());
    }

    /** "blocks x threads, QPs (map), publication, B" as the record says it. */
    static String shape(Map<String, Object> r) {
        return Fmt.lng(r, "blocks") + " x " + Fmt.lng(r, "threads") + ", " + Fmt.lng(r, "qps") + " QP"
                + (Fmt.lng(r, "qps") == 1 ? "" : "s, " + Fmt.str(r, "qp_map")) + ", " + Fmt.str(r, "publication")
                + ", B=" + Fmt.lng(r, "batch");
    }

    /** M msg/s, with [min, max] over the repeats where the row repeated. */
    static String rate(Map<String, Object> r) {
        String m = Fmt.fixed(Fmt.num(r, "rate_mmsg_s"), 2);
        if (r.get("repeats_done") instanceof Number n && n.longValue() > 1 && r.containsKey("rate_min_mmsg_s")) {
            m += " [" + Fmt.fixed(Fmt.num(r, "rate_min_mmsg_s"), 2) + ", " + Fmt.fixed(Fmt.num(r, "rate_max_mmsg_s"), 2)
                    + "]";
        }
        return Boolean.TRUE.equals(r.get("valid")) ? m : m + " (invalid)";
    }

    /** The result records of one row file of a variant, in file order; empty when the run lacks it. */
    private static List<Map<String, Object>> records(DocTables.Inputs in, String b, String v, String row) {
        String dir = PAGE + "/" + b + "/" + v;
        if (!in.under(dir).contains(row + ".jsonl")) {
            return List.of();
        }
        return in.records(dir + "/" + row + ".jsonl").stream().filter(r -> "gda.rate".equals(r.get("experiment")))
                .toList();
    }

    private static String run(DocTables.Inputs in, String b, List<String> vs) {
        String first = vs.getFirst();
        Table.Builder t = new Table.Builder("Table 5 rows, build " + b).col("row", "shape (" + first + ")")
                .ref("paper P-IB");
        vs.forEach(v -> t.col(v + " (M msg/s)"));
        t.col("limited_by / stage (" + first + ")", "wqe / fence / reap / SQ-full share (" + first + ")");
        for (String row : ROWS.keySet()) {
            List<Map<String, Object>> lead = records(in, b, first, row);
            for (int i = 0; i < lead.size(); i++) {
                Map<String, Object> r = lead.get(i);
                List<String> cells = new ArrayList<>(List.of(row, shape(r), paper(row, r)));
                for (String v : vs) {
                    List<Map<String, Object>> rs = records(in, b, v, row);
                    cells.add(i < rs.size() ? rate(rs.get(i)) : "—");
                }
                cells.add(Fmt.str(r, "limited_by") + " / " + Fmt.str(r, "poster_stage"));
                cells.add(share(r, "wqe_share") + " / " + share(r, "fence_share") + " / " + share(r, "reap_share")
                        + " / " + share(r, "sq_full_share"));
                t.row(cells);
            }
        }
        return t.build().markdown();
    }

    private static String share(Map<String, Object> r, String key) {
        return r.get(key) instanceof Number ? Fmt.fixed(Fmt.num(r, key), 2) : "—";
    }

    private static String acrossBuilds(DocTables.Inputs in, List<String> builds) {
        String v = VARIANTS.getFirst();
        Table.Builder t = new Table.Builder("Table 5 rows across builds (" + v + ")").col("row", "shape")
                .ref("paper P-IB");
        builds.forEach(b -> t.col(b + " (M msg/s)"));
        List<Map<String, Object>> base;
        for (String row : ROWS.keySet()) {
            base = records(in, builds.getLast(), v, row);
            for (int i = 0; i < base.size(); i++) {
                Map<String, Object> r = base.get(i);
                List<String> cells = new ArrayList<>(List.of(row, shape(r), paper(row, r)));
                for (String b : builds) {
                    List<Map<String, Object>> rs = records(in, b, v, row);
                    cells.add(i < rs.size() ? rate(rs.get(i)) : "—");
                }
                t.row(cells);
            }
        }
        return t.build().markdown();
    }
}
