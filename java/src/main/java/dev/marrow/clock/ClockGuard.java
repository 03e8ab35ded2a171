// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Holds the SM clock locked for one sweep and restores it exactly once on
 * every way out: close() (normal end and exceptions, through
 * try-with-resources) and a JVM shutdown hook (SIGINT, SIGTERM, System.exit
 * while the sweep runs). A SIGKILL cannot be caught: then `nvidia-smi -rgc`
 * by hand is the only remedy, which the CLI's help says.
 */
public final class ClockGuard implements AutoCloseable {
    private final ClockController controller;
    private final AtomicBoolean locked = new AtomicBoolean();
    private final AtomicBoolean restored = new AtomicBoolean();
    private final Thread hook;
    private volatile int lockedMhz = -1;

    private ClockGuard(ClockController controller) {
        this.controller = controller;
        this.hook = new Thread(this::restoreOnce, "marrow-clock-restore");
    }

    /**
     * Checks that the controller can lock, then arms the restore hook. Nothing
     * is locked yet; {@link #lock} does that.
     */
    public static ClockGuard open(ClockController controller) {
        controller.checkCanLock();
        ClockGuard g = new ClockGuard(controller);
        Runtime.getRuntime().addShutdownHook(g.hook);
        return g;
    }

    /** Locks the SM clock at mhz; the restore is already armed. */
    public void lock(int mhz) {
        if (restored.get()) {
            throw new IllegalStateException("the clock guard is closed");
        }
        locked.set(true); // before the call: a lock that half-worked is still restored
        controller.lock(mhz);
        lockedMhz = mhz;
    }

    /** The clock of the last successful lock, -1 before one. */
    public int lockedMhz() {
        return lockedMhz;
    }

    /** The shutdown hook's body, for tests that simulate a signal. */
    Runnable shutdownHook() {
        return hook::run;
    }

    /** True once the clocks were restored (by close or by the hook). */
    public boolean restored() {
        return restored.get();
    }

    private void restoreOnce() {
        if (restored.compareAndSet(false, true) && locked.get()) {
            controller.restore();
        }
    }

    @Override
    public void close() {
        try {
            restoreOnce();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs (or ran) and finds the clocks restored
            }
        }
    }
}
