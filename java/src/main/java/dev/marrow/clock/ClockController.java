// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

/**
 * Locks and restores the SM clock of one GPU. The clock sweep only calls it
 * through {@link ClockGuard}, which restores on every exit path. The real
 * implementation is {@link NvidiaSmiClockController}; tests use a fake.
 */
public interface ClockController {
    /** Throws with the reason when locking cannot work here (checked before anything is locked). */
    void checkCanLock();

    /** Locks the SM clock at mhz (min = max = mhz). */
    void lock(int mhz);

    /** Returns the SM clock to the driver's default policy. Must be safe to call when nothing is locked. */
    void restore();

    /** What this controller drives, for the records (e.g. "nvidia-smi -i 0"). */
    String describe();
}
