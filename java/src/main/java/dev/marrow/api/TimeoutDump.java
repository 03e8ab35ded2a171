// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Watchdog dumps (docs/design/watchdog.md): a bounded wait that times out
 * ends its message with {@value #MARK} and one line of {@code key=value}
 * pairs saying what was awaited and what the queues (or, for a TCP peer,
 * the protocol) looked like. The native side writes them with the one C
 * formatter (native/src/common/marrow_dump.c); the Java waits write them
 * with {@link #format}. {@link #parse} turns the pairs into record fields.
 */
public final class TimeoutDump {
    /** Separates the message from the dump (MARROW_DUMP_MARK of marrow_dump.h). */
    public static final String MARK = "; state:";

    private static final Pattern DECIMAL = Pattern.compile("-?[0-9]{1,18}");

    private TimeoutDump() {
    }

    /**
     * The pairs after the last {@value #MARK} of message, in order: decimal
     * values as Long, everything else (hex words, names, op/syndrome/counter
     * triples) as the text. Empty when the message carries no dump.
     */
    public static Map<String, Object> parse(String message) {
        if (message == null) {
            return Map.of();
        }
        int at = message.lastIndexOf(MARK);
        if (at < 0) {
            return Map.of();
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (String token : message.substring(at + MARK.length()).trim().split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq <= 0 || eq == token.length() - 1) {
                continue; // not a pair
            }
            String key = token.substring(0, eq);
            String value = token.substring(eq + 1);
            m.put(key, DECIMAL.matcher(value).matches() ? (Object) Long.parseLong(value) : value);
        }
        return Collections.unmodifiableMap(m);
    }

    /** {@value #MARK} and the pairs; spaces inside a value become underscores. */
    public static String format(Map<String, ?> pairs) {
        StringBuilder b = new StringBuilder(MARK);
        pairs.forEach((k, v) -> b.append(' ').append(k).append('=').append(String.valueOf(v).replace(' ', '_')));
        return b.toString();
    }
}
