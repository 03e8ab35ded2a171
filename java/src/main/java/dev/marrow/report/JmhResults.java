// SPDX-License-Identifier: Apache-2.0
package dev.marrow.report;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A JMH result file ({@code -rf json}: one JSON array, one object per benchmark and parameter set) as a
 * {@link ResultFile} of experiment "jmh": one record per element, its parameters as columns, the primary
 * score under a name carrying its unit ({@code ops_per_s}, {@code ns_per_op}) with JMH's 99.9 %
 * confidence half-width beside it ({@code ..._ci999}). The provenance block that bench/'s BenchMain
 * writes into every element ("marrow": git SHA, label, hardware, the environment) becomes the header's
 * environment and each record's {@code hardware}, {@code nic}, {@code label} and {@code git_sha}; a file
 * without it keeps no such field, so the report shows it as of unknown provenance, never as hardware.
 */
final class JmhResults {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private JmhResults() {
    }

    /** Whether the file is a JSON array (JMH's format) rather than JSON lines: its first non-blank line opens one. */
    static boolean isJmh(List<String> lines) {
        return lines.stream().filter(l -> !l.isBlank()).findFirst().map(l -> l.stripLeading().startsWith("["))
                .orElse(false);
    }

    @SuppressWarnings("unchecked")
    static ResultFile read(Path path, String text) {
        List<Object> elements;
        try {
            elements = JSON.readValue(text, List.class);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(path + ": not a JMH result file (" + e.getOriginalMessage() + ")", e);
        }
        Map<String, Object> env = new LinkedHashMap<>();
        List<Map<String, Object>> records = new ArrayList<>();
        for (Object o : elements) {
            if (!(o instanceof Map<?, ?> e) || !(e.get("benchmark") instanceof String name)
                    || !(e.get("primaryMetric") instanceof Map<?, ?> pm)) {
                throw new IllegalArgumentException(path + ": element " + (records.size() + 1)
                        + " is not a JMH result (no benchmark and primaryMetric)");
            }
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("record", "result");
            r.put("experiment", "jmh");
            r.put("benchmark", shortName(name));
            r.put("mode", e.get("mode"));
            if (e.get("params") instanceof Map<?, ?> params) {
                params.forEach((k, v) -> r.put(String.valueOf(k), v));
            }
            String metric = metricName(String.valueOf(pm.get("scoreUnit")));
            r.put(metric, pm.get("score"));
            r.put(metric + "_ci999", pm.get("scoreError"));
            r.put("forks", e.get("forks"));
            r.put("threads", e.get("threads"));
            if (e.get("marrow") instanceof Map<?, ?> m) {
                for (String k : new String[] {"hardware", "nic", "label", "git_sha", "git_dirty"}) {
                    if (m.containsKey(k)) {
                        r.put(k, m.get(k));
                    }
                }
                if (env.isEmpty() && m.get("env") instanceof Map<?, ?> en) {
                    env.putAll((Map<String, Object>) en);
                }
            }
            records.add(r);
        }
        if (records.isEmpty()) {
            throw new IllegalArgumentException(path + ": no JMH results (an empty array)");
        }
        return new ResultFile(path, env, records);
    }

    /** "dev.marrow.bench.SoftNicRateBenchmark.inline8" -> "SoftNicRate.inline8". */
    static String shortName(String benchmark) {
        String[] p = benchmark.split("\\.");
        if (p.length < 2) {
            return benchmark;
        }
        return p[p.length - 2].replaceFirst("Benchmark$", "") + "." + p[p.length - 1];
    }

    /** "ops/s" -> "ops_per_s", "ns/op" -> "ns_per_op": the column names its unit. */
    static String metricName(String unit) {
        return unit.toLowerCase(Locale.ROOT).replace("/", "_per_").replaceAll("[^a-z0-9_]+", "_");
    }
}
