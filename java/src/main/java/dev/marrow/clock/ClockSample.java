// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

/**
 * One latency observation for the clock fit.
 *
 * @param group        what is being fitted (path and configuration), e.g. "gda cuda+softnic gpu-fence inline 8 B"
 * @param sequence     the timed sequence: issue, putc, ...
 * @param lockedMhz    the clock the sweep locked for it, or -1 when none was locked (then every sample is a point)
 * @param measuredMhz  the SM clock measured during the run (clock64 cycles over globaltimer ns)
 * @param latencyUs    the cell's median latency in microseconds
 */
public record ClockSample(String group, String sequence, int lockedMhz, double measuredMhz, double latencyUs) {
}
