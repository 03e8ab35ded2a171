// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.internal.ffi.CudaFfi;
import dev.marrow.internal.ffi.VerbsFfi;
import dev.marrow.internal.loader.NativeLoader;
import dev.marrow.internal.loader.NativeManifest;
import dev.marrow.results.Environment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.json.JsonMapper;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** What this machine can run, and why not where it can't. */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = "List every backend with its availability (and the reason when unavailable), GPUs, NICs, "
                + "driver/CUDA/rdma-core versions and the CPU.")
public final class DoctorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--format", defaultValue = "table", description = "table or json. Default: ${DEFAULT-VALUE}")
    String format;

    @Option(names = "--deep", description = "Then run preflight's checks (marrow preflight); exit 1 when one fails")
    boolean deep;

    @Override
    public Integer call() {
        if (!format.equals("table") && !format.equals("json")) {
            throw new IllegalArgumentException("--format must be table or json, not '" + format + "'");
        }
        Map<String, Object> report = collect();
        PrintWriter out = spec.commandLine().getOut();
        if (format.equals("json")) {
            out.println(JsonMapper.builder().build().writeValueAsString(report));
        } else {
            printTable(report, out);
        }
        out.flush();
        return deep ? PreflightCommand.report(PreflightCommand.host(java.nio.file.Path.of("/")), format, out,
                spec.commandLine().getErr()) : ExitCodes.OK;
    }

    @SuppressWarnings("unchecked")
    static void printTable(Map<String, Object> report, PrintWriter out) {
        out.println("marrow doctor");
        Map<String, Object> backends = (Map<String, Object>) report.get("backends");
        out.println("backends:");
        backends.forEach((name, v) -> {
            Map<String, Object> b = (Map<String, Object>) v;
            boolean ok = (Boolean) b.get("available");
            out.printf("  %-8s %-12s %s%n", name, ok ? "available" : "UNAVAILABLE",
                    ok ? (Boolean) b.get("hardware") ? "" : "(software emulator: results are labelled emulated)"
                            : "cause: " + b.get("cause"));
        });
        for (String section : new String[] {"gpus", "nics", "versions", "host", "native"}) {
            Object v = report.get(section);
            out.println(section + ":");
            if (v instanceof Map<?, ?> m) {
                if (m.isEmpty()) {
                    out.println("  (none)");
                }
                m.forEach((k, x) -> out.printf("  %-20s %s%n", k, x));
            }
        }
    }

    public static Map<String, Object> collect() {
        Map<String, Object> r = new LinkedHashMap<>();
        Map<String, Object> backends = new LinkedHashMap<>();
        for (Backend b : Backend.values()) {
            Map<String, Object> e = new LinkedHashMap<>();
            Throwable cause = b.unavailabilityCause();
            e.put("available", cause == null);
            e.put("hardware", b.isHardware());
            if (cause != null) {
                e.put("cause", cause.getMessage() == null ? cause.toString() : cause.getMessage());
            }
            backends.put(b.displayName(), e);
        }
        r.put("backends", backends);

        Map<String, Object> gpus = new LinkedHashMap<>();
        Map<String, Object> versions = new LinkedHashMap<>();
        if (Backend.CUDA.isAvailable()) {
            for (CudaFfi.Gpu g : CudaFfi.gpus()) {
                gpus.put("gpu" + g.ordinal(), g.name() + " sm_" + g.ccMajor() + g.ccMinor() + ", " + g.smCount()
                        + " SMs, max SM clock " + g.clockKhz() / 1000 + " MHz, " + g.totalMemBytes() / (1L << 30)
                        + " GiB, pci " + g.pciBusId());
            }
        }
        if (NativeLoader.manifest().has("cuda")) {
            versions.putAll(CudaFfi.versions());
        } else {
            versions.put("cuda", "libmarrow_cuda.so not built");
        }
        Map<String, Object> nics = new LinkedHashMap<>();
        if (NativeLoader.manifest().has("verbs")) {
            Map<String, Object> v = VerbsFfi.probeInfo();
            v.forEach((k, x) -> {
                if (k.startsWith("nic")) {
                    nics.put(k, x);
                }
            });
            versions.put("rdma_core_libibverbs", v.get("libibverbs"));
            versions.put("rdma_core_libmlx5", v.get("libmlx5"));
        }
        versions.put("rdma_core_headers", NativeLoader.manifest().rdmaCore());
        versions.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        versions.put("marrow", Environment.version());
        r.put("gpus", gpus);
        r.put("nics", nics);
        r.put("versions", versions);

        Map<String, Object> host = new LinkedHashMap<>();
        host.put("cpu_model", Environment.cpuModel());
        host.put("cpus", Runtime.getRuntime().availableProcessors());
        host.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        r.put("host", host);

        Map<String, Object> nat = new LinkedHashMap<>();
        NativeManifest m = NativeLoader.manifest();
        nat.put("directory", NativeLoader.directory().toString());
        nat.put("built", String.join(",", m.components()));
        nat.put("build_summary", m.summary());
        nat.put("abi_version", m.abiVersion());
        r.put("native", nat);
        return r;
    }
}
