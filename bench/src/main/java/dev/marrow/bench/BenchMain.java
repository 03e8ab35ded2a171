// SPDX-License-Identifier: Apache-2.0
package dev.marrow.bench;

import dev.marrow.results.Environment;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark jar's entry point: JMH's own command line, unchanged, and then, when the run wrote a
 * JSON result file ({@code -rf json}), a provenance block in every result ("marrow": the build's git SHA
 * and dirty flag, {@code hardware: false}, the NIC, the label EMULATED or HOST, and the environment a
 * CLI result header carries), so that a JMH number read later says what produced it. `marrow report`
 * reads these files (dev.marrow.report.JmhResults).
 */
public final class BenchMain {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        Path result = null;
        try {
            CommandLineOptions o = new CommandLineOptions(args);
            if (o.getResultFormat().orElse(null) == ResultFormatType.JSON) {
                result = Path.of(o.getResult().orElse("jmh-result.json"));
            }
        } catch (CommandLineOptionException e) {
            // JMH's Main reports the bad option and exits
        }
        long started = System.currentTimeMillis();
        // Returns after a successful run; on a failed one JMH's Main exits non-zero itself.
        org.openjdk.jmh.Main.main(args);
        if (result != null && Files.isRegularFile(result)
                && Files.getLastModifiedTime(result).toMillis() >= started - 1000) {
            int n = stamp(result, List.of(args));
            System.out.println("# marrow: " + n + " result(s) in " + result + " stamped with the git SHA and label");
        }
    }

    /** Adds the "marrow" block to every element of a JMH JSON result file; returns how many. */
    @SuppressWarnings("unchecked")
    static int stamp(Path file, List<String> argv) throws IOException {
        List<Object> results = JSON.readValue(Files.readString(file), List.class);
        Map<String, Object> env = Environment.capture(argv);
        for (Object o : results) {
            Map<String, Object> r = (Map<String, Object>) o;
            boolean emulated = emulated(String.valueOf(r.get("benchmark")));
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("git_sha", env.get("git_sha"));
            m.put("git_dirty", env.get("git_dirty"));
            // No NIC or GPU hardware is in any of these loops: the software NIC, or host code alone.
            m.put("hardware", false);
            m.put("nic", emulated ? "softnic" : "none");
            m.put("label", emulated ? "EMULATED" : "HOST");
            m.put("env", env);
            r.put("marrow", m);
        }
        Files.writeString(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(results));
        return results.size();
    }

    /** Whether the benchmark's class ("pkg.Class.method") carries {@link EmulatedNic}. */
    static boolean emulated(String benchmark) {
        int dot = benchmark.lastIndexOf('.');
        try {
            return dot > 0 && Class.forName(benchmark.substring(0, dot)).isAnnotationPresent(EmulatedNic.class);
        } catch (ClassNotFoundException e) {
            return true; // unknown: never claim there was no emulated NIC
        }
    }
}
