// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.List;
import java.util.Map;

/**
 * One experiment's part of the report: where the records came from, how they
 * were measured (method text), tables and figures, ours beside the paper's
 * ("GPU-Initiated Communication: Dissecting Down to the Bone").
 */
public record Section(String id, String title, String method, List<String> sources, Provenance provenance,
                      String provenanceDetail, List<String> notes, List<Table> tables, List<Figure> figures) {
    /** A PNG written beside the report, with a caption that says which marks are references. */
    public record Figure(String file, String caption) {
    }

    static Section of(String id, String title, String methodKey, List<ResultFile> files, List<String> notes,
                      List<Table> tables, List<Figure> figures) {
        List<Map<String, Object>> all = files.stream().flatMap(f -> f.records().stream()).toList();
        return new Section(id, title, Methods.text(methodKey), files.stream().map(f -> f.path().toString()).toList(),
                Provenance.of(all), Provenance.detail(all), notes, tables, figures);
    }
}
