// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import dev.marrow.internal.loader.NativeLoader;
import dev.marrow.internal.loader.NativeManifest;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The environment block of a result header: who, where and with what the
 * numbers were produced. Every probe is best effort; a missing value is
 * recorded as "unknown", never guessed.
 */
public final class Environment {
    private Environment() {
    }

    private static final List<Supplier<Map<String, Object>>> EXTRA = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Lets a backend (e.g. CUDA) contribute fields such as GPU name and clocks. */
    public static void addContributor(Supplier<Map<String, Object>> s) {
        EXTRA.add(s);
    }

    public static Map<String, Object> capture() {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("marrow_version", version());
        env.put("git_sha", gitSha());
        env.put("start_time", Instant.now().toString());
        env.put("host", hostName());
        env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        env.put("cpu_model", cpuModel());
        env.put("cpu_count", Runtime.getRuntime().availableProcessors());
        env.put("cpu0_governor", readTrim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
        env.put("cpu0_cur_khz", readTrim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"));
        env.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        try {
            NativeManifest m = NativeLoader.manifest();
            env.put("native_components", String.join(",", m.components()));
            env.put("native_git_sha", m.gitSha());
            env.put("rdma_core", m.rdmaCore());
            env.put("nvcc", m.nvcc().isEmpty() ? "none" : m.nvcc());
        } catch (RuntimeException e) {
            env.put("native_components", "unavailable: " + e.getMessage());
        }
        gpus(env);
        for (Supplier<Map<String, Object>> s : EXTRA) {
            try {
                env.putAll(s.get());
            } catch (RuntimeException e) {
                // a contributor that fails says nothing rather than something wrong
            }
        }
        return env;
    }

    /** GPU name, SM count and maximum clocks where a GPU is usable; current clocks come from the run itself. */
    static void gpus(Map<String, Object> env) {
        if (!dev.marrow.api.Backend.CUDA.isAvailable()) {
            env.put("gpu", "none (" + dev.marrow.api.Backend.CUDA.unavailabilityCause().getMessage() + ")");
            return;
        }
        try {
            env.putAll(dev.marrow.internal.ffi.CudaFfi.versions());
            for (dev.marrow.internal.ffi.CudaFfi.Gpu g : dev.marrow.internal.ffi.CudaFfi.gpus()) {
                String p = "gpu" + g.ordinal() + "_";
                env.put(p + "name", g.name());
                env.put(p + "uuid", g.uuid());
                env.put(p + "pci_bus_id", g.pciBusId());
                env.put(p + "sm", g.ccMajor() + "." + g.ccMinor());
                env.put(p + "sm_count", g.smCount());
                env.put(p + "max_sm_clock_khz", g.clockKhz());
                env.put(p + "max_mem_clock_khz", g.memClockKhz());
            }
        } catch (RuntimeException e) {
            env.put("gpu", "query failed: " + e.getMessage());
        }
    }

    public static String version() {
        String v = Environment.class.getPackage().getImplementationVersion();
        return v != null ? v : "0.1.0-SNAPSHOT";
    }

    static String gitSha() {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short=12", "HEAD").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            if (p.waitFor() == 0 && out.matches("[0-9a-f]{7,40}")) {
                Process d = new ProcessBuilder("git", "status", "--porcelain", "--untracked-files=no")
                        .redirectErrorStream(true).start();
                String dirty = new String(d.getInputStream().readAllBytes()).trim();
                d.waitFor();
                return dirty.isEmpty() ? out : out + "-dirty";
            }
        } catch (IOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            return NativeLoader.manifest().gitSha();
        } catch (RuntimeException e) {
            return "unknown";
        }
    }

    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }

    public static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name") || line.startsWith("Model")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // fall through
        }
        return "unknown";
    }

    static String readTrim(String path) {
        try {
            return Files.readString(Path.of(path)).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
