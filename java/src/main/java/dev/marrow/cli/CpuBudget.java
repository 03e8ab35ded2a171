// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.ResultRecord;

import java.io.PrintWriter;

/**
 * Busy-polling threads (producers, proxy workers, the software NIC engine,
 * responders) only measure the mechanism when each has a core. With more
 * spinners than cores the figures measure the OS scheduler instead
 * (milliseconds, not microseconds): say so on stderr and in the record.
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
                    + "OS time slicing; records carry cpu_oversubscribed=true");
            err.flush();
        }
        return over;
    }

    static void tag(ResultRecord r, int spinningThreads) {
        r.param("spinning_threads", spinningThreads);
        r.param("cpu_oversubscribed", oversubscribed(spinningThreads));
    }
}
