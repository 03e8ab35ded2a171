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
import java.util.Map;

/**
 * The environment block of a result header: who, where and with what the
 * numbers were produced. Every probe is best effort; a missing value is
 * recorded as "unknown", never guessed.
 */
public final class Environment {
    private Environment() {
    }

    public static Map<String, Object> capture() {
        return capture(java.util.List.of());
    }

    /**
     * As {@link #capture()}, with the command line that produced the records
     * (argv, as nccl-tests records it) after start_time; the end time is in
     * the footer record (docs/design/records.md).
     */
    public static Map<String, Object> capture(java.util.List<String> argv) {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("marrow_version", version());
        provenance(env);
        env.put("start_time", Instant.now().toString());
        if (!argv.isEmpty()) {
            env.put("argv", argv);
        }
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
        env.put("nvidia_driver_version", nvidiaDriverVersion(Path.of("/")));
        gpus(env);
        return env;
    }

    /**
     * The NVIDIA kernel driver's version ("550.54.15"), from the loaded
     * module (sys/module/nvidia/version) or the driver's banner
     * (proc/driver/nvidia/version: "NVRM version: NVIDIA UNIX ... Kernel
     * Module  550.54.15  ...") under root; null where no NVIDIA driver is
     * loaded. Not the CUDA driver API version, which the GPU probe records.
     */
    static String nvidiaDriverVersion(Path root) {
        String v = readTrim(root.resolve("sys/module/nvidia/version").toString());
        if (!v.equals("unknown") && v.matches("[0-9][0-9.]*")) {
            return v;
        }
        String banner = readTrim(root.resolve("proc/driver/nvidia/version").toString());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Kernel Module(?: for [^ ]+)?\\s+([0-9][0-9.]+)")
                .matcher(banner);
        return m.find() ? m.group(1) : null;
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

    /**
     * git_sha and git_dirty of the build that produced the running code, as
     * scripts/build-native.sh recorded them in native-manifest.properties:
     * never the working directory's repository, which may be any other one.
     */
    static void provenance(Map<String, Object> env) {
        try {
            NativeManifest m = NativeLoader.manifest();
            env.put("git_sha", m.gitSha());
            env.put("git_dirty", switch (m.gitDirty()) {
                case "true" -> true;
                case "false" -> false;
                default -> "unknown";
            });
        } catch (RuntimeException e) {
            env.put("git_sha", "unknown");
            env.put("git_dirty", "unknown");
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
