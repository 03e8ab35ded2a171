// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.JsonLinesReader;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The model's inputs from a `dsm run --format json` file, so that the
 * predictions can be computed from any earlier run without a GPU: the
 * one-way load = mean of the E2 fits "load 1->0" and "load 0->1" (cluster
 * 2), the duplex read = the E5 load summary's per-direction rate.
 */
public final class ModelInputs {
    private ModelInputs() {
    }

    /** Reads path; IllegalArgumentException naming what is missing. */
    public static ModelPredictions fromJsonl(Path path) {
        List<Map<String, Object>> rows = new ArrayList<>();
        // one line at a time through the bounded reader (docs/design/records.md)
        try (JsonLinesReader r = JsonLinesReader.open(path, false)) {
            while (r.hasNext()) {
                Map<String, Object> m = r.next();
                if ("result".equals(m.get("record"))) {
                    rows.add(m);
                }
            }
        } catch (IllegalArgumentException e) { // bad input, not an I/O failure
            throw new IllegalArgumentException(path + " is not a JSON-lines result file (" + e.getMessage() + ")", e);
        }
        return fromRows(rows, path.toString());
    }

    /** The inputs from result rows (maps as written by ResultWriter). */
    public static ModelPredictions fromRows(List<Map<String, Object>> rows, String where) {
        double sum = 0;
        int n = 0;
        Double duplex = null;
        for (Map<String, Object> r : rows) {
            Object series = r.get("series");
            if ("dsm.E2".equals(r.get("experiment")) && "fit".equals(r.get("row"))
                    && ("load 1->0".equals(series) || "load 0->1".equals(series))) {
                sum += number(r, "inv_beta_b_per_cycle");
                n++;
            }
            if ("dsm.E5".equals(r.get("experiment")) && "summary".equals(r.get("row")) && "load".equals(r.get("kind"))) {
                duplex = number(r, "per_direction_b_per_cycle");
            }
        }
        if (n == 0 || duplex == null) {
            throw new IllegalArgumentException(where + " lacks " + (n == 0 ? "the E2 load fits (load 1->0, load 0->1)"
                    : "the E5 load summary") + "; run `dsm run --experiment E2,E5` to produce them");
        }
        return new ModelPredictions(sum / n, duplex);
    }

    private static double number(Map<String, Object> r, String key) {
        Object v = r.get(key);
        if (!(v instanceof Number num)) {
            throw new IllegalArgumentException("record " + r.get("experiment") + " " + r.get("series") + " has no number "
                    + key);
        }
        return num.doubleValue();
    }
}
