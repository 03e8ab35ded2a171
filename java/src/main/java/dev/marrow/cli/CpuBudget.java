// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.softnic.SoftNic;
import dev.marrow.results.ResultRecord;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * Busy-polling threads (producers, proxy workers, the software NIC engine,
 * responders) only measure the mechanism when each has a core. With more
 * spinners than cores the figures measure the OS scheduler instead
 * (milliseconds, not microseconds): say so on stderr and in the record, and
 * let the pollers back off (software NIC engine idle mode, proxy workers and
 * CPU producers yielding), so that such a run ends in seconds instead of
 * spinning against the scheduler for minutes.
 */
final class CpuBudget {
    private CpuBudget() {
    }

    /** CPUs this process may run on (the JVM reads the sched affinity mask and cgroup quota). */
    static int cpusAvailable() {
        return Runtime.getRuntime().availableProcessors();
    }

    static boolean oversubscribed(int spinningThreads) {
        return spinningThreads > cpusAvailable();
    }

    /** The 1-minute load average when this command checked its budget (/proc/loadavg), or -1 unknown. */
    private static volatile double startLoad = Double.NaN;

    /** /proc/loadavg's 1-minute figure now, or -1 where there is none. */
    static double loadavg1m() {
        try {
            String s = Files.readString(Path.of("/proc/loadavg")).strip();
            return Double.parseDouble(s.substring(0, s.indexOf(' ')));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static double load() {
        double l = startLoad;
        return Double.isNaN(l) ? loadavg1m() : l;
    }

    /**
     * Other work already keeps about loadavg_1m CPUs busy: with the spinners on top the host is
     * contended even when they alone would fit. A hint (the load average lags by a minute and
     * counts the whole host), recorded and warned about, never a reason to change the run.
     */
    static boolean contended(int spinningThreads) {
        double l = load();
        return l >= 0 && spinningThreads + l > cpusAvailable() + 0.5;
    }

    /** Warns once per command and tags the records; returns whether it is oversubscribed. */
    static boolean check(int spinningThreads, String who, PrintWriter err) {
        startLoad = loadavg1m();
        boolean over = oversubscribed(spinningThreads);
        if (over) {
            err.println("marrow: warning: " + spinningThreads + " busy-polling threads (" + who + ") on "
                    + cpusAvailable() + " CPUs: latencies will be dominated by "
                    + "OS time slicing; the pollers back off (poll_mode \"idle (oversubscribed)\"), and records carry "
                    + "cpu_oversubscribed=true");
            err.flush();
        } else if (contended(spinningThreads)) {
            err.println("marrow: warning: " + spinningThreads + " busy-polling threads (" + who + ") on "
                    + cpusAvailable() + " CPUs with a 1-minute load average of " + startLoad
                    + ": other processes compete for the cores, tails will show it (records carry cpu_contended=true)");
            err.flush();
        }
        return over;
    }

    /**
     * Warns like {@link #check} for a command whose pollers run as asked (they never back off, e.g.
     * softnic: the figure is the engine's own), so the warning says only that the figures suffer.
     */
    static void warn(int spinningThreads, String who, PrintWriter err) {
        startLoad = loadavg1m();
        if (oversubscribed(spinningThreads) || contended(spinningThreads)) {
            err.println("marrow: warning: " + spinningThreads + " busy-polling threads (" + who + ") on "
                    + cpusAvailable() + " CPUs (1-minute load " + (startLoad < 0 ? "unknown" : startLoad)
                    + "): latencies will be dominated by OS time slicing (records carry cpu_oversubscribed, "
                    + "cpu_contended)");
            err.flush();
        }
    }

    /** The CPU budget of a run, the same fields in every command's records (docs/design/cli-errors.md). */
    static void tag(ResultRecord r, int spinningThreads) {
        double l = load();
        r.param("spinning_threads", spinningThreads);
        r.param("cpus_available", cpusAvailable());
        r.param("loadavg_1m", l < 0 ? "unknown" : l);
        r.param("cpu_oversubscribed", oversubscribed(spinningThreads));
        r.param("cpu_contended", contended(spinningThreads));
    }

    /** The CPUs this process may be pinned to (Cpus_allowed_list of /proc/self/status), or null unknown. */
    static BitSet allowedCpus() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    BitSet set = new BitSet();
                    for (String part : line.substring(line.indexOf(':') + 1).strip().split(",")) {
                        String[] ab = part.strip().split("-");
                        int a = Integer.parseInt(ab[0]);
                        int b = ab.length > 1 ? Integer.parseInt(ab[1]) : a;
                        set.set(a, b + 1);
                    }
                    return set;
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }

    /**
     * A pinning flag's CPUs must be ones this process may run on (-1: not pinned), checked before
     * the run: the native pin would fail mid-run, or a record would claim a CPU never used.
     */
    static void checkCpus(String flag, int... cpus) {
        if (cpus == null) {
            return;
        }
        BitSet allowed = allowedCpus();
        for (int c : cpus) {
            if (c == -1) {
                continue;
            }
            if (c < -1 || (allowed != null ? !allowed.get(c) : c >= cpusAvailable())) {
                throw new IllegalArgumentException(flag + ": CPU " + c + " is not one this process may run on ("
                        + (allowed != null ? ranges(allowed) : "0.." + (cpusAvailable() - 1)) + "; -1: not pinned)");
            }
        }
    }

    private static String ranges(BitSet s) {
        StringBuilder b = new StringBuilder();
        for (int i = s.nextSetBit(0); i >= 0; ) {
            int j = s.nextClearBit(i) - 1;
            b.append(b.isEmpty() ? "" : ",").append(i).append(j > i ? "-" + j : "");
            i = s.nextSetBit(j + 1);
        }
        return b.toString();
    }

    /**
     * CPU poster threads (gda --target cpu) beyond this many spin against the scheduler and a
     * run stops ending in bounded time (4,096 on 2 CPUs ran for minutes): a usage error.
     */
    static int maxCpuPosters() {
        return Math.max(64, 8 * cpusAvailable());
    }

    /** The software NIC engine's mode: as asked, or idle when the spinners outnumber the cores. */
    static SoftNic.PollMode pollMode(SoftNic.PollMode asked, int spinningThreads) {
        return oversubscribed(spinningThreads) ? SoftNic.PollMode.IDLE : asked;
    }

    /** Records how the pollers ran: "hot", "idle", or "idle (oversubscribed)" when backed off here. */
    static void tagPollMode(ResultRecord r, SoftNic.PollMode asked, int spinningThreads) {
        r.param("poll_mode", oversubscribed(spinningThreads) ? "idle (oversubscribed)" : CliNames.word(asked));
    }
}
