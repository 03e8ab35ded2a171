// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.softnic.SoftNic;
import dev.marrow.results.ResultRecord;

import java.io.PrintWriter;

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

    static boolean oversubscribed(int spinningThreads) {
        return spinningThreads > Runtime.getRuntime().availableProcessors();
    }

    /** Warns once per command and tags the records; returns whether it is oversubscribed. */
    static boolean check(int spinningThreads, String who, PrintWriter err) {
        boolean over = oversubscribed(spinningThreads);
        if (over) {
            err.println("marrow: warning: " + spinningThreads + " busy-polling threads (" + who + ") on "
                    + Runtime.getRuntime().availableProcessors() + " CPUs: latencies will be dominated by "
                    + "OS time slicing; the pollers back off (poll_mode \"idle (oversubscribed)\"), and records carry "
                    + "cpu_oversubscribed=true");
            err.flush();
        }
        return over;
    }

    static void tag(ResultRecord r, int spinningThreads) {
        r.param("spinning_threads", spinningThreads);
        r.param("cpu_oversubscribed", oversubscribed(spinningThreads));
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
