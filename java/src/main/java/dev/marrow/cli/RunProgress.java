// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.results.ResultRecord;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

import java.io.Console;
import java.time.Duration;
import java.util.List;

/**
 * One run of several points or repetitions: a progress bar on stderr and the
 * --max-seconds deadline. Commands call {@link #step()} between native calls
 * only, so Java never draws inside a timed region; the bar redraws on each
 * step (no refresh thread), and appears only once the run has taken about
 * 2 s, only when stderr is a terminal, and never with --quiet.
 */
final class RunProgress implements AutoCloseable {
    /** Runs shorter than this show no bar. */
    static final long SHOW_AFTER_NS = 2_000_000_000L;

    private final String task;
    private final long steps;
    private final boolean enabled;
    private final long startNs = System.nanoTime();
    private final long budgetNs;
    private long done;
    private boolean truncated;
    private ProgressBar bar;

    RunProgress(String task, long steps, boolean quiet, long budgetNs) {
        this.task = task;
        this.steps = steps;
        this.budgetNs = budgetNs;
        Console c = System.console();
        // Console.isTerminal: stdin and stdout are a terminal; records redirected to a file keep the bar,
        // a pipe or a test harness does not get it.
        this.enabled = !quiet && c != null && c.isTerminal() && !Boolean.getBoolean("marrow.noProgress");
    }

    /** True once the deadline has passed: start no further point (and mark the records truncated). */
    boolean expired() {
        if (budgetNs >= 0 && System.nanoTime() - startNs >= budgetNs) {
            truncated = true;
        }
        return truncated;
    }

    /** A native wait bound, capped by what is left of --max-seconds (at least 1 ms). */
    long capTimeoutNs(long timeoutNs) {
        if (budgetNs < 0) {
            return timeoutNs;
        }
        long left = budgetNs - (System.nanoTime() - startNs);
        return Math.max(1_000_000L, Math.min(timeoutNs, left));
    }

    /** Nanoseconds left of --max-seconds (0 once past it), or -1 without a bound. */
    long remainingNs() {
        return budgetNs < 0 ? -1 : Math.max(0, budgetNs - (System.nanoTime() - startNs));
    }

    /** A point or repetition that a native budget ended early: the run is truncated. */
    void markTruncated() {
        truncated = true;
    }

    /** One point or repetition done. */
    void step() {
        advance(1);
    }

    /** k more units done (e.g. the iterations of one chunk); one redraw. */
    void advance(long k) {
        done += k;
        long elapsed = System.nanoTime() - startNs;
        if (!enabled) {
            return;
        }
        if (bar == null && elapsed >= SHOW_AFTER_NS) {
            bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(steps).continuousUpdate()
                    .setUpdateIntervalMillis(Integer.MAX_VALUE)
                    .setConsumer(new ConsoleProgressBarConsumer(System.err, 100))
                    .startsFrom(0, Duration.ofNanos(elapsed)).build();
        }
        if (bar != null) {
            bar.stepTo(done);
        }
    }

    boolean truncated() {
        return truncated;
    }

    /** Marks every record of a run cut short by --max-seconds. */
    void tag(List<ResultRecord> records) {
        if (truncated) {
            for (ResultRecord r : records) {
                r.param("truncated", true);
            }
        }
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }
}
