// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every experiment over every fabric this machine has, at small counts, through the CLI: the run
 * exits 0 and every result record names its experiment, the fabric's NIC (where the record
 * carries one) and is valid. A fabric that is missing here, or a pairing the experiment does not
 * have, is skipped with the reason (a JUnit assumption), so the software NIC runs everywhere and
 * the device engine and mlx5 where their hardware is.
 */
class EveryFabricExperimentTest {

    /** A fabric as the commands name it: the gda --nic/--placement words, the proxy's --nic word. */
    enum Fabric {
        SOFTNIC("softnic"), SOFTNIC_DEVICE("softnic-device"), MLX5("mlx5");

        final String label;

        Fabric(String label) {
            this.label = label;
        }

        /** Why this machine cannot run the fabric; null when it can. */
        String missing() {
            return switch (this) {
                case SOFTNIC -> cause(Backend.SOFTNIC);
                case SOFTNIC_DEVICE -> cause(Backend.CUDA);
                case MLX5 -> cause(Backend.VERBS) != null ? cause(Backend.VERBS) : cause(Backend.CUDA);
            };
        }

        private static String cause(Backend b) {
            return b.isAvailable() ? null : b.displayName() + ": " + b.unavailabilityCause().getMessage();
        }
    }

    /**
     * One experiment: its record name and its arguments on a fabric (null: the pairing does not
     * exist, with the reason in {@link #absent}).
     */
    record Experiment(String name, String record, java.util.function.Function<Fabric, List<String>> args,
                      java.util.function.Function<Fabric, String> absent) {
    }

    /** The gda target and queue placement of a fabric (the CPU runs only on the software NIC's host queues). */
    static List<String> gdaNic(Fabric f) {
        return switch (f) {
            case SOFTNIC -> List.of("--nic", "softnic", "--target", "cpu");
            case SOFTNIC_DEVICE -> List.of("--nic", "softnic", "--placement", "gpu", "--target", "cuda");
            case MLX5 -> List.of("--nic", "mlx5", "--target", "cuda");
        };
    }

    static List<String> cat(List<String> a, String... b) {
        List<String> l = new ArrayList<>(a);
        l.addAll(List.of(b));
        return l;
    }

    static final String PROXY_HOST = "the proxy's CPU workers post to host-resident queues";

    static final String HOST_ONLY = "runs on host-resident queues only (no device-engine queue set)";

    static final List<Experiment> EXPERIMENTS = List.of(
            new Experiment("gda latency", "gda.latency", f -> cat(List.of("gda", "latency"), "--iters", "30",
                    "--warmup", "3"), f -> null),
            new Experiment("gda rate", "gda.rate", f -> cat(List.of("gda", "rate", "--nic", f.label, "--target",
                    f == Fabric.SOFTNIC ? "cpu" : "cuda"), "--messages", "256", "--warmup", "16"), f -> null),
            new Experiment("gda scope", "gda.scope", f -> cat(List.of("gda", "rate", "--nic", f.label, "--target",
                    f == Fabric.SOFTNIC ? "cpu" : "cuda"), "--experiment", "scope", "--messages", "64", "--warmup",
                    "8"), f -> null),
            new Experiment("gda loaded", "gda.loaded", f -> cat(List.of("gda", "loaded"), "--background", "1",
                    "--queue", "reserved", "--iters", "30", "--warmup", "3"),
                    f -> f == Fabric.SOFTNIC_DEVICE ? HOST_ONLY : null),
            new Experiment("gda goodput", "gda.goodput", f -> cat(List.of("gda", "goodput"), "--sizes", "64",
                    "--bytes-per-point", "65536", "--warmup", "8"), f -> f == Fabric.SOFTNIC_DEVICE ? HOST_ONLY : null),
            new Experiment("gda goodput --single-op", "gda.latency", f -> cat(List.of("gda", "goodput"), "--single-op",
                    "--sizes", "64", "--iters", "30", "--warmup", "3"),
                    f -> f == Fabric.SOFTNIC_DEVICE ? HOST_ONLY : null),
            new Experiment("gda timer-check", "gda.timer-check", f -> cat(List.of("gda", "timer-check"), "--iters",
                    "30", "--warmup", "5", "--delay-us", "20", "--tolerance-us", "1000000"),
                    f -> f == Fabric.SOFTNIC ? null : "timer-check takes --target only (the software NIC's pair)"),
            new Experiment("kernel-cost", "kernel-cost", f -> List.of("kernel-cost", "--nic", f.label, "--transport", "gda",
                    "--arms", "send", "--msgs", "1", "--sizes", "8", "--live", "0", "--launches", "2", "--warmup",
                    "1"), f -> f == Fabric.SOFTNIC_DEVICE ? HOST_ONLY : cudaMissing()),
            new Experiment("proxy latency", "proxy.latency", f -> List.of("proxy", "latency", "--nic", proxyNic(f),
                    "--iters", "30", "--warmup", "3"), f -> f == Fabric.SOFTNIC_DEVICE ? PROXY_HOST : null),
            new Experiment("proxy rate", "proxy.rate", f -> List.of("proxy", "rate", "--nic", proxyNic(f),
                    "--messages", "2000", "--warmup", "100"), f -> f == Fabric.SOFTNIC_DEVICE ? PROXY_HOST : null),
            new Experiment("proxy loaded", "proxy.loaded", f -> List.of("proxy", "loaded", "--nic", proxyNic(f),
                    "--background", "1", "--iters", "30", "--warmup", "3"),
                    f -> f == Fabric.SOFTNIC_DEVICE ? PROXY_HOST : null),
            new Experiment("proxy goodput", "proxy.goodput", f -> List.of("proxy", "goodput", "--nic", proxyNic(f),
                    "--sizes", "64", "--bytes-per-point", "65536"), f -> f == Fabric.SOFTNIC_DEVICE ? PROXY_HOST : null));

