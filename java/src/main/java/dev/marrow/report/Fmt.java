// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;

/**
 * Number formatting shared by the HTML report and the markdown tables. Fixed
 * decimals round the exact binary value half-to-even, so a table printed here
 * matches one printed by Python's format() digit for digit.
 */
public final class Fmt {
    private Fmt() {
    }

    public static String fixed(double v, int digits) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return String.valueOf(v);
        }
        String s = new BigDecimal(v).setScale(digits, RoundingMode.HALF_EVEN).toPlainString();
        // Python keeps the sign of a negative value that rounds to zero ("-0.0"); BigDecimal has no -0
        boolean negative = v < 0 || (v == 0 && 1 / v < 0);
        return negative && !s.startsWith("-") ? "-" + s : s;
    }

    /**
     * A JSON value as Python's str() prints it: None, True/False, integers as
     * they are, floats in repr's shortest form ("13.08", "1000.0", "1e-05").
     * Tables that a Python script printed before keep their digits.
     */
    public static String py(Object v) {
        if (v == null) {
            return "None";
        }
        if (v instanceof Boolean b) {
            return b ? "True" : "False";
        }
        if (v instanceof Double || v instanceof Float) {
            return pyFloat(((Number) v).doubleValue());
        }
        return String.valueOf(v);
    }

    /** Python's repr of a float: the shortest digits that read back the same value. */
    static String pyFloat(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0.0" : "0.0";
        }
        // Double.toString gives the shortest round-trip digits (JDK 19+); only the layout differs
        BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        double a = Math.abs(d);
        if (a >= 1e-4 && a < 1e16) {
            String s = b.toPlainString();
            return s.contains(".") ? s : s + ".0";
        }
        String digits = b.unscaledValue().abs().toString();
        int exp = digits.length() - 1 - b.scale();
        String mant = digits.charAt(0) + (digits.length() > 1 ? "." + digits.substring(1) : "");
        return (d < 0 ? "-" : "") + mant + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
    }

    /** Python's str(x).lower() of a JSON value: "true"/"false" for booleans. */
    public static String lower(Object v) {
        return py(v).toLowerCase(java.util.Locale.ROOT);
    }

    /** Bytes as the results docs write a message size: "4 MiB", "2 KiB", "8 B" (whole units, rounded down). */
    public static String size(long b) {
        return b >= 1048576 ? b / 1048576 + " MiB" : b >= 1024 ? b / 1024 + " KiB" : b + " B";
    }

    /**
     * One field of a record as a table cell, through fmt. A record merged from
     * several process runs ({@code marrow merge-runs}) carries KEY_min and KEY_max
     * beside KEY (the median): then the cell reads "median [min, max]". "—" when
     * the record lacks the key.
     */
    public static String ranged(Map<String, Object> r, String key, java.util.function.Function<Object, String> fmt) {
        if (!r.containsKey(key)) {
            return "—";
        }
        String v = fmt.apply(r.get(key));
        Object lo = r.get(key + "_min");
        Object hi = r.get(key + "_max");
        return lo instanceof Number && hi instanceof Number ? v + " [" + fmt.apply(lo) + ", " + fmt.apply(hi) + "]" : v;
    }

    /** {@link #ranged} with the value as Python prints it. */
    public static String ranged(Map<String, Object> r, String key) {
        return ranged(r, key, Fmt::py);
    }

    /** ns to µs with two decimals, "median [min, max]" for a merged record ({@link #ranged}). */
    public static String usRanged(Map<String, Object> r, String key) {
        return ranged(r, key, Fmt::us);
    }

    /** How many process runs a record was merged from ({@code marrow merge-runs} writes "runs"); 1 if none. */
    public static int runs(Map<String, Object> r) {
        return r.get("runs") instanceof Number n ? n.intValue() : 1;
    }

    /** Whether any record was merged from several process runs: then tables add a runs column. */
    public static boolean merged(java.util.List<Map<String, Object>> rs) {
        return rs.stream().anyMatch(r -> runs(r) > 1);
    }

    /** The note a section of merged records carries, or none. */
    public static java.util.List<String> mergedNote(java.util.List<Map<String, Object>> rs) {
        return merged(rs) ? java.util.List.of("Merged from several process runs (marrow merge-runs; the runs column "
                + "says how many): each measured cell reads median [min, max] of the runs' values.")
                : java.util.List.of();
    }

    /** ns to µs with two decimals; "—" for a missing value. */
    public static String us(Object ns) {
        return ns instanceof Number n ? fixed(n.doubleValue() / 1000.0, 2) : "—";
    }

    /** Thousands separated by commas. */
    public static String grouped(long v) {
        return String.format(java.util.Locale.ROOT, "%,d", v);
    }

    /** A value as the record holds it: integers without decimals, other numbers as written. */
    public static String plain(Object v) {
        if (v == null) {
            return "—";
        }
        if (v instanceof Double d && d == Math.rint(d) && Math.abs(d) < 1e15) {
            return String.valueOf(d);
        }
        return String.valueOf(v);
    }

    public static double num(Map<String, Object> r, String key) {
        if (!(r.get(key) instanceof Number n)) {
            throw new IllegalArgumentException("record lacks numeric '" + key + "': " + r.get("experiment")
                    + " " + r.getOrDefault("series", ""));
        }
        return n.doubleValue();
    }

    public static long lng(Map<String, Object> r, String key) {
        return (long) num(r, key);
    }

    public static boolean bool(Map<String, Object> r, String key) {
        return Boolean.TRUE.equals(r.get(key));
    }

    public static String str(Map<String, Object> r, String key) {
        Object v = r.get(key);
        return v == null ? "" : String.valueOf(v);
    }
}
