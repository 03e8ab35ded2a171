// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A snapshot of the emulator's counters (names prefixed {@code emu_}). These
 * are emulator-native counts; doorbells observed is a lower bound because two
 * doorbells between engine scans merge.
 */
public record SoftNicCounters(Map<String, Long> values) {
    public SoftNicCounters {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public long get(String name) {
        Long v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no counter " + name + "; known: " + values.keySet());
        }
        return v;
    }

    /** this - earlier, counter by counter. */
    public SoftNicCounters minus(SoftNicCounters earlier) {
        Map<String, Long> d = new LinkedHashMap<>();
        values.forEach((k, v) -> d.put(k, v - earlier.values.getOrDefault(k, 0L)));
        return new SoftNicCounters(d);
    }
}
