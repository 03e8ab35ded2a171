// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Locks the SM clock with `nvidia-smi -i DEV -lgc F,F` and restores it with
 * `nvidia-smi -i DEV -rgc` (back to the driver's default policy, whatever
 * lock was set before the sweep). Both need root; each call is bounded.
 */
public final class NvidiaSmiClockController implements ClockController {
    static final long COMMAND_TIMEOUT_S = 30;

    private final int device;
    private final Path nvidiaSmi;
    private final LongSupplier effectiveUid;

    NvidiaSmiClockController(int device, Path nvidiaSmi, LongSupplier effectiveUid) {
        this.device = device;
        this.nvidiaSmi = nvidiaSmi;
        this.effectiveUid = effectiveUid;
    }

    /** nvidia-smi from PATH (null path when absent: checkCanLock says so), the uid of this process. */
    public static NvidiaSmiClockController forDevice(int device) {
        return new NvidiaSmiClockController(device, onPath("nvidia-smi"), NvidiaSmiClockController::procEuid);
    }

    static Path onPath(String exe) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, exe);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** The effective uid from /proc/self/status; -1 when it cannot be read. */
    static long procEuid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    @Override
    public void checkCanLock() {
        if (nvidiaSmi == null || !Files.isExecutable(nvidiaSmi)) {
            throw new ClockControlException("cannot lock the SM clock: nvidia-smi not found"
                    + (nvidiaSmi == null ? " on PATH" : " at " + nvidiaSmi));
        }
        long uid = effectiveUid.getAsLong();
        if (uid != 0) {
            throw new ClockControlException("cannot lock the SM clock: nvidia-smi -lgc needs root (effective uid "
                    + (uid < 0 ? "unknown" : uid) + ")");
        }
    }

    @Override
    public void lock(int mhz) {
        if (mhz <= 0) {
            throw new IllegalArgumentException("clock " + mhz + " MHz");
        }
        run("-lgc", mhz + "," + mhz);
    }

    @Override
    public void restore() {
        run("-rgc");
    }

    @Override
    public String describe() {
        return "nvidia-smi -i " + device + " (-lgc F,F / -rgc)";
    }

    private void run(String... args) {
        List<String> cmd = new ArrayList<>(List.of(String.valueOf(nvidiaSmi), "-i", String.valueOf(device)));
        cmd.addAll(List.of(args));
        String words = String.join(" ", cmd);
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!p.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new ClockControlException("`" + words + "` did not finish within " + COMMAND_TIMEOUT_S + " s");
            }
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0) {
                throw new ClockControlException("`" + words + "` failed (exit " + p.exitValue() + "): " + text);
            }
        } catch (IOException e) {
            throw new ClockControlException("`" + words + "` could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClockControlException("interrupted while running `" + words + "`", e);
        }
    }
}
