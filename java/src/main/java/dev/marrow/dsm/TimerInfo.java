// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/** struct marrow_dsm_timer_info: globaltimer step and the clock over one window. */
public record TimerInfo(long gtMinStepNs, long gtSteps, long clkDelta, long gtDeltaNs, int smid, int reads) {
    /** Effective SM clock over the window, GHz (= cycles per ns). */
    public double clockGhz() {
        return gtDeltaNs > 0 ? (double) clkDelta / gtDeltaNs : Double.NaN;
    }
}
