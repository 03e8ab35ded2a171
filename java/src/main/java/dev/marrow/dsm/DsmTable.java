// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;
import dev.marrow.results.ResultWriter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The human table of a DSM run: one block per (experiment, row kind), so
 * each block has uniform columns. Per-size points and per-pair rows are
 * left to json/csv (hundreds of lines); reference_* columns are the
 * published values, never ours.
 */
public final class DsmTable {
    private DsmTable() {
    }

    static final Set<String> HIDDEN_ROWS = Set.of("point", "pair", "offset"); // offset: E11's 128 per stream

    public static String render(List<ResultRecord> records, Map<String, Object> env) {
        return (env != null ? title(env) : REFERENCE_LINE) + blocks(records);
    }

    private static final String REFERENCE_LINE =
            "# reference_* columns: published values (source in reference_source), printed beside ours\n";

    /** The title lines: GPU, build, what reference_* means. */
    public static String title(Map<String, Object> env) {
        return "# DSM suite on " + env.getOrDefault("gpu0_name", env.getOrDefault("gpu", "GPU")) + ", git "
                + env.get("git_sha") + "\n" + REFERENCE_LINE;
    }

    /** The blocks of these records (one experiment's, as it completes, or a whole run's). */
    public static String blocks(List<ResultRecord> records) {
        Map<String, List<ResultRecord>> groups = new LinkedHashMap<>();
        for (ResultRecord r : records) {
            String row = String.valueOf(r.params().get("row"));
            if (HIDDEN_ROWS.contains(row)) {
                continue;
            }
            groups.computeIfAbsent(r.experiment() + " / " + row, k -> new ArrayList<>()).add(r);
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<ResultRecord>> e : groups.entrySet()) {
            sb.append('\n').append("## ").append(e.getKey()).append('\n');
            sb.append(ResultWriter.table(e.getValue(), null));
        }
        return sb.toString();
    }
}
