// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import java.util.Collection;
import java.util.Map;

/**
 * Where a set of records was measured, as the records say it: {@code hardware}
 * (false for anything on the software NIC), refined by {@code gpu_hardware} /
 * {@code nic_hardware} where a record carries them. Never inferred from names.
 */
public enum Provenance {
    HARDWARE("hardware", "measured on hardware"),
    EMULATED("emulated", "EMULATED: software NIC, not hardware"),
    MIXED("mixed", "MIXED: some records emulated, some on hardware");

    private final String cssClass;
    private final String label;

    Provenance(String cssClass, String label) {
        this.cssClass = cssClass;
        this.label = label;
    }

    public String cssClass() {
        return cssClass;
    }

    public String label() {
        return label;
    }

    /** A record is emulated when any of its hardware flags is false (or it has none). */
    public static boolean emulated(Map<String, Object> r) {
        for (String k : new String[] {"hardware", "gpu_hardware", "nic_hardware"}) {
            if (Boolean.FALSE.equals(r.get(k))) {
                return true;
            }
        }
        return !Boolean.TRUE.equals(r.get("hardware"));
    }

    public static Provenance of(Collection<Map<String, Object>> records) {
        boolean anyEmu = false;
        boolean anyHw = false;
        for (Map<String, Object> r : records) {
            if (emulated(r)) {
                anyEmu = true;
            } else {
                anyHw = true;
            }
        }
        return anyEmu && anyHw ? MIXED : anyEmu ? EMULATED : HARDWARE;
    }

    /** Suffix for figure titles, so a PNG seen alone still says where it was measured. */
    public static String tag(Collection<Map<String, Object>> records) {
        return switch (of(records)) {
            case EMULATED -> " [EMULATED NIC]";
            case HARDWARE -> " [hardware]";
            case MIXED -> " [mixed: emulated + hardware]";
        };
    }

    /** Details beyond the badge: which parts were real, from the optional per-part flags. */
    public static String detail(Collection<Map<String, Object>> records) {
        StringBuilder sb = new StringBuilder();
        for (String k : new String[] {"gpu_hardware", "nic_hardware"}) {
            boolean t = records.stream().anyMatch(r -> Boolean.TRUE.equals(r.get(k)));
            boolean f = records.stream().anyMatch(r -> Boolean.FALSE.equals(r.get(k)));
            if (t || f) {
                sb.append(sb.isEmpty() ? "" : "; ").append(k.replace("_hardware", "").toUpperCase())
                        .append(t && f ? ": mixed" : t ? ": hardware" : ": emulated");
            }
        }
        String backends = String.join(", ", records.stream().map(r -> String.valueOf(r.get("backend")))
                .distinct().toList());
        sb.append(sb.isEmpty() ? "" : "; ").append("backend ").append(backends);
        return sb.toString();
    }
}
