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
        return new BigDecimal(v).setScale(digits, RoundingMode.HALF_EVEN).toPlainString();
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
