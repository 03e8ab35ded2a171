// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import picocli.CommandLine.Option;

/** --quiet and --max-seconds, shared by every measuring command (through {@link OutputOptions}). */
public final class RunOptions {
    @Option(names = "--quiet", description = "No progress bar on stderr (it is also off when the console is not a terminal)")
    boolean quiet;

    @Option(names = "--max-seconds", paramLabel = "S",
            description = "Bound the whole run: no new point or repetition starts after S seconds (the records "
                    + "then say truncated=true), and each native wait is capped by the time left. Default: a bound scaled to the work, "
                    + RunBounds.DEFAULT_SECONDS_PER_POINT + " s per point or repetition (each command's help says how "
                    + "it counts them)")
    Double maxSeconds;

    /** Starts the clock of a run of `steps` points or repetitions (progress and the --max-seconds deadline). */
    RunProgress start(String task, long steps) {
        if (maxSeconds != null && !(maxSeconds > 0)) {
            throw new IllegalArgumentException("--max-seconds must be > 0, not " + maxSeconds);
        }
        return new RunProgress(task, steps, quiet, maxSeconds == null ? -1 : (long) (maxSeconds * 1e9));
    }
}
