// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

/**
 * Every run ends in bounded time (docs/design/cli-errors.md): work a run could
 * not finish in bounded time is refused up front, and without --max-seconds a
 * run still has a deadline scaled to its points. The deadline is the one
 * --max-seconds sets ({@link RunOptions}: no new point or repeat starts after
 * it, native waits are capped by what is left), so a run it cuts is marked
 * truncated=true and says which bound cut it.
 */
final class RunBounds {
    private RunBounds() {
    }

    /** The default deadline per point (or per repeat of one); stated in each bounded command's help. */
    static final int DEFAULT_SECONDS_PER_POINT = 120;

    /** Help text of the default, one sentence. */
    static final String HELP = "Bounded: without --max-seconds no new point or repeat starts after "
            + DEFAULT_SECONDS_PER_POINT + " s x points; a run cut so is truncated=true, one with no record exits 1.";

    /**
     * Bytes one run may copy (payload x messages): at the emulator's few GB/s a run of more would not
     * end in minutes (--size 1 MiB x 5,000,000 messages is 5 TB).
     */
    static final long MAX_BYTES_PER_RUN = 64L << 30;

    /**
     * Buffer memory one run may allocate: a quarter of the physical memory, at most 16 GiB (a
     * --size of 1 MiB over 32 rings of 1024 slots asked for 64 GiB and died in OutOfMemoryError).
     */
    static long maxBufferBytes() {
        long phys = physicalMemoryBytes();
        return phys > 0 ? Math.min(16L << 30, phys / 4) : 16L << 30;
    }

    /**
     * MemTotal of /proc/meminfo, 0 when unreadable. Not com.sun.management: the jlinked runtime of
     * the GPU machine has no jdk.management module, and every gda latency there died in
     * NoClassDefFoundError before this read the file.
     */
    static long physicalMemoryBytes() {
        long total;
        try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/meminfo"))) {
            total = lines.filter(l -> l.startsWith("MemTotal:")).findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).orElse(0L);
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
        try { // a cgroup v2 limit (a container, a Slurm job) is the memory this run really has
            String max = java.nio.file.Files.readString(java.nio.file.Path.of("/sys/fs/cgroup/memory.max")).strip();
            return max.equals("max") ? total : Math.min(total, Long.parseLong(max));
        } catch (java.io.IOException | RuntimeException e) {
            return total;
        }
    }

    /**
     * Sets the default deadline when --max-seconds is not given (points: points x repeats the run may
     * start) and returns what bounds the run, in words, for the messages of a cut run.
     */
    static String applyDefault(OutputOptions out, long points) {
        return applyDefault(out, points, DEFAULT_SECONDS_PER_POINT);
    }

    /**
     * The default deadline per DSM experiment: one experiment is a sweep of sizes x --reps launches
     * (E9 all pairs, E7 ring scaling: many series), so its point is the experiment.
     */
    static final int DSM_SECONDS_PER_EXPERIMENT = 600;

    /** As {@link #applyDefault(OutputOptions, long)} with secondsPerPoint per point. */
    static String applyDefault(OutputOptions out, long points, int secondsPerPoint) {
        if (out.run.maxSeconds != null) {
            if (!(out.run.maxSeconds > 0)) { // RunOptions says the same later; before any warning or set-up here
                throw new IllegalArgumentException("--max-seconds must be > 0, not " + out.run.maxSeconds);
            }
            return "--max-seconds";
        }
        double s = (double) secondsPerPoint * Math.max(1, points);
        out.run.maxSeconds = s;
        return "the default bound of " + (long) s + " s (" + secondsPerPoint + " s x " + Math.max(1, points)
                + " point(s); --max-seconds sets another)";
    }

    /** size x count bytes must stay within {@link #MAX_BYTES_PER_RUN}: else a usage error naming both flags. */
    static void requireBytes(String sizeFlag, long size, String countFlag, long count) {
        if (size > 0 && count > 0 && size > MAX_BYTES_PER_RUN / count) {
            throw new IllegalArgumentException(sizeFlag + " " + size + " x " + countFlag + " " + count + " = "
                    + human((double) size * count) + " copied per run, more than the " + human(MAX_BYTES_PER_RUN)
                    + " a run may copy: at " + sizeFlag + " " + size + ", " + countFlag + " must be 1.."
                    + Math.max(1, MAX_BYTES_PER_RUN / size) + " (or lower " + sizeFlag + ")");
        }
    }

    private static String human(double bytes) {
        String[] u = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int i = 0;
        while (bytes >= 1024 && i < u.length - 1) {
            bytes /= 1024;
            i++;
        }
        return (bytes == Math.rint(bytes) ? String.valueOf((long) bytes) : String.format("%.1f", bytes)) + " " + u[i];
    }
}
