// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;

/** The options every `clock-sweep` command shares (docs/design/methods.md §5). */
final class ClockSweepOptions {
    @Option(names = "--clocks", split = ",", paramLabel = "MHZ",
            description = "SM clocks to lock, comma list (at least 3, spanning >= x1.10), e.g. 1980,1755,1410,1005,705")
    int[] clocks;

    @Option(names = "--passes", defaultValue = "3", description = "Shuffled passes over the clocks. Default: ${DEFAULT-VALUE}")
    int passes;

    @Option(names = "--seed", description = "Seed of the shuffle (recorded). Default: from the time of day")
    Long seed;

    @Option(names = "--lock-clocks",
            description = "Consent to changing the GPU's SM clock: `nvidia-smi -lgc F,F` per cell (root), "
                    + "`nvidia-smi -rgc` at the end, on errors and on SIGINT/SIGTERM (not on SIGKILL: then run "
                    + "`nvidia-smi -rgc` by hand). Without it the sweep refuses to start")
    boolean lockClocks;

    @Option(names = "--settle-ms", defaultValue = "300",
            description = "Wait after each lock before measuring. Default: ${DEFAULT-VALUE}")
    long settleMs;

    @Option(names = "--fit-only", arity = "1..*", paramLabel = "FILE",
            description = "Lock nothing, measure nothing: fit the JSON-lines records in these files (gda/proxy "
                    + "latency records and clock-sweep cells; each must carry its measured SM clock)")
    List<Path> fitOnly;

    /** Checks the measuring options (not used with --fit-only). */
    void validateSweep() {
        if (clocks == null || clocks.length < dev.marrow.clock.ClockFit.MIN_POINTS) {
            throw new IllegalArgumentException("--clocks needs at least " + dev.marrow.clock.ClockFit.MIN_POINTS
                    + " SM clocks (MHz), e.g. --clocks 1980,1410,1005");
        }
        for (int c : clocks) {
            if (c < 100 || c > 5000) {
                throw new IllegalArgumentException("--clocks " + c + ": an SM clock in MHz is 100..5000");
            }
        }
        if (passes < 1 || passes > 100) {
            throw new IllegalArgumentException("--passes must be 1..100, not " + passes);
        }
        if (settleMs < 0 || settleMs > 60_000) {
            throw new IllegalArgumentException("--settle-ms must be 0..60000, not " + settleMs);
        }
        if (!lockClocks) {
            throw new IllegalArgumentException("clock-sweep locks the GPU's SM clock (nvidia-smi -lgc, needs root) "
                    + "and restores it afterwards (nvidia-smi -rgc); pass --lock-clocks to consent, or --fit-only "
                    + "FILE... to fit existing records");
        }
    }

    /** --fit-only excludes every option that only a sweep uses. */
    void validateFitOnly() {
        if (lockClocks || clocks != null || seed != null) {
            throw new IllegalArgumentException("--fit-only locks and measures nothing: drop --lock-clocks, "
                    + "--clocks and --seed");
        }
    }
}
