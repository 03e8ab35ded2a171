// SPDX-License-Identifier: Apache-2.0
package dev.marrow.presets;

import dev.marrow.gda.Ordering;

import java.util.Arrays;
import java.util.List;

/**
 * A design choice a library preset can make (docs/design/presets.md). Each
 * knob has a name (the key in a preset file), a type, and for word-valued
 * knobs the words it accepts. Adding a knob is one constant here; a command
 * that does not list it in its rules refuses a preset that sets it, naming
 * the knob.
 */
public enum Knob {
    // mini-gda
    ORDERING("ordering", Type.ORDERING, "WQE/doorbell ordering variant (docs/design/orderings.md)"),
    QPS_PER_PEER("qps_per_peer", Type.COUNT, "RC QPs to each peer"),
    COMPLETION_SCOPE("completion_scope", Type.WORD, "which queues a completion call waits for",
            "qp", "used-qp", "all-qps", "context"),
    DOORBELL_BATCH("doorbell_batch", Type.COUNT, "WQEs announced per doorbell"),
    PUBLICATION("publication", Type.WORD, "how threads sharing a QP publish their WQEs",
            "per-thread", "warp-cooperative"),
    // mini-proxy
    WORKERS("workers", Type.COUNT, "CPU proxy workers (T)"),
    RINGS_PER_PE("rings_per_pe", Type.COUNT, "descriptor rings (FIFOs) of each sending PE"),
    RINGS_PER_WORKER("rings_per_worker", Type.COUNT, "descriptor rings (FIFOs) drained by each worker"),
    RINGS_PER_CONTEXT("rings_per_context", Type.COUNT, "descriptor rings of each communication context"),
    BATCH("batch", Type.COUNT, "most requests chained into one post (B)"),
    CHAINING("chaining", Type.WORD, "how a worker forms a chain", "adaptive"),
    PRODUCER("producer", Type.WORD, "who hands requests to the proxy", "cpu", "cuda");

    /** How a knob's value is written in a preset file and held in memory. */
    public enum Type {
        /** A positive integer. */
        COUNT,
        /** One of the knob's words. */
        WORD,
        /** An {@link Ordering} label. */
        ORDERING
    }

    private final String key;
    private final Type type;
    private final String meaning;
    private final List<String> words;

    Knob(String key, Type type, String meaning, String... words) {
        this.key = key;
        this.type = type;
        this.meaning = meaning;
        this.words = List.of(words);
    }

    /** The name in preset files and messages. */
    public String key() {
        return key;
    }

    public String meaning() {
        return meaning;
    }

    public static Knob byKey(String key) {
        return Arrays.stream(values()).filter(k -> k.key.equals(key)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown knob '" + key + "'; one of "
                        + String.join(", ", Arrays.stream(values()).map(Knob::key).toList())));
    }

    /** The typed value of a word from a preset file: Integer, String or Ordering. */
    public Object parse(String text) {
        switch (type) {
            case COUNT -> {
                int n;
                try {
                    n = Integer.parseInt(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(key + " must be a positive integer, not '" + text + "'");
                }
                if (n < 1) {
                    throw new IllegalArgumentException(key + " must be a positive integer, not " + n);
                }
                return n;
            }
            case WORD -> {
                if (!words.contains(text)) {
                    throw new IllegalArgumentException(key + " must be one of " + String.join(", ", words)
                            + ", not '" + text + "'");
                }
                return text;
            }
            default -> {
                return Arrays.stream(Ordering.values()).filter(o -> o.label().equals(text)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("unknown ordering '" + text + "'"));
            }
        }
    }

    /** The value as a preset file and a record write it. */
    public static String format(Object value) {
        return value instanceof Ordering o ? o.label() : String.valueOf(value);
    }
}