    static String proxyNic(Fabric f) {
        return f == Fabric.MLX5 ? "verbs" : "softnic";
    }

    static String cudaMissing() {
        return Backend.CUDA.isAvailable() ? null : "kernel-cost needs a GPU: " + Backend.CUDA.unavailabilityCause()
                .getMessage();
    }

    /** gda commands that take --nic/--target/--placement from {@link #gdaNic}. */
    static List<String> withFabric(Experiment e, Fabric f) {
        List<String> a = new ArrayList<>(e.args().apply(f));
        boolean gdaNicFlags = a.get(0).equals("gda") && !a.get(1).equals("rate")
                && !a.get(1).equals("timer-check");
        if (gdaNicFlags) {
            a.addAll(2, gdaNic(f));
        }
        if (a.get(1).equals("timer-check")) {
            a.addAll(2, List.of("--target", "cpu"));
        }
        a.addAll(List.of("--format", "json", "--quiet"));
        return a;
    }

    @TestFactory
    Stream<DynamicTest> everyExperimentOnEveryFabric() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Fabric f : Fabric.values()) {
            for (Experiment e : EXPERIMENTS) {
                tests.add(DynamicTest.dynamicTest(e.name() + " on " + f.label, () -> {
                    String missing = f.missing();
                    assumeTrue(missing == null, "no " + f.label + " here: " + missing);
                    String absent = e.absent().apply(f);
                    assumeTrue(absent == null, e.name() + " on " + f.label + ": " + absent);
                    List<String> argv = withFabric(e, f);
                    List<JsonNode> recs = GoodputLoadedCliTest.records(CliTest.run(argv.toArray(String[]::new)));
                    assertFalse(recs.isEmpty(), argv + " wrote no record");
                    assertTrue(recs.stream().anyMatch(n -> n.get("experiment").asString().startsWith(e.record())),
                            argv + ": no " + e.record() + " record");
                    String suite = e.record().split("\\.")[0];
                    for (JsonNode n : recs) {
                        String exp = n.get("experiment").asString();
                        assertTrue(exp.startsWith(suite), argv + ": experiment " + exp + " is not of " + suite);
                        if (exp.endsWith(".summary")) {
                            continue;
                        }
                        JsonNode valid = n.get("valid");
                        assertTrue(valid == null || valid.asBoolean(), argv + ": invalid record " + n);
                        JsonNode nic = n.get("nic");
                        if (nic != null && !nic.asString().equals("none") && e.record().startsWith("gda")) {
                            assertEquals(f.label, nic.asString(), argv + ": " + n);
                        }
                        JsonNode hw = n.get("hardware");
                        boolean sends = nic == null || !nic.asString().equals("none");
                        if (sends && f != Fabric.MLX5) { // an emulated NIC is never reported as hardware
                            assertTrue(hw != null && !hw.asBoolean(), argv + ": hardware " + hw + " in " + n);
                        }
                    }
                }));
            }
        }
        return tests.stream();
    }
}
