// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric;

import dev.marrow.peer.PeerExchange;
import dev.marrow.peer.PeerExchangeException;
import dev.marrow.peer.PeerMessages;
import dev.marrow.results.Environment;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The ENV message of the peer exchange: each side sends its environment
 * header (host, CPU, GPUs, build) as JSON, so the initiator's result can
 * carry both sides' (docs/design/two-process.md §4). A header that does not
 * fit one frame loses its largest entries first, and says so.
 */
public final class PeerEnvironment {
    private PeerEnvironment() {
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Text bytes that fit one frame (4 KiB less header and slack). */
    static final int MAX_TEXT = 3800;

    /** Sends this process's header, returns the peer's. */
    public static Map<String, Object> exchange(PeerExchange x) {
        String theirs = x.exchangeText(PeerMessages.TYPE_ENV, encode(Environment.capture()), "environment header");
        return decode(theirs);
    }

    static String encode(Map<String, Object> env) {
        Map<String, Object> m = new LinkedHashMap<>(env);
        try {
            String s = JSON.writeValueAsString(m);
            while (s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_TEXT && !m.isEmpty()) {
                String largest = null;
                int size = -1;
                for (var e : m.entrySet()) {
                    int n = JSON.writeValueAsString(e.getValue()).length();
                    if (n > size && !e.getKey().equals("truncated")) {
                        size = n;
                        largest = e.getKey();
                    }
                }
                m.remove(largest);
                m.put("truncated", true);
                s = JSON.writeValueAsString(m);
            }
            return s;
        } catch (JacksonException e) {
            throw new IllegalStateException("environment header not serialisable: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> decode(String text) {
        try {
            Object o = JSON.readValue(text, Object.class);
            if (!(o instanceof Map<?, ?> m)) {
                throw new PeerExchangeException("peer ENV message is not a JSON object");
            }
            return (Map<String, Object>) m;
        } catch (JacksonException e) {
            throw new PeerExchangeException("peer ENV message is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }
}
