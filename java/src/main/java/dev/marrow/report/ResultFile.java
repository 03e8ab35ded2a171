// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One result file as written by {@code ResultWriter.json}: a header line with
 * the environment, then one line per record. Lines whose "record" is not
 * "result" (the header, anything newer) are kept out of {@link #records()}.
 * A line with no "record" at all but an "experiment" is a record too: the C
 * benches (e.g. softnic_device_rate) write bare records without a header.
 * A JMH result file (one JSON array) is read by JmhResults.
 */
public record ResultFile(Path path, Map<String, Object> env, List<Map<String, Object>> records) {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Reads a file; a line that is not a JSON object fails with its file and line number. */
    @SuppressWarnings("unchecked")
    public static ResultFile read(Path path) {
        Map<String, Object> env = new LinkedHashMap<>();
        List<Map<String, Object>> records = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(path);
        } catch (CharacterCodingException e) { // bad input, not an I/O failure
            throw new IllegalArgumentException(path + ": not a result file (not UTF-8 text)", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
        }
        if (JmhResults.isJmh(lines)) { // scripts/run-bench.sh's JMH output: one JSON array
            return JmhResults.read(path, String.join("\n", lines));
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> m;
            try {
                m = JSON.readValue(line, Map.class);
            } catch (JacksonException e) {
                throw new IllegalArgumentException(path + ":" + (i + 1) + ": not a result JSON line ("
                        + e.getOriginalMessage() + ")", e);
            }
            Object kind = m.get("record");
            if ("header".equals(kind) && m.get("env") instanceof Map<?, ?> e) {
                env = (Map<String, Object>) e;
            } else if ("result".equals(kind) || (kind == null && m.containsKey("experiment"))) {
                records.add(m);
            }
        }
        if (records.isEmpty()) {
            throw new IllegalArgumentException(path + ": no result records (expected `--format json` output)");
        }
        return new ResultFile(path, env, records);
    }

    /** The experiment of the file's records, or "mixed" when they disagree. */
    public String experiment() {
        String e = String.valueOf(records.getFirst().get("experiment"));
        for (Map<String, Object> r : records) {
            if (!e.equals(String.valueOf(r.get("experiment")))) {
                return "mixed";
            }
        }
        return e;
    }

    /** File name relative to the common parent of the report's inputs, for captions. */
    public String name() {
        return path.getFileName().toString();
    }
}
