// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.internal.ffi.CudaFfi;
import dev.marrow.internal.loader.NativeLoader;
import dev.marrow.mlx5.Mlx5Device;
import dev.marrow.preflight.Finding;
import dev.marrow.preflight.Host;
import dev.marrow.preflight.Preflight;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** Why GPU-initiated RDMA will or will not work here: docs/design/preflight.md. */
@Command(name = "preflight", mixinStandardHelpOptions = true,
        description = {"Checks this node for GPU-initiated RDMA before a run: GPU and driver, peer mapping of the "
                + "NIC doorbell (PeerMappingOverride), nvidia_peermem or dma-buf, DevX, the memlock limit, the "
                + "GPU-NIC PCIe path and NUMA node (and the NIC Marrow picks), link layer/MTU/RoCE v2 GID, "
                + "priority/DSCP/ECN, CPU governor and turbo, GPU clocks (read only) and IOMMU/ACS.",
                "Each check prints ok, warn or fail with a one-line fix; nothing is changed. Exit 1 when a check "
                        + "fails, 0 otherwise."})
public final class PreflightCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--root", defaultValue = "/", paramLabel = "DIR", description = "Read sysfs/procfs under DIR "
            + "instead of / (a copied tree); with a DIR other than / nvidia-smi and the DevX probe are not run. "
            + "Default: ${DEFAULT-VALUE}")
    Path root;

    @Option(names = "--format", defaultValue = "table", description = "table or json. Default: ${DEFAULT-VALUE}")
    String format;

    @Override
    public Integer call() {
        if (!format.equals("table") && !format.equals("json")) {
            throw new IllegalArgumentException("--format must be table or json, not '" + format + "'");
        }
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("--root " + root + " is not a directory");
        }
        return report(host(root), format, spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** Prints the findings and returns the exit code; doctor --deep shares it. */
    static int report(Host h, String format, PrintWriter out, PrintWriter err) {
        List<Finding> findings = Preflight.run(h);
        if (format.equals("json")) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (Finding f : findings) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("check", f.check());
                m.put("status", f.status().label());
                m.put("detail", f.detail());
                m.put("fix", f.fix());
                rows.add(m);
            }
            out.println(JsonMapper.builder().build().writeValueAsString(Map.of("preflight", rows)));
        } else {
            out.println("marrow preflight (root " + h.root() + ")");
            for (Finding f : findings) {
                out.printf("  %-4s  %-23s %s%n", f.status().label(), f.check(), f.detail());
                if (!f.fix().isEmpty()) {
                    out.printf("  %-4s  %-23s fix: %s%n", "", "", f.fix());
                }
            }
            long warn = findings.stream().filter(f -> f.status() == Finding.Status.WARN).count();
            out.printf("%d ok, %d warn, %d fail%n", findings.size() - warn - Preflight.failures(findings), warn,
                    Preflight.failures(findings));
        }
        out.flush();
        long failed = Preflight.failures(findings);
        if (failed == 0) {
            return ExitCodes.OK;
        }
        err.println("marrow: preflight: " + failed + " check(s) failed: " + String.join(", ", findings.stream()
                .filter(f -> f.status() == Finding.Status.FAIL).map(Finding::check).toList()));
        err.flush();
        return ExitCodes.FAILED;
    }

    /** The real machine at "/": nvidia-smi and the native probes too; any other root: the tree only. */
    static Host host(Path root) {
        if (!root.toAbsolutePath().normalize().toString().equals("/")) {
            return Host.tree(root);
        }
        Optional<Function<String, String>> devx = NativeLoader.manifest().has("verbs")
                ? Optional.of(PreflightCommand::devxWhy) : Optional.empty();
        return new Host(root, PreflightCommand::readOnly, devx, PreflightCommand::cudaGpu0);
    }

    /** Null when a DevX context opens on the device, else why not. */
    static String devxWhy(String device) {
        try (Mlx5Device d = Mlx5Device.open(device, 1, -1)) {
            d.requireDevx();
            return null;
        } catch (RuntimeException e) {
            return e.getMessage() == null ? e.toString() : e.getMessage();
        }
    }

    static Optional<String> cudaGpu0() {
        try {
            if (!Backend.CUDA.isAvailable()) {
                return Optional.empty();
            }
            for (CudaFfi.Gpu g : CudaFfi.gpus()) {
                if (g.ordinal() == 0) {
                    String s = g.pciBusId().strip().toLowerCase(Locale.ROOT);
                    return Optional.of(s.matches("[0-9a-f]{8}:.*") ? s.substring(4) : s);
                }
            }
        } catch (RuntimeException e) { // no CUDA after all: the lowest bus id stands in
            return Optional.empty();
        }
        return Optional.empty();
    }

    /** Runs a read-only query (nvidia-smi) for at most 10 s; empty when it is missing or fails. */
    static Optional<String> readOnly(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            byte[] b = p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            return p.exitValue() == 0 ? Optional.of(new String(b, StandardCharsets.UTF_8)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
